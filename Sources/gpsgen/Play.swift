import SyntheticGPS

/// Writing a scenario to a sink, as fast as possible or in real time.
enum Play {
    /// Generates every epoch before `duration` seconds and writes it through `writer`.
    static func batch(
        receiver: inout SyntheticReceiver, duration: Double, writer: inout any EpochWriter, sink: OutputSink
    ) throws {
        var buffer = writer.header()
        var progress = Progress(total: duration)
        while let due = receiver.nextEpochTime, due < duration, let epoch = receiver.nextEpoch() {
            writer.write(epoch, to: &buffer)
            try sink.flush(&buffer)
            progress.update(epoch.elapsed)
        }
        buffer += writer.footer()
        try sink.flush(&buffer, force: true)
        progress.finish()
    }

    /// Writes each epoch when its time comes on the continuous clock, flushing every epoch.
    static func realtime(
        receiver: inout SyntheticReceiver, duration: Double, writer: inout any EpochWriter, sink: OutputSink
    ) async throws {
        try sink.write(writer.header())
        try await EpochPlayer.play(&receiver, for: duration, pacedBy: ContinuousClock()) { epoch in
            var text = ""
            writer.write(epoch, to: &text)
            try sink.write(text)
        }
        try sink.write(writer.footer())
    }
}

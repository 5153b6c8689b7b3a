/// Plays a receiver's epochs for a span of scenario time, each at its moment on a clock: the engine
/// of `gpsgen --realtime` and `--listen`.
public enum EpochPlayer {
    /// Emits every epoch of `receiver` whose time is below `duration` seconds, sleeping on `clock`
    /// until each one is due (time zero is when this is called).
    /// - Throws: `CancellationError` when the task is cancelled, or whatever `emit` throws.
    public static func play<C: Clock>(
        _ receiver: inout SyntheticReceiver, for duration: Double, pacedBy clock: C,
        emit: (SyntheticEpoch) async throws -> Void
    ) async throws where C.Duration == Duration {
        let origin = clock.now
        let offset = receiver.nextEpochTime ?? 0
        while let due = receiver.nextEpochTime, due < duration, let epoch = receiver.nextEpoch() {
            try await clock.sleep(until: origin.advanced(by: .seconds(due - offset)), tolerance: nil)
            try await emit(epoch)
        }
    }
}

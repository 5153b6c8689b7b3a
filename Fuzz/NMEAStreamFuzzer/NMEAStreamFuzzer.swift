import NMEA

/// One libFuzzer run of the NMEA stream decoder.
///
/// The input is a byte stream as a serial port would deliver it. It is decoded twice: in one piece and in
/// chunks whose lengths are drawn from the input itself. Invariants: no crash, no hang, the buffered bytes
/// never exceed the line limit, and both decodings yield the same epochs and the same statistics.
func fuzzNMEAStream(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let data, size > 0 else { return 0 }
    let bytes = UnsafeRawBufferPointer(start: data, count: size)

    var whole = NMEAStreamDecoder()
    var wholeEpochs: [NMEAEpoch] = []
    whole.feed(bytes) { wholeEpochs.append($0) }
    precondition(whole.bufferedByteCount <= whole.maximumLineLength, "buffer grew past the line limit")
    whole.finish { wholeEpochs.append($0) }

    var chunked = NMEAStreamDecoder()
    var chunkedEpochs: [NMEAEpoch] = []
    var offset = 0
    var step = 0
    while offset < size {
        // Chunk lengths 0…16 cycle through values taken from the input, so the fuzzer steers the cut points.
        let length = min(size - offset, Int(bytes[step % size] & 0x0F) + (step & 1))
        step += 1
        chunked.feed(UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + length)])) { chunkedEpochs.append($0) }
        precondition(chunked.bufferedByteCount <= chunked.maximumLineLength, "buffer grew past the line limit")
        offset += length
    }
    chunked.finish { chunkedEpochs.append($0) }

    precondition(wholeEpochs.count == chunkedEpochs.count, "chunking changed the number of epochs")
    for (one, other) in zip(wholeEpochs, chunkedEpochs) {
        precondition(Fingerprint(one) == Fingerprint(other), "chunking changed an epoch")
        precondition(one.mode == .noFix || one.latitude.map { abs($0) <= 90 } ?? true, "latitude out of range")
    }
    precondition(whole.statistics == chunked.statistics, "chunking changed the statistics")
    return 0
}

/// The fields compared between the two decodings, with NaN-safe equality (bit patterns).
private struct Fingerprint: Equatable {
    var values: [UInt64?]
    var mode: Int
    var satellites: Int

    init(_ epoch: NMEAEpoch) {
        values = [
            epoch.secondsOfDay, epoch.latitude, epoch.longitude, epoch.altitudeMSL, epoch.speed, epoch.track,
            epoch.hdop, epoch.horizontalAccuracy,
        ].map { $0?.bitPattern }
        mode = epoch.mode.rawValue
        satellites = epoch.satellites.count
    }
}

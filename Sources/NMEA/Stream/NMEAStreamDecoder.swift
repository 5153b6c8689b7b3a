/// Decodes a raw NMEA 0183 byte stream into epochs: bytes in, fixes out.
///
/// Feed it whatever the serial port or socket delivers — half lines,
/// several lines, noise — and it calls back once per completed epoch. Bad input
/// never stops it: every rejected line is counted by ``NMEAErrorKind`` in
/// ``statistics`` and the decoder carries on at the next `$`.
///
/// ```swift
/// var decoder = NMEAStreamDecoder()
/// decoder.feed(chunk) { epoch in print(epoch.latitude, epoch.longitude) }
/// decoder.finish { epoch in print(epoch) }
/// ```
///
/// Memory is bounded: a line may be at most `maximumLineLength` bytes (default
/// 256, the NMEA maximum of 82 with room for long proprietary and
/// high-precision sentences). Decoding allocates nothing per sentence in steady state.
public struct NMEAStreamDecoder: Sendable {
    private var framer: NMEALineFramer
    private var assembler = NMEAEpochAssembler()
    private var counters = NMEACounters()
    /// Which sentence types may come without a checksum.
    public let checksumPolicy: NMEAChecksumPolicy
    /// The most recent rejected line's error, if any.
    public private(set) var lastError: NMEAError?

    /// Creates a decoder.
    ///
    /// - Parameters:
    ///   - maximumLineLength: the longest line, `$` to terminator, that is accepted (at least 16).
    ///   - checksumPolicy: which sentence types may omit `*HH`; `.standard` by default (see ``NMEAChecksumPolicy``).
    public init(maximumLineLength: Int = 256, checksumPolicy: NMEAChecksumPolicy = .standard) {
        framer = NMEALineFramer(maximumLineLength: maximumLineLength)
        self.checksumPolicy = checksumPolicy
    }

    /// The longest line accepted.
    public var maximumLineLength: Int { framer.maximumLineLength }

    /// Sentences decoded by type and lines rejected by error kind, since creation.
    public var statistics: NMEADecoderStatistics { counters.statistics }

    /// Decodes a chunk of bytes, calling `onEpoch` for every epoch it completes.
    ///
    /// - Complexity: O(n) in the chunk length.
    public mutating func feed(_ bytes: UnsafeRawBufferPointer, onEpoch: (NMEAEpoch) -> Void) {
        feed(bytes, onSentence: { _ in }, onEpoch: onEpoch)
    }

    /// Decodes a chunk of bytes, reporting each decoded sentence as well as each completed epoch.
    ///
    /// - Complexity: O(n) in the chunk length.
    public mutating func feed(
        _ bytes: UnsafeRawBufferPointer,
        onSentence: (NMEASentence) -> Void,
        onEpoch: (NMEAEpoch) -> Void
    ) {
        // Borrow the framer so the line callback may mutate the rest of `self` (no copy of its buffer).
        var framer = NMEALineFramer.placeholder
        swap(&framer, &self.framer)
        defer { swap(&framer, &self.framer) }
        framer.feed(
            bytes,
            onLine: { line, interrupted in process(line, interrupted: interrupted, onSentence: onSentence, onEpoch: onEpoch) },
            onEvent: { event in record(event) }
        )
    }

    /// Decodes bytes from any sequence (convenience; contiguous collections are not copied).
    public mutating func feed(_ bytes: some Sequence<UInt8>, onEpoch: (NMEAEpoch) -> Void) {
        let done: Void? = bytes.withContiguousStorageIfAvailable { buffer in
            feed(UnsafeRawBufferPointer(buffer), onEpoch: onEpoch)
        }
        if done == nil {
            Array(bytes).withUnsafeBytes { feed($0, onEpoch: onEpoch) }
        }
    }

    /// Ends the stream: an unterminated last line is decoded if complete (else counted as
    /// `.truncated`) and the open epoch is emitted.
    public mutating func finish(onEpoch: (NMEAEpoch) -> Void) {
        var framer = NMEALineFramer.placeholder
        swap(&framer, &self.framer)
        framer.finish { line, interrupted in process(line, interrupted: interrupted, onSentence: { _ in }, onEpoch: onEpoch) }
        swap(&framer, &self.framer)
        assembler.finish { epoch in
            counters.epochs += 1
            onEpoch(epoch)
        }
    }

    private mutating func process(
        _ line: UnsafeRawBufferPointer,
        interrupted: Bool,
        onSentence: (NMEASentence) -> Void,
        onEpoch: (NMEAEpoch) -> Void
    ) {
        let sentence: NMEASentence
        do {
            sentence = try NMEASentenceParser.parse(line, checksumPolicy: checksumPolicy, interrupted: interrupted)
        } catch {
            counters.count(error.kind)
            lastError = error
            return
        }
        counters.count(sentence.kind)
        if sentence.checksum == .absent { counters.sentencesWithoutChecksum += 1 }
        onSentence(sentence)
        assembler.add(sentence) { epoch in
            counters.epochs += 1
            onEpoch(epoch)
        }
    }

    private mutating func record(_ event: NMEALineFramer.Event) {
        switch event {
        case .lineTooLong:
            counters.count(.lineTooLong)
            lastError = NMEAError(.lineTooLong)
        case .discarded(let count):
            counters.discardedBytes += count
        }
    }
}

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
    ///   - maximumLineLength: the longest line, `$` to terminator, that is accepted (16 to 65,535: outside that range, the nearest).
    ///   - checksumPolicy: which sentence types may omit `*HH`; `.standard` by default (see ``NMEAChecksumPolicy``).
    ///   - rolloverPivot: dates before it move forward by 1024 weeks (see ``NMEAEpochAssembler/init(rolloverPivot:)``);
    ///     `nil`, the default, uses dates as printed.
    public init(maximumLineLength: Int = 256, checksumPolicy: NMEAChecksumPolicy = .standard, rolloverPivot: NMEADate? = nil) {
        framer = NMEALineFramer(maximumLineLength: maximumLineLength)
        self.checksumPolicy = checksumPolicy
        assembler = NMEAEpochAssembler(rolloverPivot: rolloverPivot)
    }

    /// The longest line accepted.
    public var maximumLineLength: Int { framer.maximumLineLength }

    /// Bytes of an incomplete line held until the next chunk; never more than ``maximumLineLength``.
    public var bufferedByteCount: Int { framer.bufferedByteCount }

    /// Sentences decoded by type and lines rejected by error kind, since creation.
    public var statistics: NMEADecoderStatistics {
        var statistics = counters.statistics
        statistics.sentencesAfterTheirEpoch = assembler.sentencesAfterTheirEpoch
        return statistics
    }

    /// Sentences decoded successfully since creation, all types together: ``NMEADecoderStatistics/sentences``
    /// without making the whole snapshot. - Complexity: O(1).
    public var sentencesDecoded: Int { counters.sentences }

    /// Lines rejected since creation, every kind together: ``NMEADecoderStatistics/totalErrors`` without making
    /// the whole snapshot. - Complexity: O(1).
    public var linesRejected: Int { counters.rejected }

    /// Decodes a chunk of bytes, calling `onEpoch` for every epoch it completes.
    ///
    /// - Complexity: O(n) in the chunk length.
    public mutating func feed(_ bytes: UnsafeRawBufferPointer, onEpoch: (NMEAEpoch) -> Void) {
        feed(bytes, sentenceObserver: nil, onEpoch: onEpoch)
    }

    /// Decodes a chunk of bytes, reporting each decoded sentence as well as each completed epoch.
    ///
    /// - Complexity: O(n) in the chunk length.
    public mutating func feed(
        _ bytes: UnsafeRawBufferPointer,
        onSentence: (NMEASentence) -> Void,
        onEpoch: (NMEAEpoch) -> Void
    ) {
        withoutActuallyEscaping(onSentence) { observer in
            feed(bytes, sentenceObserver: observer, onEpoch: onEpoch)
        }
    }

    private mutating func feed(
        _ bytes: UnsafeRawBufferPointer,
        sentenceObserver onSentence: ((NMEASentence) -> Void)?,
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
        framer.finish { line, interrupted in process(line, interrupted: interrupted, onSentence: nil, onEpoch: onEpoch) }
        swap(&framer, &self.framer)
        assembler.finish { epoch in
            counters.epochs += 1
            onEpoch(epoch)
        }
    }

    /// Decodes one line straight into the epoch assembler: each sentence struct is built once,
    /// in place, and an ``NMEASentence`` is only made when someone observes sentences.
    @inline(__always)
    private mutating func process(
        _ line: UnsafeRawBufferPointer,
        interrupted: Bool,
        onSentence: ((NMEASentence) -> Void)?,
        onEpoch: (NMEAEpoch) -> Void
    ) {
        do throws(NMEAError) {
            var frame = try NMEASentenceParser.frame(line, checksumPolicy: checksumPolicy, interrupted: interrupted)
            let talker = frame.talker
            let countingEpochs = { (epoch: NMEAEpoch) in
                counters.epochs += 1
                onEpoch(epoch)
            }
            switch frame.kind {
            case .gga:
                let gga = try NMEAGGA(&frame.fields)
                onSentence?(NMEASentence(talker: talker, checksum: frame.checksum, body: .gga(gga)))
                assembler.add(gga, talker: talker, onEpoch: countingEpochs)
            case .rmc:
                let rmc = try NMEARMC(&frame.fields)
                onSentence?(NMEASentence(talker: talker, checksum: frame.checksum, body: .rmc(rmc)))
                assembler.add(rmc, talker: talker, onEpoch: countingEpochs)
            case .gsa:
                let gsa = try NMEAGSA(&frame.fields)
                onSentence?(NMEASentence(talker: talker, checksum: frame.checksum, body: .gsa(gsa)))
                assembler.add(gsa, talker: talker, onEpoch: countingEpochs)
            case .gsv:
                let gsv = try NMEAGSV(&frame.fields)
                onSentence?(NMEASentence(talker: talker, checksum: frame.checksum, body: .gsv(gsv)))
                assembler.add(gsv, talker: talker, onEpoch: countingEpochs)
            case .gll:
                let gll = try NMEAGLL(&frame.fields)
                onSentence?(NMEASentence(talker: talker, checksum: frame.checksum, body: .gll(gll)))
                assembler.add(gll, talker: talker, onEpoch: countingEpochs)
            case .vtg:
                let vtg = try NMEAVTG(&frame.fields)
                onSentence?(NMEASentence(talker: talker, checksum: frame.checksum, body: .vtg(vtg)))
                assembler.add(vtg, onEpoch: countingEpochs)
            case .gst:
                let gst = try NMEAGST(&frame.fields)
                onSentence?(NMEASentence(talker: talker, checksum: frame.checksum, body: .gst(gst)))
                assembler.add(gst, onEpoch: countingEpochs)
            case .zda:
                let zda = try NMEAZDA(&frame.fields)
                onSentence?(NMEASentence(talker: talker, checksum: frame.checksum, body: .zda(zda)))
                assembler.add(zda, onEpoch: countingEpochs)
            case .gns, .hdt, .pgrme, .pgrmz, .psrfepe:
                // Rarer types: built as an enum value, then added through the generic path.
                let sentence = NMEASentence(
                    talker: talker, checksum: frame.checksum, body: try NMEASentenceParser.decodeBody(frame.kind, &frame.fields))
                onSentence?(sentence)
                assembler.add(sentence, onEpoch: countingEpochs)
            }
            counters.count(frame.kind)
            if frame.checksum == .absent { counters.sentencesWithoutChecksum += 1 }
        } catch {
            counters.count(error.kind)
            lastError = error
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

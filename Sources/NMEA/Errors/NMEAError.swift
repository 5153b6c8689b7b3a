/// A rejected line: what went wrong, in which sentence type and which field.
///
/// The decoder never crashes on input; every rejected line becomes one of these,
/// is counted in ``NMEADecoderStatistics/errors`` and is available as
/// ``NMEAStreamDecoder/lastError``.
public struct NMEAError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The category, used for counting.
    public var kind: NMEAErrorKind
    /// The sentence type, when the address was recognised.
    public var sentence: NMEASentenceKind?
    /// The 1-based data field index (field 1 follows the address), when one field is at fault.
    public var field: Int?

    /// Creates an error.
    public init(_ kind: NMEAErrorKind, sentence: NMEASentenceKind? = nil, field: Int? = nil) {
        self.kind = kind
        self.sentence = sentence
        self.field = field
    }

    /// A human-readable explanation that says what to do about it.
    public var description: String {
        let location = (sentence.map { " in \($0.rawValue)" } ?? "") + (field.map { " field \($0)" } ?? "")
        switch kind {
        case .badChecksum:
            return "checksum mismatch\(location): the line was corrupted; it was dropped"
        case .missingChecksum:
            return "checksum missing\(location): NMEA 0183 requires one for this sentence; enable a lenient checksum policy to accept it"
        case .malformedChecksum:
            return "checksum field is not two hex digits\(location): the line was dropped"
        case .lineTooLong:
            return "line longer than the maximum line length without a terminator: input is not NMEA or the baud rate is wrong"
        case .truncated:
            return "sentence cut short\(location): the receiver or the link dropped bytes"
        case .malformedAddress:
            return "address is not $ + talker + formatter\(location)"
        case .unsupportedSentence:
            return "sentence type not decoded by this module; ignored"
        case .invalidField:
            return "field does not parse\(location): check the receiver's output format"
        case .outOfRange:
            return "value out of range\(location): the sentence was rejected"
        }
    }
}

/// What went wrong with a line of input. The stream decoder counts every rejected line under one kind.
public enum NMEAErrorKind: String, Sendable, Hashable, CaseIterable {
    /// The `*HH` checksum does not match the XOR of the sentence; the line was corrupted in transit.
    case badChecksum
    /// The checksum is missing where the checksum policy requires one (by default: RMC).
    case missingChecksum
    /// The checksum field is not exactly two hexadecimal digits.
    case malformedChecksum
    /// A line ran past the maximum line length without a terminator; its bytes were dropped up to the next `$` or newline.
    case lineTooLong
    /// A sentence was cut short: a new `$` or the end of stream arrived before its end, or it has too few fields.
    case truncated
    /// The address is not `$` + two-letter talker + three-letter formatter (e.g. proprietary `$PFST`).
    case malformedAddress
    /// A well-formed sentence of a type this module does not decode (e.g. `GPTXT`, `PFST`).
    case unsupportedSentence
    /// A field does not parse as what it should hold (a number, a hemisphere letter, a time).
    case invalidField
    /// A field parses but its value is impossible (latitude 95°, minute 61, month 13).
    case outOfRange

    /// A dense index in `0..<allCases.count`, used for allocation-free counters.
    var ordinal: Int {
        switch self {
        case .badChecksum: 0
        case .missingChecksum: 1
        case .malformedChecksum: 2
        case .lineTooLong: 3
        case .truncated: 4
        case .malformedAddress: 5
        case .unsupportedSentence: 6
        case .invalidField: 7
        case .outOfRange: 8
        }
    }
}

/// Counters of a stream decoder: sentences decoded by type, lines rejected by error kind.
public struct NMEADecoderStatistics: Sendable, Hashable {
    /// Sentences decoded successfully, all types together.
    public var sentences: Int
    /// Sentences decoded successfully, by type (types never seen are absent).
    public var sentencesByKind: [NMEASentenceKind: Int]
    /// Rejected lines by error kind (kinds never seen are absent).
    public var errors: [NMEAErrorKind: Int]
    /// Epochs emitted.
    public var epochs: Int
    /// Bytes outside any sentence (noise, comments, overlong lines), skipped while resynchronising on `$`.
    public var discardedBytes: Int
    /// Decoded sentences that had no checksum and were accepted under the checksum policy.
    public var sentencesWithoutChecksum: Int
    /// Timed sentences left out because they arrived after their cycle's epoch had been emitted at the
    /// sentence learned to end the receiver's cycle (see ``NMEAEpochAssembler/sentencesAfterTheirEpoch``).
    public var sentencesAfterTheirEpoch: Int

    /// Creates empty statistics.
    public init() {
        sentences = 0
        sentencesByKind = [:]
        errors = [:]
        epochs = 0
        discardedBytes = 0
        sentencesWithoutChecksum = 0
        sentencesAfterTheirEpoch = 0
    }

    /// The count for one error kind, 0 when never seen.
    public subscript(error kind: NMEAErrorKind) -> Int { errors[kind] ?? 0 }

    /// The count for one sentence type, 0 when never seen.
    public subscript(sentence kind: NMEASentenceKind) -> Int { sentencesByKind[kind] ?? 0 }

    /// All rejected lines, every kind together.
    public var totalErrors: Int { errors.values.reduce(0, +) }
}

/// Allocation-free counters kept on the hot path; turned into ``NMEADecoderStatistics`` on demand.
struct NMEACounters: Sendable {
    private var sentenceCounts = [Int](repeating: 0, count: NMEASentenceKind.allCases.count)
    private var errorCounts = [Int](repeating: 0, count: NMEAErrorKind.allCases.count)
    var epochs = 0
    var discardedBytes = 0
    var sentencesWithoutChecksum = 0
    /// Sentences decoded, all kinds together.
    private(set) var sentences = 0

    /// Counts one decoded sentence. - Complexity: O(1), no allocation.
    mutating func count(_ kind: NMEASentenceKind) {
        sentenceCounts[kind.ordinal] += 1
        sentences += 1
    }

    /// Lines rejected, all kinds together.
    private(set) var rejected = 0

    /// Counts one rejected line. - Complexity: O(1), no allocation.
    mutating func count(_ kind: NMEAErrorKind) {
        errorCounts[kind.ordinal] += 1
        rejected += 1
    }

    /// A snapshot as public statistics. - Complexity: O(number of kinds).
    var statistics: NMEADecoderStatistics {
        var result = NMEADecoderStatistics()
        for kind in NMEASentenceKind.allCases where sentenceCounts[kind.ordinal] > 0 {
            result.sentencesByKind[kind] = sentenceCounts[kind.ordinal]
            result.sentences += sentenceCounts[kind.ordinal]
        }
        for kind in NMEAErrorKind.allCases where errorCounts[kind.ordinal] > 0 {
            result.errors[kind] = errorCounts[kind.ordinal]
        }
        result.epochs = epochs
        result.discardedBytes = discardedBytes
        result.sentencesWithoutChecksum = sentencesWithoutChecksum
        return result
    }
}

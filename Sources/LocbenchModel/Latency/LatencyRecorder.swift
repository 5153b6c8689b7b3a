import Histogram

/// Latencies in microseconds, kept in an HDR histogram (3 significant digits, up to 1 hour).
///
/// The summary and the buckets are read in one pass over the recorded values. The histogram's own
/// `valueAtPercentile` and `count(within:)` each scan its counts from the start and are not inlinable, so
/// they run unspecialised (every count converted through the generic integer protocols): four
/// percentiles and some twenty buckets a recorder took about 10 ms at the end of a 10,000-request run,
/// inside its timed wall. The recorded-values iterator is inlinable and is specialised here; the answers
/// are the library's, to the microsecond (the tests compare them).
public struct LatencyRecorder: Sendable {
    private var histogram = Histogram<UInt64>(highestTrackableValue: Self.highestMicroseconds, numberOfSignificantValueDigits: .three)

    /// The largest latency kept, microseconds (an hour).
    public static let highestMicroseconds: UInt64 = 3_600_000_000

    /// The percentiles a ``LatencySummary`` carries, in its order.
    static let percentiles: [Double] = [50, 90, 99, 99.9]

    public init() {}

    /// Records a latency (negative values count as zero).
    public mutating func record(nanoseconds: Int64) {
        _ = histogram.record(UInt64(max(0, nanoseconds / 1_000)))
    }

    /// How many latencies were recorded.
    public var count: UInt64 { histogram.totalCount }

    /// p50, p90, p99, p99.9 and max, in microseconds: for each percentile the largest value that the
    /// percentile of the recorded values is at or below (within the histogram's resolution), as the
    /// histogram's `valueAtPercentile` answers.
    public var summary: LatencySummary {
        let total = histogram.totalCount
        guard total > 0 else { return LatencySummary(count: 0, p50: 0, p90: 0, p99: 0, p999: 0, max: 0) }
        // The count each percentile needs, as the library derives it (one ulp below, rounded up, at least one).
        let needed = Self.percentiles.map { percentile in
            max(1, UInt64((min(max(percentile.nextDown, 0), 100) * Double(total) / 100).rounded(.up)))
        }
        var values = [UInt64](repeating: 0, count: needed.count)
        var next = 0
        let (lowest, highest) = (histogram.min, histogram.maxRecorded)
        for recorded in histogram.recordedValues() {
            while next < needed.count, recorded.totalCountToThisValue >= needed[next] {
                values[next] = max(min(recorded.value, highest), lowest)
                next += 1
            }
            if next == needed.count { break }
        }
        return LatencySummary(count: Int(total), p50: values[0], p90: values[1], p99: values[2], p999: values[3], max: histogram.max)
    }

    /// Counts per power-of-two bucket of microseconds (1, 2, 4, … up to the highest kept), for a report's
    /// histogram: a bucket counts the values above the previous bound and at or below its own (within the
    /// histogram's resolution: a value counts in the first bucket whose bound reaches the lowest value
    /// equivalent to it). The list ends at the first bucket that has seen every value.
    public var buckets: [(upperMicroseconds: UInt64, count: UInt64)] {
        let total = histogram.totalCount
        guard total > 0 else { return [] }
        // Bucket k has the bound 2^k; 2^31 is the last bound within an hour of microseconds.
        let lastExponent = 63 - Self.highestMicroseconds.leadingZeroBitCount
        var counts = [UInt64](repeating: 0, count: lastExponent + 1)
        for recorded in histogram.recordedValues() {
            let lowest = histogram.lowestEquivalentForValue(recorded.value)
            // The smallest exponent k with 2^k >= lowest (0 for 0 and 1).
            let exponent = lowest <= 1 ? 0 : 64 - (lowest - 1).leadingZeroBitCount
            if exponent <= lastExponent { counts[exponent] += UInt64(recorded.count) }
        }
        var result: [(upperMicroseconds: UInt64, count: UInt64)] = []
        var below: UInt64 = 0
        for exponent in counts.indices where below < total {
            result.append((UInt64(1) << exponent, counts[exponent]))
            below += counts[exponent]
        }
        return result
    }
}

/// Latency percentiles in microseconds.
public struct LatencySummary: Codable, Sendable, Equatable {
    public var count: Int
    public var p50: UInt64
    public var p90: UInt64
    public var p99: UInt64
    public var p999: UInt64
    public var max: UInt64

    public init(count: Int, p50: UInt64, p90: UInt64, p99: UInt64, p999: UInt64, max: UInt64) {
        self.count = count
        self.p50 = p50
        self.p90 = p90
        self.p99 = p99
        self.p999 = p999
        self.max = max
    }
}

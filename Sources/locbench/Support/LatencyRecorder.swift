import Histogram

/// Latencies in microseconds, kept in an HDR histogram (3 significant digits, up to 1 hour).
struct LatencyRecorder: Sendable {
    private var histogram = Histogram<UInt64>(highestTrackableValue: 3_600_000_000, numberOfSignificantValueDigits: .three)

    /// Records a latency (negative values count as zero).
    mutating func record(nanoseconds: Int64) {
        _ = histogram.record(UInt64(max(0, nanoseconds / 1_000)))
    }

    var count: UInt64 { histogram.totalCount }

    /// p50, p90, p99, p99.9 and max, in microseconds.
    var summary: LatencySummary {
        guard histogram.totalCount > 0 else { return LatencySummary(count: 0, p50: 0, p90: 0, p99: 0, p999: 0, max: 0) }
        return LatencySummary(
            count: Int(histogram.totalCount),
            p50: histogram.valueAtPercentile(50), p90: histogram.valueAtPercentile(90),
            p99: histogram.valueAtPercentile(99), p999: histogram.valueAtPercentile(99.9), max: histogram.max)
    }

    /// Counts per power-of-two bucket of microseconds, for the report's histogram.
    var buckets: [(upperMicroseconds: UInt64, count: UInt64)] {
        guard histogram.totalCount > 0 else { return [] }
        var result: [(UInt64, UInt64)] = []
        var upper: UInt64 = 1
        var below: UInt64 = 0
        while below < histogram.totalCount, upper <= 3_600_000_000 {
            let atOrBelow = histogram.count(within: 0...upper)
            result.append((upper, atOrBelow - below))
            below = atOrBelow
            upper *= 2
        }
        return result
    }
}

/// Latency percentiles in microseconds.
struct LatencySummary: Codable, Sendable {
    var count: Int
    var p50: UInt64
    var p90: UInt64
    var p99: UInt64
    var p999: UInt64
    var max: UInt64
}

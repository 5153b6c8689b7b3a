import Histogram
import LocationEngineTestKit
import LocbenchModel
import Testing

/// The recorder reads its summary and buckets in one pass; the answers must be the histogram's own
/// (`valueAtPercentile`, and `count(within:)` from zero to each bound), whatever the values.
@Suite struct LatencyRecorderTests {
    /// The library's answers for the same values, read the way the recorder read them before.
    static func libraryAnswers(_ microseconds: [UInt64]) -> (summary: LatencySummary, buckets: [(UInt64, UInt64)]) {
        var histogram = Histogram<UInt64>(highestTrackableValue: LatencyRecorder.highestMicroseconds, numberOfSignificantValueDigits: .three)
        for value in microseconds { _ = histogram.record(value) }
        let summary = LatencySummary(
            count: Int(histogram.totalCount), p50: histogram.valueAtPercentile(50), p90: histogram.valueAtPercentile(90),
            p99: histogram.valueAtPercentile(99), p999: histogram.valueAtPercentile(99.9), max: histogram.max)
        var buckets: [(UInt64, UInt64)] = []
        var upper: UInt64 = 1
        var below: UInt64 = 0
        while below < histogram.totalCount, upper <= LatencyRecorder.highestMicroseconds {
            let atOrBelow = histogram.count(within: 0...upper)
            buckets.append((upper, atOrBelow - below))
            below = atOrBelow
            upper *= 2
        }
        return (summary, buckets)
    }

    static func check(_ microseconds: [UInt64]) {
        var recorder = LatencyRecorder()
        for value in microseconds { recorder.record(nanoseconds: Int64(value) * 1_000) }
        let expected = libraryAnswers(microseconds)
        #expect(recorder.count == UInt64(microseconds.count))
        #expect(recorder.summary == expected.summary)
        let buckets = recorder.buckets
        #expect(buckets.map(\.upperMicroseconds) == expected.buckets.map(\.0))
        #expect(buckets.map(\.count) == expected.buckets.map(\.1))
    }

    @Test func anEmptyRecorderHasAZeroSummaryAndNoBuckets() {
        let recorder = LatencyRecorder()
        #expect(recorder.summary == LatencySummary(count: 0, p50: 0, p90: 0, p99: 0, p999: 0, max: 0))
        #expect(recorder.buckets.isEmpty)
    }

    @Test func edgesAgreeWithTheLibrary() {
        Self.check([0])
        Self.check([1])
        Self.check([2, 2, 2])
        Self.check([0, 0, 1, 3, 4, 5])
        Self.check([2_048, 2_049, 4_096, 4_097, 1 << 20, (1 << 20) + 1])
        Self.check([1, 1 << 31, (1 << 31) + 1, 3_000_000_000, LatencyRecorder.highestMicroseconds])
        Self.check(Array(repeating: 123_456, count: 1_000))
    }

    @Test(arguments: 1...40)
    func randomValuesAgreeWithTheLibrary(seed: UInt64) {
        var random = SplitMix64(seed: seed)
        let count = Int.random(in: 1...3_000, using: &random)
        // Log-uniform over the whole range, with runs of zeros and of one repeated value mixed in.
        let values: [UInt64] = (0..<count).map { _ in
            switch Int.random(in: 0..<10, using: &random) {
            case 0: return 0
            case 1: return 1_500
            default:
                let exponent = Double.random(in: 0...31.7, using: &random)
                return min(LatencyRecorder.highestMicroseconds, UInt64(Double.exp2(exponent)))
            }
        }
        Self.check(values)
    }

    @Test func negativeLatenciesCountAsZero() {
        var recorder = LatencyRecorder()
        recorder.record(nanoseconds: -5_000)
        recorder.record(nanoseconds: 999)
        #expect(recorder.summary == LatencySummary(count: 2, p50: 0, p90: 0, p99: 0, p999: 0, max: 0))
        #expect(recorder.buckets.map(\.count) == [2])
    }
}

/// A half-open stretch `[start, end)` of a run's timeline, in nanoseconds since the run began.
public struct TimelineInterval: Sendable, Hashable {
    /// Where it begins (included).
    public var start: Int64
    /// Where it ends (excluded); never before `start`.
    public var end: Int64

    /// An interval from `start` to `end` (an `end` before `start` gives an empty interval at `start`).
    public init(start: Int64, end: Int64) {
        self.start = start
        self.end = max(start, end)
    }

    /// Its length in nanoseconds.
    public var length: Int64 { end - start }

    /// The union of `intervals`, as disjoint intervals in time order; empty intervals vanish and
    /// intervals that touch are merged.
    /// - Complexity: O(n log n) for n intervals.
    public static func union(_ intervals: [TimelineInterval]) -> [TimelineInterval] {
        let sorted = intervals.filter { $0.length > 0 }.sorted { $0.start < $1.start }
        var merged: [TimelineInterval] = []
        for interval in sorted {
            if let last = merged.last, interval.start <= last.end {
                merged[merged.count - 1].end = max(last.end, interval.end)
            } else {
                merged.append(interval)
            }
        }
        return merged
    }

    /// The gaps between consecutive disjoint, time-ordered intervals (as ``union(_:)`` returns them).
    /// - Complexity: O(n).
    public static func gaps(between disjoint: [TimelineInterval]) -> [TimelineInterval] {
        zip(disjoint, disjoint.dropFirst()).map { TimelineInterval(start: $0.end, end: $1.start) }
    }
}

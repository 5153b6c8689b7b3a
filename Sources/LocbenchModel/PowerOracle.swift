/// A stretch of time during which one request needed the source at a given level (0 = the least
/// demanding mode … `levels - 1` = the most demanding).
public struct Demand: Sendable, Hashable {
    /// When the need began and ended.
    public var interval: TimelineInterval
    /// The power level it needed.
    public var level: Int

    /// A need at `level` over `interval`.
    public init(_ interval: TimelineInterval, level: Int) {
        self.interval = interval
        self.level = level
    }
}

extension Demand {
    /// The most demanding level in each of `columns` equal slices of `[0, end)`, `nil` where nothing is
    /// on: a chart's pixel columns, so that a million short stretches draw as at most `columns` rectangles.
    /// A stretch marks every column it touches.
    /// - Complexity: O(n + c) for n stretches that touch c columns in all.
    public static func rasterise(_ demands: [Demand], end: Int64, columns: Int) -> [Int?] {
        var result = [Int?](repeating: nil, count: max(0, columns))
        guard end > 0, columns > 0 else { return result }
        let scale = Double(columns) / Double(end)
        for demand in demands where demand.interval.length > 0 && demand.interval.start < end {
            let first = max(0, Int(Double(demand.interval.start) * scale))
            let last = min(columns - 1, max(first, Int((Double(demand.interval.end) * scale).rounded(.up)) - 1))
            for column in first...last { result[column] = max(result[column] ?? -1, demand.level) }
        }
        return result
    }
}

/// The least any design could have powered the source for the demand one run saw: on exactly while
/// some request waited for a fix, and at each instant in the mode of the most demanding of them.
///
/// It knows the future (when each request would end), so no real design reaches it; a design that
/// lingers a little after the last request stays within one linger per idle gap of it.
public struct PowerOracle: Sendable {
    /// The stretches during which some request waited: the oracle's on-time, disjoint and in order.
    public let onIntervals: [TimelineInterval]
    /// Disjoint, time-ordered stretches each spent at one level (the most demanding need then).
    public let segments: [Demand]
    /// Nanoseconds spent at each level.
    public let nanosecondsPerLevel: [Int64]

    /// The oracle for `demands`, with levels `0..<levels` (levels outside are clamped).
    /// - Complexity: O(n log n) for n demands.
    public init(demands: [Demand], levels: Int) {
        precondition(levels > 0, "PowerOracle needs at least one level (got \(levels))")
        onIntervals = TimelineInterval.union(demands.map(\.interval))
        // A sweep over starts (+1) and ends (-1), ends first at equal instants (intervals are half-open).
        var events: [(at: Int64, level: Int, delta: Int)] = []
        events.reserveCapacity(demands.count * 2)
        for demand in demands where demand.interval.length > 0 {
            let level = min(max(demand.level, 0), levels - 1)
            events.append((demand.interval.start, level, 1))
            events.append((demand.interval.end, level, -1))
        }
        events.sort { $0.at != $1.at ? $0.at < $1.at : $0.delta < $1.delta }
        var active = [Int](repeating: 0, count: levels)
        var perLevel = [Int64](repeating: 0, count: levels)
        var segments: [Demand] = []
        var index = 0
        while index < events.count {
            let now = events[index].at
            while index < events.count, events[index].at == now {
                active[events[index].level] += events[index].delta
                index += 1
            }
            guard index < events.count, let top = active.lastIndex(where: { $0 > 0 }) else { continue }
            let next = events[index].at
            perLevel[top] += next - now
            if let last = segments.last, last.level == top, last.interval.end == now {
                segments[segments.count - 1].interval.end = next
            } else {
                segments.append(Demand(TimelineInterval(start: now, end: next), level: top))
            }
        }
        self.segments = segments
        self.nanosecondsPerLevel = perLevel
    }

    /// The oracle's on-time in nanoseconds.
    public var onNanoseconds: Int64 { nanosecondsPerLevel.reduce(0, +) }

    /// Idle gaps between the oracle's on-intervals: where a design that lingers pays one linger each.
    public var idleGaps: Int { max(0, onIntervals.count - 1) }

    /// The oracle's energy in joules, given the milliwatts each level draws.
    public func joules(milliwatts: (Int) -> Double) -> Double {
        nanosecondsPerLevel.indices.reduce(0) { $0 + milliwatts($1) / 1000 * Double(nanosecondsPerLevel[$1]) / 1e9 }
    }

    /// The most on-time a lingering design may use and still count as near the oracle: `factor` times
    /// the oracle's on-time plus one `linger` per on-interval (each ends with one).
    public func onTimeBound(factor: Double, lingerNanoseconds: Int64) -> Int64 {
        Int64(Double(onNanoseconds) * factor) + Int64(onIntervals.count) * lingerNanoseconds
    }
}

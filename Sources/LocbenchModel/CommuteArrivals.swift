import Foundation

/// Arrival instants of a day of commuting, repeated day after day: short windows of activity at fixed times of
/// day (each jittered by up to ±10 minutes), Poisson arrivals at `rate` per second inside them, and gaps of
/// hours between them — long enough that a receiver's ephemerides go stale (about 2 h), so its restarts are
/// warm. Time zero is midnight. Deterministic: the same generator state gives the same instants.
public struct CommuteArrivals: Sendable {
    /// The windows of a day: when each begins (seconds after midnight) and how long it lasts (seconds).
    public static let day: [(start: Double, length: Double)] = [
        (7.5 * 3600, 40 * 60),  // the drive to work
        (8 * 3600 + 40 * 60, 5 * 60),  // a check from the office, 30 minutes later: a hot restart
        (12.25 * 3600, 10 * 60),  // lunch
        (17.5 * 3600, 45 * 60),  // the drive home
        (21 * 3600, 5 * 60),  // an evening check
    ]

    /// Arrivals per second inside a window.
    public var rate: Double

    private var time: Double = 0
    private var windowIndex = -1
    private var windowEnd: Double = 0

    /// A process with `rate` (positive) arrivals per second inside its windows.
    public init(rate: Double) {
        precondition(rate > 0, "CommuteArrivals needs a positive rate")
        self.rate = rate
    }

    /// How long `arrivals` arrivals take on average, in seconds: the day's windows hold `rate` arrivals a
    /// second for 105 minutes of each day.
    public func expectedSpan(of arrivals: Int) -> Double {
        let open = Self.day.reduce(0) { $0 + $1.length }
        return Double(arrivals) / (rate * open) * 86_400
    }

    /// The next arrival, in nanoseconds since midnight of the first day; never before the previous one.
    /// - Complexity: O(1) amortised.
    public mutating func next(using generator: inout some RandomNumberGenerator) -> Int64 {
        while true {
            if windowIndex >= 0 {
                let candidate = time + OnOffArrivals.exponential(mean: 1 / rate, using: &generator)
                if candidate < windowEnd {
                    time = candidate
                    return Int64(time * 1e9)
                }
            }
            // The next window, jittered, never before the end of the last one.
            windowIndex += 1
            let day = Double(windowIndex / Self.day.count) * 86_400
            let window = Self.day[windowIndex % Self.day.count]
            let jitter = (Double(generator.next() >> 11) * 0x1p-53 - 0.5) * 1200
            time = max(windowEnd, day + window.start + jitter)
            windowEnd = time + window.length
        }
    }
}

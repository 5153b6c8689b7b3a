import Foundation

/// Arrival instants of a Poisson process switched on and off by a schedule: bursts of activity
/// (on periods) separated by idle gaps (off periods), as users come and go.
///
/// Model: on and off periods last exponentially distributed times with means `meanOn` and `meanOff`;
/// during an on period operations arrive as a Poisson process of `rate` per second (exponential gaps
/// of mean `1 / rate`); nothing arrives during an off period. The run starts in an on period.
/// Deterministic: the same generator state gives the same instants.
public struct OnOffArrivals: Sendable {
    /// Arrivals per second during an on period.
    public var rate: Double
    /// Mean length of an on period, in seconds.
    public var meanOn: Double
    /// Mean length of an off period, in seconds.
    public var meanOff: Double

    private var time: Double = 0
    private var onEnd: Double?

    /// A process with these parameters (all positive), starting at time zero in an on period.
    public init(rate: Double, meanOn: Double, meanOff: Double) {
        precondition(rate > 0 && meanOn > 0 && meanOff > 0, "OnOffArrivals needs positive parameters")
        self.rate = rate
        self.meanOn = meanOn
        self.meanOff = meanOff
    }

    /// The next arrival, in nanoseconds since the start; never before the previous one.
    /// - Complexity: O(1) amortised (O(k) when k consecutive on periods are empty).
    public mutating func next(using generator: inout some RandomNumberGenerator) -> Int64 {
        if onEnd == nil { onEnd = Self.exponential(mean: meanOn, using: &generator) }
        while true {
            let candidate = time + Self.exponential(mean: 1 / rate, using: &generator)
            if candidate < onEnd! {
                time = candidate
                return Int64(time * 1e9)
            }
            // The on period ended first: idle for an off period, then a new on period (memoryless,
            // so the next arrival is drawn afresh from its start).
            time = onEnd! + Self.exponential(mean: meanOff, using: &generator)
            onEnd = time + Self.exponential(mean: meanOn, using: &generator)
        }
    }

    /// How long `arrivals` arrivals take on average, in seconds: each needs `1 / rate` of on time, and the
    /// on time is `meanOn / (meanOn + meanOff)` of the whole.
    public func expectedSpan(of arrivals: Int) -> Double {
        Double(arrivals) / rate * (meanOn + meanOff) / meanOn
    }

    /// How many on periods `arrivals` arrivals need on average: an on period holds `rate · meanOn` of them.
    public func expectedOnPeriods(of arrivals: Int) -> Double {
        Double(arrivals) / (rate * meanOn) + 1
    }

    /// The longest expected span of a plan, in seconds: about three years. Arrivals are nanoseconds in an
    /// `Int64` (292 years), so a draw a hundred times longer than expected still fits; a tiny rate that would
    /// need more (`--arrival-rate 1e-9`) is refused rather than trapped on or looped over: locbench's limits
    /// (`RunBudget`) keep every plan well within it.
    public static let longestSpan = 1e8

    /// An exponentially distributed draw with the given mean.
    static func exponential(mean: Double, using generator: inout some RandomNumberGenerator) -> Double {
        // 53 random bits in [0, 1); 1 - u is in (0, 1], so the logarithm is finite.
        let u = Double(generator.next() >> 11) * 0x1p-53
        return -log(1 - u) * mean
    }
}

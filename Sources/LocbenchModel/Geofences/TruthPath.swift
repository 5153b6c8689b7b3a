import LocationEngine
import SyntheticGPS

/// Where a synthetic trajectory really went: its ground truth on the receiver's one-second grid.
///
/// The synthetic receiver integrates its trajectory in steps of one second from one epoch to the next, so
/// the truth at these instants is exactly the truth behind every fix the engine's receiver makes, whenever it
/// is on. Between two instants the true path is taken as the straight line joining them (at most a second
/// of travel, 25 m at the fastest), and crossings are exact on that line.
public struct TruthPath: Sendable {
    /// One instant of the truth.
    public struct Sample: Sendable, Hashable {
        /// Seconds since the trajectory started.
        public var seconds: Double
        /// The true position.
        public var point: GeoPoint
        /// The true ground speed, m/s.
        public var speed: Double

        /// A sample at `seconds`.
        public init(seconds: Double, point: GeoPoint, speed: Double) {
            self.seconds = seconds
            self.point = point
            self.speed = speed
        }
    }

    /// The truth at 0, 1, 2, … seconds, through the end.
    public let samples: [Sample]
    /// Path length from the start to each sample, metres (great-circle between samples).
    public let distanceAlong: [Double]

    /// The truth of `scenario` (whose fix interval must be one second) over `duration` seconds.
    /// - Complexity: O(duration).
    public init(scenario: Scenario, duration: Double) {
        precondition(scenario.fixInterval == 1, "TruthPath samples the one-second epoch grid (got a fix interval of \(scenario.fixInterval) s)")
        var receiver = SyntheticReceiver(scenario: scenario, mode: .best)
        var samples: [Sample] = []
        samples.reserveCapacity(Int(duration) + 1)
        receiver.epochs(through: duration) { epoch in
            let truth = epoch.truth
            samples.append(Sample(seconds: epoch.elapsed, point: GeoPoint(latitude: truth.latitude, longitude: truth.longitude), speed: truth.speed))
        }
        self.init(samples: samples)
    }

    /// A path through `samples` (in time order, at least one).
    public init(samples: [Sample]) {
        precondition(!samples.isEmpty, "a TruthPath needs at least one sample")
        self.samples = samples
        var along = [0.0]
        along.reserveCapacity(samples.count)
        for (a, b) in zip(samples, samples.dropFirst()) { along.append(along[along.count - 1] + a.point.distance(to: b.point)) }
        distanceAlong = along
    }

    /// The last sample's time, seconds.
    public var duration: Double { samples[samples.count - 1].seconds }

    /// The true position at `seconds` (linear between samples, clamped to the path's ends).
    /// - Complexity: O(log n) for n samples.
    public func position(at seconds: Double) -> GeoPoint {
        guard seconds > samples[0].seconds else { return samples[0].point }
        guard seconds < duration else { return samples[samples.count - 1].point }
        let low = sample(before: seconds)
        let a = samples[low], b = samples[low + 1]
        return Self.interpolate(a.point, b.point, (seconds - a.seconds) / (b.seconds - a.seconds))
    }

    /// The index of the last sample at or before `seconds` (the first one if none is).
    /// - Complexity: O(log n) for n samples.
    public func sample(before seconds: Double) -> Int {
        var low = 0, high = samples.count - 1
        while low < high {
            let middle = (low + high + 1) / 2
            if samples[middle].seconds <= seconds { low = middle } else { high = middle - 1 }
        }
        return low
    }

    /// The index of the first sample at least `metres` along the path (the last one if none is).
    /// - Complexity: O(log n) for n samples.
    public func sample(atDistance metres: Double) -> Int {
        var low = 0, high = distanceAlong.count - 1
        while low < high {
            let middle = (low + high) / 2
            if distanceAlong[middle] < metres { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// The point a fraction `t` of the way from `a` to `b` (linear in degrees: exact enough over a second of travel).
    @inline(__always)
    static func interpolate(_ a: GeoPoint, _ b: GeoPoint, _ t: Double) -> GeoPoint {
        GeoPoint(latitude: a.latitude + (b.latitude - a.latitude) * t, longitude: a.longitude + (b.longitude - a.longitude) * t)
    }
}

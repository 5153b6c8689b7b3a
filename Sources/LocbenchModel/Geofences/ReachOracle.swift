import LocationEngine

/// The receiver an oracle would run for geofences: tracking only while some fence's boundary is within reach —
/// the true position within `reach` metres of a boundary (the hysteresis margin a decision needs, plus what the
/// mover covers at its top speed before the next fix) — and otherwise waiting in the cheapest way the
/// ``RestartAwareOracle`` finds, paying each restart's acquisition ahead of time so that no fix it needs is late.
///
/// It knows the true position at every instant, which no design does: a bound, not a design.
public struct ReachOracle: Sendable {
    /// The stretches the receiver tracks, nanoseconds (one second of tracking before each fix it needs).
    public let demand: [Demand]
    /// The fixes it needs: samples within reach of some boundary.
    public let samplesWithinReach: Int

    /// The oracle for `regions` along `path` with `reach` metres.
    /// - Complexity: O(n · s) for n regions and s samples in the worst case; a region is passed over in strides as
    ///   long as its distance to the path beyond the reach.
    public init(regions: [GeofenceRegion], along path: TruthPath, reach: Double) {
        let samples = path.samples
        var needed = [Bool](repeating: false, count: samples.count)
        for region in regions {
            path.visitSamples(within: reach, of: region) { index in
                needed[index] = true
                return true
            }
        }
        let best = PowerMode.best.rawValue
        var intervals: [TimelineInterval] = []
        for index in samples.indices where needed[index] {
            let at = Int64((samples[index].seconds * 1e9).rounded())
            intervals.append(TimelineInterval(start: max(0, at - 1_000_000_000), end: at + 1))
        }
        demand = TimelineInterval.union(intervals).map { Demand($0, level: best) }
        samplesWithinReach = needed.count { $0 }
    }

    /// The oracle's energy over `[0, end)` nanoseconds, joules, for a receiver described by `profile` that first
    /// starts `firstStart`.
    public func joules(end: Int64, profile: ReceiverPowerProfile, firstStart: ReceiverPowerProfile.StartCondition) -> Double {
        RestartAwareOracle.joules(segments: demand, end: end, profile: profile, firstStart: firstStart)
    }
}

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

    /// Where a design's tracking differs from the oracle's, second by second.
    public struct Excess: Sendable, Hashable, Codable {
        /// Seconds the design tracked and the oracle did not, with the mover standing still (slower than
        /// ``stoppedSpeed``): a design that cannot see the future must look again before a boundary could be
        /// reached, however long the stop turns out to be.
        public var stoppedSeconds: Double
        /// Seconds the design tracked and the oracle did not, with the mover moving (a design plans by its maximum
        /// speed, the oracle by the true path).
        public var movingSeconds: Double
        /// Seconds the oracle tracked and the design did not.
        public var missingSeconds: Double

        public init(stoppedSeconds: Double, movingSeconds: Double, missingSeconds: Double) {
            self.stoppedSeconds = stoppedSeconds
            self.movingSeconds = movingSeconds
            self.missingSeconds = missingSeconds
        }
    }

    /// Below this speed, m/s, the mover counts as stopped.
    public static let stoppedSpeed = 0.1

    /// How the tracking of a design differs from the oracle's, second by second. `onAfter[s]` tells whether the
    /// design's receiver was on after the fix at `s` seconds was taken, which holds through the second that
    /// follows (a start between two fixes counts from the next whole second); the oracle is on through a second
    /// when its demand covers the second's middle. The mover's speed is the path's last sample at or before the
    /// second's end.
    /// - Complexity: O(s + d) for s seconds and d stretches of demand.
    public func excess(onAfter: [Bool], along path: TruthPath) -> Excess {
        var result = Excess(stoppedSeconds: 0, movingSeconds: 0, missingSeconds: 0)
        let samples = path.samples
        var stretch = 0
        var sample = 0
        for second in onAfter.indices.dropFirst() {
            let middle = Int64(second) * 1_000_000_000 - 500_000_000
            while stretch < demand.count, demand[stretch].interval.end <= middle { stretch += 1 }
            let oracleOn = stretch < demand.count && demand[stretch].interval.start <= middle
            while sample + 1 < samples.count, samples[sample + 1].seconds <= Double(second) { sample += 1 }
            switch (onAfter[second - 1], oracleOn) {
            case (true, false):
                if samples.isEmpty || samples[sample].speed < Self.stoppedSpeed { result.stoppedSeconds += 1 } else { result.movingSeconds += 1 }
            case (false, true): result.missingSeconds += 1
            default: break
            }
        }
        return result
    }

    /// The oracle's energy over `[0, end)` nanoseconds, joules, for a receiver described by `profile` that first
    /// starts `firstStart`.
    public func joules(end: Int64, profile: ReceiverPowerProfile, firstStart: ReceiverPowerProfile.StartCondition) -> Double {
        RestartAwareOracle.joules(segments: demand, end: end, profile: profile, firstStart: firstStart)
    }
}

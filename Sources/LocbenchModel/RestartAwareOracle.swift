@_spi(Internals) import LocationEngine

/// The least energy any power policy could spend on a run's demand when restarts cost something: it knows
/// every arrival in advance, keeps the receiver tracking exactly while some request waits, and in each gap
/// chooses to stay on, stand by or go off — paying each restart's acquisition energy and starting the receiver
/// one time to first fix *before* the demand returns, so that it adds no delay. (``PowerOracle`` ignores
/// restarts: a bound no receiver reaches.)
///
/// Per gap of length `g` and idle state `s` with restart delay `d_s(g)`: staying on costs `P_track·g`; waiting in
/// `s` costs `P_s·(g − d_s(g)) + P_acq·d_s(g)`, possible when `d_s(g) ≤ g`. The first start (from off, cold
/// unless told otherwise) is paid before the first demand.
public struct RestartAwareOracle: Sendable {
    /// What the oracle did in one gap.
    public struct GapChoice: Sendable, Hashable {
        /// The gap, nanoseconds.
        public var length: Int64
        /// Where it waited.
        public var state: ReceiverPowerProfile.IdleState
        /// The energy of the gap, mJ (waiting plus the restart).
        public var energy: Double
    }

    /// The total energy, mJ.
    public let energy: Double
    /// The energy while tracking for demand, mJ.
    public let trackingEnergy: Double
    /// The energy of the first start, mJ.
    public let firstStartEnergy: Double
    /// The choice made in each gap, in order.
    public let gaps: [GapChoice]

    /// The oracle for the stretches `onIntervals` (disjoint, in order, nanoseconds; see ``PowerOracle/onIntervals``)
    /// of a receiver described by `profile`, tracking in `mode`.
    /// - Complexity: O(n) for n stretches.
    public init(onIntervals: [TimelineInterval], profile: ReceiverPowerProfile, mode: PowerMode) {
        self.init(segments: onIntervals.map { Demand($0, level: mode.rawValue) }, profile: profile)
    }

    /// The oracle for the demand `segments` (disjoint, in order, each at one level, a ``PowerMode``'s raw value;
    /// see ``PowerOracle/segments``): tracking in each segment's mode, staying on through a gap in the mode of the
    /// segment before it.
    /// - Complexity: O(n) for n segments.
    /// The first start is `firstStart` (cold unless the receiver is known to start otherwise).
    public init(segments: [Demand], profile: ReceiverPowerProfile, firstStart: ReceiverPowerProfile.StartCondition = .cold) {
        let seconds = { (nanoseconds: Int64) in Double(nanoseconds) / 1e9 }
        let mode = { (level: Int) in PowerMode(rawValue: min(max(level, 0), PowerMode.best.rawValue))! }
        trackingEnergy = segments.reduce(0) { $0 + profile.trackingPower(mode($1.level)) * seconds($1.interval.length) }
        firstStartEnergy = segments.isEmpty ? 0 : profile.acquisition * seconds((profile.timeToFirstFix[firstStart] ?? .zero).saturatingNanoseconds)
        var choices: [GapChoice] = []
        for (before, after) in zip(segments, segments.dropFirst()) where after.interval.start > before.interval.end {
            let length = after.interval.start - before.interval.end
            let gap = Duration.nanoseconds(length)
            let tracking = mode(before.level)
            var best = GapChoice(length: length, state: .on, energy: profile.trackingPower(tracking) * seconds(length))
            for state in ReceiverPowerProfile.IdleState.allCases where state != .on {
                let delay = profile.restartDelay(after: gap, in: state)
                guard delay <= gap else { continue }
                let waiting = profile.idlePower(state, mode: tracking) * seconds((gap - delay).saturatingNanoseconds)
                let energy = waiting + profile.restartEnergy(after: gap, in: state)
                if energy < best.energy { best = GapChoice(length: length, state: state, energy: energy) }
            }
            choices.append(best)
        }
        gaps = choices
        energy = trackingEnergy + firstStartEnergy + choices.reduce(0) { $0 + $1.energy }
    }
}

extension RestartAwareOracle {
    /// The oracle's energy over a whole run `[0, end)` nanoseconds, joules: ``energy`` for the demand `segments`,
    /// plus the receiver's deepest idle state before the first demand and after the last, as the designs wait.
    public static func joules(
        segments: [Demand], end: Int64, profile: ReceiverPowerProfile, firstStart: ReceiverPowerProfile.StartCondition
    ) -> Double {
        let deepest = min(profile.standby, profile.off)
        let oracle = RestartAwareOracle(segments: segments, profile: profile, firstStart: firstStart)
        let lead = segments.first.map { Double($0.interval.start) / 1e9 } ?? Double(end) / 1e9
        let tail = segments.last.map { Double(end - $0.interval.end) / 1e9 } ?? 0
        return (oracle.energy + deepest * (lead + tail)) / 1000
    }
}

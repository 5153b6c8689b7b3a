/// When demand ends, where the receiver should wait and for how long: stay on, go to standby, or go off, by the
/// energy break-even of each restart (ski rental), improved by the gaps seen so far. Pure: no clock, no I/O.
///
/// The plan is the *lower envelope* rule (Irani, Shukla & Gupta, "Online strategies for dynamic power
/// management", 2003): each idle state `s` costs `E_s + P_s·t` for a gap of length `t` (its restart energy
/// plus its waiting power); the receiver moves to `s` when that line becomes the cheapest. With two states this
/// is the classic deterministic ski rental (stay on until the idle energy equals the restart energy). For every
/// gap, hence for every sequence of gaps, its energy is **at most 2× the offline optimum** that knows each gap in
/// advance (restart energies and waiting powers as in the ``ReceiverPowerProfile``; the time to first fix counted
/// at acquisition power).
///
/// With `trust` below 1, the switch times follow the gaps observed recently (their median as a prediction,
/// after Purohit, Svitkina & Kumar, "Improving online algorithms via ML predictions", 2018): a switch is brought
/// forward to `trust ×` its break-even when the predicted gap is longer, and put back to `break-even / trust`
/// when it is shorter. That bound becomes `1 + 1/trust` in the worst case (so 2 at `trust` 1, the default),
/// and approaches `1 + trust` when the gaps repeat.
public struct PowerDownDecider: Sendable {
    /// One step of the plan: move to `state` once the gap has lasted `after`.
    public struct Step: Sendable, Hashable, CustomStringConvertible {
        /// Where to wait.
        public var state: ReceiverPowerProfile.IdleState
        /// When, counted from the end of demand.
        public var after: Duration
        /// Why, for statistics and logs.
        public var reason: String
        /// Which rule set the time, for metrics.
        public var rule: Rule = .breakEven

        /// Which rule set a step's time.
        public enum Rule: String, Sendable, Hashable, CaseIterable {
            /// The break-even of a restart (ski rental).
            case breakEven = "break_even"
            /// The break-even, brought forward because recent gaps were longer.
            case broughtForward = "brought_forward"
            /// The break-even, put back because recent gaps were shorter.
            case putBack = "put_back"
            /// The ephemerides went stale: standby no longer keeps a hot start.
            case ephemerisStale = "ephemeris_stale"
            /// The demand just ended (the plan's first step, "on").
            case demandEnded = "demand_ended"
        }

        public var description: String { "\(state.rawValue) after \(after): \(reason)" }
    }

    /// The receiver.
    public let profile: ReceiverPowerProfile
    /// How much the observed gaps are trusted, in `[0.5, 1]` (1: the plain break-even rule).
    public let trust: Double
    /// How many recent gaps are remembered.
    public let memory: Int
    private var gaps: [Duration] = []

    /// A decider for `profile`; `trust` is clamped to `[0.5, 1]`, `memory` to at least 1.
    public init(profile: ReceiverPowerProfile, trust: Double = 1, memory: Int = 16) {
        self.profile = profile
        self.trust = trust.isFinite ? min(1, max(0.5, trust)) : 1
        self.memory = max(1, memory)
    }

    /// Records the length of a gap that just ended (demand came back).
    /// - Complexity: O(memory).
    public mutating func observe(gap: Duration) {
        guard gap >= .zero else { return }
        gaps.append(gap)
        if gaps.count > memory { gaps.removeFirst(gaps.count - memory) }
    }

    /// The median of the remembered gaps, if any.
    public var predictedGap: Duration? {
        guard !gaps.isEmpty else { return nil }
        return gaps.sorted()[gaps.count / 2]
    }

    /// The gap length at which waiting in `state` becomes cheaper than staying in `from` (ski rental's
    /// break-even), for a receiver tracking in `mode`; `nil` when it never does.
    public func breakEven(from: ReceiverPowerProfile.IdleState, to state: ReceiverPowerProfile.IdleState, mode: PowerMode) -> Duration? {
        let powerFrom = profile.idlePower(from, mode: mode)
        let powerTo = profile.idlePower(state, mode: mode)
        guard powerTo < powerFrom else { return nil }
        // Restart energies for a short gap (a hot start where the state keeps the ephemerides).
        let extra = profile.restartEnergy(after: .zero, in: state) - profile.restartEnergy(after: .zero, in: from)
        guard extra > 0 else { return .zero }
        return .nanoseconds(Int64((extra / (powerFrom - powerTo) * 1e9).rounded()))
    }

    /// The plan after demand ends for a receiver tracking in `mode`: the lower envelope of the idle states, with
    /// the switch times adjusted by the observed gaps when `trust` is below 1. The first step is always `on` at zero.
    /// - Complexity: O(states + memory log memory).
    public func plan(mode: PowerMode) -> [Step] {
        var steps = [Step(state: .on, after: .zero, reason: "demand just ended", rule: .demandEnded)]
        var current = ReceiverPowerProfile.IdleState.on
        var lastSwitch = Duration.zero
        while true {
            // The next state on the envelope: the one whose line crosses the current one first.
            var next: (state: ReceiverPowerProfile.IdleState, at: Duration)?
            for state in ReceiverPowerProfile.IdleState.allCases where state > current {
                guard let crossing = breakEven(from: current, to: state, mode: mode) else { continue }
                let at = max(lastSwitch, crossing)
                if next == nil || at < next!.at { next = (state, at) }
            }
            guard let (state, at) = next else { return steps }
            var switchAt = at
            var reason = "break-even of \(current.rawValue) → \(state.rawValue)"
            var rule = Step.Rule.breakEven
            if trust < 1, let predicted = predictedGap {
                if predicted >= at {
                    switchAt = lastSwitch + (at - lastSwitch) * trust
                    reason += ", brought forward: recent gaps are longer (median \(predicted))"
                    rule = .broughtForward
                } else {
                    switchAt = lastSwitch + (at - lastSwitch) / trust
                    reason += ", put back: recent gaps are shorter (median \(predicted))"
                    rule = .putBack
                }
            }
            steps.append(Step(state: state, after: switchAt, reason: reason, rule: rule))
            current = state
            lastSwitch = switchAt
        }
    }
}

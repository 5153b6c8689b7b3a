/// When demand ends, where the receiver should wait and for how long: stay on, go to standby, or go off, by the
/// energy break-even of each restart (ski rental), improved by the gaps seen so far. Pure: no clock, no I/O.
///
/// The plan is the *lower envelope* rule (Irani, Shukla & Gupta, "Online strategies for dynamic power
/// management", 2003): each idle state `s` costs `E_s + P_s·t` for a gap of length `t` (its restart energy
/// plus its waiting power); the receiver moves to `s` when that line becomes the cheapest. `E_s` is what the
/// restart costs beyond tracking (``ReceiverPowerProfile/restartExtraEnergy(after:in:mode:)``): when demand
/// returns the receiver acquires in place of tracking, so only the acquisition power *above* tracking is spent
/// on the restart. With two states this
/// is the classic deterministic ski rental (stay on until the idle energy equals the restart energy). For every
/// gap, hence for every sequence of gaps, its energy is **at most 2× the offline optimum** that knows each gap in
/// advance (restart energies and waiting powers as in the ``ReceiverPowerProfile``; the time to first fix counted
/// at acquisition power in place of tracking).
///
/// With `trust` below 1, the switch times follow the gaps observed recently (the last `memory`): each switch is
/// the one that would have cost least over them (the empirical optimum among the thresholds from the previous
/// step to `break-even / trust`, after Khanafer, Kodialam & Nagaraj's ski rental with a learned gap distribution,
/// 2013), taken when it would have spent at most `trust ×` what the break-even would. When the gaps are long it
/// goes down at once, as stop-immediately does; when they are short it bridges them. The 2× bound then holds
/// while the gaps look like the remembered ones; when they change, a few gaps (about a third of `memory`) may
/// each cost a restart or a stay-on before the rule follows.
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
            /// Earlier than the break-even: that would have cost least over the recent gaps.
            case broughtForward = "brought_forward"
            /// Later than the break-even: that would have cost least over the recent gaps.
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
    /// How much the observed gaps are trusted, in `[0.5, 1]` (1: the plain break-even rule): a learned switch is
    /// taken when it would have cost at most `trust ×` the break-even's energy, and none is later than
    /// `break-even / trust`.
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

    /// The median of the remembered gaps, if any: a summary for statistics; the plan (`learnedSwitch`)
    /// weighs every remembered gap.
    public var predictedGap: Duration? {
        guard !gaps.isEmpty else { return nil }
        return gaps.sorted()[gaps.count / 2]
    }

    /// The switch time that would have cost least over the remembered gaps, when it beats the break-even `at` by
    /// enough to be trusted: the empirical risk minimiser over the threshold rules "switch once the gap has lasted
    /// τ", for τ from `lastSwitch` (the previous step) to `at / trust`. Only gaps longer than `lastSwitch` count;
    /// one of them costs `savedPower` per second from `lastSwitch` until it ends or the switch comes, plus the
    /// restart's `extraRestartEnergy` if the switch came first. The candidates are `lastSwitch` (switch at once),
    /// the break-even and each remembered gap (switching just after it bridges it and every shorter one). It is
    /// taken when its cost is at most `trust ×` the break-even's over the same gaps; `nil` with `trust` 1, no gap
    /// remembered past `lastSwitch`, or no candidate that good.
    /// - Complexity: O(memory²).
    func learnedSwitch(after lastSwitch: Duration, breakEven at: Duration, savedPower: Double, extraRestartEnergy: Double)
        -> (at: Duration, gaps: Int)?
    {
        guard trust < 1, savedPower > 0 else { return nil }
        let relevant = gaps.filter { $0 > lastSwitch }
        guard !relevant.isEmpty else { return nil }
        let latest = lastSwitch + (at - lastSwitch) / trust
        func cost(_ threshold: Duration) -> Double {
            relevant.reduce(0) { sum, gap in
                let on = Double((min(gap, threshold) - lastSwitch).saturatingNanoseconds) / 1e9
                return sum + savedPower * on + (gap > threshold ? extraRestartEnergy : 0)
            }
        }
        let breakEvenCost = cost(at)
        var best = (at: at, cost: breakEvenCost)
        // Switching a nanosecond after a gap ended bridges it.
        for candidate in [lastSwitch] + relevant.map({ $0 + .nanoseconds(1) }) where candidate <= latest {
            let candidateCost = cost(candidate)
            if candidateCost < best.cost { best = (candidate, candidateCost) }
        }
        // (A relative tolerance, so that a switch at exactly `trust ×` the break-even's cost is taken.)
        guard best.at != at, best.cost <= trust * breakEvenCost * (1 + 1e-9) else { return nil }
        return (best.at, relevant.count)
    }

    /// The gap length at which waiting in `state` becomes cheaper than staying in `from` (ski rental's
    /// break-even), for a receiver tracking in `mode`; `nil` when it never does.
    public func breakEven(from: ReceiverPowerProfile.IdleState, to state: ReceiverPowerProfile.IdleState, mode: PowerMode) -> Duration? {
        let powerFrom = profile.idlePower(from, mode: mode)
        let powerTo = profile.idlePower(state, mode: mode)
        guard powerTo < powerFrom else { return nil }
        // Restart energies for a short gap (a hot start where the state keeps the ephemerides), beyond the tracking
        // the acquisition replaces when demand returns (in the mode tracked before: the best guess of the next).
        let extra =
            profile.restartExtraEnergy(after: .zero, in: state, mode: mode) - profile.restartExtraEnergy(after: .zero, in: from, mode: mode)
        // A profile's figures are the source's to give: a restart of no finite cost (an infinite acquisition power),
        // or a break-even past a billion seconds, is never worth it.
        guard extra.isFinite else { return nil }
        guard extra > 0 else { return .zero }
        let seconds = extra / (powerFrom - powerTo)
        guard seconds.isFinite, seconds < 1e9 else { return nil }
        return .nanoseconds(Int64((seconds * 1e9).rounded()))
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
            let savedPower = profile.idlePower(current, mode: mode) - profile.idlePower(state, mode: mode)
            let extraRestart =
                profile.restartExtraEnergy(after: .zero, in: state, mode: mode) - profile.restartExtraEnergy(after: .zero, in: current, mode: mode)
            if let learned = learnedSwitch(after: lastSwitch, breakEven: at, savedPower: savedPower, extraRestartEnergy: extraRestart) {
                switchAt = learned.at
                if learned.at < at {
                    reason += ", brought forward to \(learned.at): the switch that would have cost least over the last \(learned.gaps) gaps"
                    rule = .broughtForward
                } else if learned.at > at {
                    reason += ", put back to \(learned.at): the switch that would have cost least over the last \(learned.gaps) gaps"
                    rule = .putBack
                }
            }
            steps.append(Step(state: state, after: switchAt, reason: reason, rule: rule))
            current = state
            lastSwitch = switchAt
        }
    }
}

/// The restart-aware half of the power policy: where the receiver waits during a gap in demand, and when it
/// moves deeper (see <doc:PowerPolicy>). Pure: no clock, no I/O. ``PowerPolicy`` keeps the source running
/// until the plan's first step down (as it would through a linger), and its state alone says whether the
/// source runs; this plans the steps, remembers where it sent the receiver down, and remembers the gaps.
struct IdlePlanner: Sendable {
    private(set) var decider: PowerDownDecider
    /// The plan of the gap in progress (its first step is "on"), and the index of the next step to take.
    private var plan: [PowerDownDecider.Step] = []
    private var nextStep = 0
    /// When demand ended, while a gap is in progress.
    private(set) var gapStartedAt: EngineInstant?
    /// Where the plan sent the receiver down in the gap in progress: `nil` outside a gap and until its first
    /// step down (the policy runs the source on meanwhile, or forced it off: no step was taken either way).
    private(set) var sentDownTo: ReceiverPowerProfile.IdleState?
    /// Where the receiver confirmed it waits, when its source reports that and it differs from the plan:
    /// a receiver that stayed on (``ReceiverPowerProfile/IdleState/on``: a refused or unanswered command)
    /// is not stepped deeper, and restarts without a restart's cost.
    private(set) var confirmedState: ReceiverPowerProfile.IdleState?
    /// The last step down taken.
    private(set) var lastStep: PowerDownDecider.Step?
    /// The start condition of the last restart from a step down, as the profile predicts it.
    private(set) var lastRestart: ReceiverPowerProfile.StartCondition?
    private(set) var gapsBridgedOn = 0
    private(set) var stepsToStandby = 0
    private(set) var stepsToOff = 0

    init(profile: ReceiverPowerProfile, trust: Double) {
        decider = PowerDownDecider(profile: profile, trust: trust)
    }

    /// Demand ended at `now` while tracking in `mode`: plans the gap, returning how long to stay on (the first
    /// step down's time), or `nil` when no idle state is cheaper than tracking.
    /// - Complexity: O(memory log memory) (the median of the remembered gaps).
    mutating func demandEnded(mode: PowerMode, now: EngineInstant) -> Duration? {
        plan = Self.withEphemerisStep(decider.plan(mode: mode), profile: decider.profile, mode: mode)
        nextStep = 1
        gapStartedAt = now
        sentDownTo = nil
        confirmedState = nil
        return plan.count > 1 ? plan[1].after : nil
    }

    /// Where the receiver waits by the plan, `nil` outside a gap: `on` until the plan's first step down (the
    /// statistic ``SchedulerStatistics/idleState``).
    var state: ReceiverPowerProfile.IdleState? {
        gapStartedAt == nil ? nil : sentDownTo ?? .on
    }

    /// Whether a gap is in progress in which no step down was taken: a source down in it was forced off.
    var isGapWithoutStep: Bool { gapStartedAt != nil && sentDownTo == nil }

    /// Demand came back at `now`: the gap is over and remembered. Returns whether it was bridged on.
    @discardableResult
    mutating func demandReturned(now: EngineInstant) -> Bool {
        guard let start = gapStartedAt else { return false }
        let gap = now - start
        decider.observe(gap: gap)
        let bridged = sentDownTo == nil
        if bridged {
            gapsBridgedOn += 1
        } else if let waited = confirmedState ?? sentDownTo {
            // A receiver that confirmed it stayed on did not restart.
            lastRestart = waited == .on ? nil : decider.profile.startCondition(after: gap, in: waited)
        }
        plan = []
        gapStartedAt = nil
        sentDownTo = nil
        confirmedState = nil
        return bridged
    }

    /// No step deeper is taken any more (the engine shut down); the receiver's state is kept.
    mutating func endPlan() { plan = [] }

    /// The gap ended without demand (the source was forced off: an error, access lost, shutdown).
    mutating func abandonGap() {
        plan = []
        gapStartedAt = nil
        sentDownTo = nil
        confirmedState = nil
    }

    /// The receiver's source reports where the receiver confirmed it waits, during a gap it was sent down in.
    mutating func receiverConfirmed(_ confirmed: ReceiverPowerProfile.IdleState) {
        guard gapStartedAt != nil, let sentDownTo else { return }
        confirmedState = confirmed == sentDownTo ? nil : confirmed
    }

    /// Takes the next step down of the plan (the source has just been stopped, or is down and the step is due).
    mutating func takeStep() -> PowerDownDecider.Step? {
        guard nextStep < plan.count else { return nil }
        let step = plan[nextStep]
        nextStep += 1
        sentDownTo = step.state
        confirmedState = nil
        lastStep = step
        if step.state == .standby { stepsToStandby += 1 } else if step.state == .off { stepsToOff += 1 }
        return step
    }

    /// When the next step deeper is due, once the receiver is down (the first step down is the linger's end).
    @inline(__always)
    var nextDeeperStep: EngineInstant? {
        guard let start = gapStartedAt, sentDownTo != nil, confirmedState != .on, nextStep < plan.count else { return nil }
        return start + plan[nextStep].after
    }

    /// Standby keeps a hot start only while the ephemerides are valid: past that, a cheaper state that restarts
    /// no worse is where to wait, so the plan goes there when they go stale if it has not gone deeper already.
    static func withEphemerisStep(_ plan: [PowerDownDecider.Step], profile: ReceiverPowerProfile, mode: PowerMode) -> [PowerDownDecider.Step] {
        guard let standby = plan.firstIndex(where: { $0.state == .standby }) else { return plan }
        let stale = profile.ephemerisValidity
        let deeperAt = standby + 1 < plan.count ? plan[standby + 1].after : nil
        guard plan[standby].after < stale, deeperAt.map({ $0 > stale }) ?? true,
            profile.idlePower(.off, mode: mode) < profile.idlePower(.standby, mode: mode),
            profile.restartExtraEnergy(after: stale, in: .off, mode: mode) <= profile.restartExtraEnergy(after: stale, in: .standby, mode: mode)
        else { return plan }
        let step = PowerDownDecider.Step(
            state: .off, after: stale, reason: "ephemerides stale after \(stale): standby keeps no hot start", rule: .ephemerisStale)
        return Array(plan[...standby]) + [step]
    }
}

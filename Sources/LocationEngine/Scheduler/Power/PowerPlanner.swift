/// The one part of the core that decides what the source does: whether it runs, in which mode, and where
/// it waits when nothing needs it (see <doc:PowerPolicy>).
///
/// The other parts only report demand: the requests their ``PowerDemand`` (a count of admitted requests
/// per ``PowerMode``), the region monitors whether any region is monitored. From that demand alone the
/// planner decides, on every reconciliation, one ``Command``:
/// - the mode is the most demanding request's, capped under reduced accuracy;
/// - when demand ends, the source stays on for the fixed linger or, with the restart-aware rule and a
///   receiver profile, until the break-even of a restart (``IdlePlanner``), then steps down and deeper as
///   the plan says;
/// - the monitors' share of the demand is one request in ``Geofences/demandedMode`` that lets the source
///   sleep while no region can be decided, and comes back when one could be (``planMonitorSleep(due:now:)``).
///
/// It is pure: no clock, no I/O; `now` is an argument. Its deadlines (the linger's end, the next step
/// down, the monitors' wake-up) are in ``nextWakeup``.
struct PowerPlanner: Sendable {
    /// What to do to the source. A word and a tag (a step down, rare, is boxed), so that returning one on every
    /// request's way through the core copies a few bytes.
    enum Command: Sendable, Hashable {
        /// Power it up in this mode.
        case start(PowerMode)
        /// Switch the running source to this mode.
        case setMode(PowerMode)
        /// Power it down (the fixed rule, or no idle state is cheaper than tracking).
        case stop
        /// Take this step of the restart-aware plan down.
        indirect case idle(PowerDownDecider.Step)
    }

    // The planner's own facts. Not private only because its extensions live in files of their own; no
    // other part of the core touches them.

    /// The source's state as driven, its starts, stops and on-time.
    var policy = PowerPolicy()
    /// The restart-aware rule's planner of gaps, when it applies (the rule asks for it and the source
    /// describes its receiver): set from the start, for good.
    var idle: IdlePlanner?
    /// The region monitors' share of the demand and their sleeps.
    var monitors = MonitorDemand()
    /// The receiver's energy, as far as the planner knows what it did (with a receiver profile).
    var energy: ReceiverEnergy?
    /// How long the source runs on after demand ends, under the fixed rule.
    let linger: Duration
    /// The source's receiver, if it describes one.
    let profile: ReceiverPowerProfile?
    /// What the source delivered, mode by mode, against what it declared: when it answers.
    var delivery: SourceDelivery
    /// How long the source may take from a cold start to its first fix (its first start counts as one).
    let coldStart: Duration

    init(linger: Duration, powerDown: PowerDownRule, profile: ReceiverPowerProfile?, confirmsReceiverState: Bool = false) {
        self.init(
            linger: linger, powerDown: powerDown,
            capabilities: SourceCapabilities(providesCourse: false, powerProfile: profile, confirmsReceiverState: confirmsReceiverState))
    }

    init(linger: Duration, powerDown: PowerDownRule, capabilities: SourceCapabilities) {
        self.linger = linger
        let profile = capabilities.powerProfile
        self.profile = profile
        if let trust = powerDown.trust, let profile { idle = IdlePlanner(profile: profile, trust: trust) }
        energy = profile.map { ReceiverEnergy(profile: $0, confirms: capabilities.confirmsReceiverState) }
        delivery = SourceDelivery(capabilities: capabilities)
        coldStart = capabilities.firstFixTime
    }

    // MARK: The source

    /// Whether the source is powered.
    var isOn: Bool { policy.isOn }

    /// The source's state as the planner drove it.
    var state: PowerPolicy.SourceState { policy.state }

    /// Whether the source failed for good, chosen no more until demand ends.
    var hasFailed: Bool { policy.state == .failed }

    /// When the source last started, while it runs.
    var runningSince: EngineInstant? { policy.runningSince }

    /// The linger's end, while the source runs on without demand.
    var lingerDeadline: EngineInstant? { policy.lingerDeadline }

    /// The earliest instant the planner must look again: the linger's end, the next step deeper of an
    /// idle receiver, or the monitors' wake-up.
    /// - Complexity: O(1)
    @inline(__always)
    var nextWakeup: EngineInstant? {
        var next = earliest(policy.lingerDeadline, monitors.wakeAt)
        if isJudged { next = earliest(next, delivery.nextWakeup) }
        // Reading `idle` copies the planner out of its optional: only a restart-aware planner pays for it
        // (about 55 instructions a cancel with the fixed rule, measured with callgrind); the test for `nil`
        // copies nothing.
        guard idle != nil else { return next }
        return earliest(next, idle?.nextDeeperStep)
    }

    /// ``nextWakeup``, read in place (see ``SourcePlanner/readNextWakeup()``).
    @inline(__always)
    mutating func readNextWakeup() -> EngineInstant? { nextWakeup }

    /// Brings the source in line with the requests' `demand` and the monitors' at `now`, never running it
    /// harder than `cap`; `monitoring` says whether any region is monitored. Returns what to do to the
    /// source, if anything.
    mutating func reconcile(demand: PowerDemand, now: EngineInstant, cap: PowerMode?, monitoring: Bool, isShutDown: Bool) -> Command? {
        if isSettled(demand: demand, cap: cap, monitoring: monitoring) { return nil }
        reconcileMonitorDemand(now: now, monitoring: monitoring)
        // The monitors' share is one more request in their mode.
        var demanded = monitors.isDemanding ? demand.mode.map { max($0, Geofences.demandedMode) } ?? Geofences.demandedMode : demand.mode
        // A judged source is capped before it is judged, so the policy caps only one that is not.
        var policyCap = cap
        if isJudged {
            // The cap only saves power (every fix is coarsened anyway): a capped mode known silent, or too slow
            // for a one-shot that waits, is passed over like any other.
            if let cap, let mode = demanded { demanded = min(mode, cap) }
            policyCap = nil
            demanded = judgedMode(demanded, quickly: demand.oneShots > 0, now: now)
        }
        let wasOn = policy.isOn
        let command =
            idle == nil
            ? Self.command(policy.reconcile(now: now, demanded: demanded, linger: linger, cap: policyCap))
            : reconcileRestartAware(demanded: demanded, now: now, cap: policyCap, monitoring: monitoring, isShutDown: isShutDown)
        account(command, now: now, wasOn: wasOn)
        return command
    }

    /// Whether a reconciliation would change nothing, known without making one: a busy engine's steady state.
    /// The source runs in the mode demanded, no monitor takes part, and nothing plans by time — the source is
    /// not judged by its deliveries and has no restart-aware plan. Every request that comes or goes while the
    /// demanded mode holds takes this path (about 150 instructions fewer a request, measured with callgrind).
    /// A settled planner waits for nothing: its ``nextWakeup`` is `nil`. Mutating only to read in place: a
    /// non-mutating read made the optimizer copy the planner first.
    @inline(__always)
    mutating func isSettled(demand: PowerDemand, cap: PowerMode?, monitoring: Bool) -> Bool {
        guard !monitoring, idle == nil, !isJudged, monitors.isQuiet, case .running(let current, _) = policy.state,
            let demanded = demand.mode
        else { return false }
        return current == (cap.map { min(demanded, $0) } ?? demanded)
    }

    /// The mode to run for `demanded` by what the source delivered (see ``SourceDelivery``): a run past its
    /// window marks its mode silent first, so that this reconciliation passes it over. Out of line, so that
    /// ``reconcile(demand:now:cap:monitoring:isShutDown:)`` stays small enough to inline where no source is
    /// judged (about 70 instructions a request, measured with callgrind).
    @inline(never)
    private mutating func judgedMode(_ demanded: PowerMode?, quickly: Bool, now: EngineInstant) -> PowerMode? {
        _ = delivery.look(now: now)
        return demanded.map { delivery.mode(for: $0, quickly: quickly) }
    }

    /// A fix of `accuracy` metres arrived from the source at `now`: the run waiting for its first fix is
    /// answered (see ``SourceDelivery``).
    @inline(__always)
    mutating func fixArrived(accuracy: Double, now: EngineInstant) {
        if expectedAcquisition != nil { expectedAcquisition = nil }
        guard isJudged, let mode = runningMode else { return }
        delivery.fixArrived(in: mode, accuracy: accuracy, now: now)
    }

    /// Whether the source declared its first-fix times, so that ``delivery`` judges it.
    @inline(__always)
    var isJudged: Bool { delivery.judges }

    /// The mode the source runs in, while it runs.
    var runningMode: PowerMode? { policy.state.mode }

    /// Tells the delivery record what a command does to the source's run (out of line, as ``judgedMode(_:quickly:now:)``).
    @inline(never)
    private mutating func noteRun(_ command: Command, now: EngineInstant) {
        switch command {
        case .start(let mode): delivery.started(mode, now: now, restart: expectedAcquisition ?? restartDelay(startingAt: now))
        case .setMode(let mode): delivery.changed(to: mode, now: now)
        case .stop, .idle: delivery.stopped()
        }
    }

    /// How long the receiver is expected to take to its first fix after a start at `now`: its cold start the
    /// first time; after that the restart from where it waited for as long as it was down, as its energy account
    /// costs it (a receiver off for hours starts warm, whatever the power-down rule); nothing without a profile.
    private func restartDelay(startingAt now: EngineInstant) -> Duration {
        restartDelay(startingAt: now, afterStarts: policy.starts - 1)
    }

    /// The restart after `earlier` starts: the cold start before any, else from where the receiver waits.
    private func restartDelay(startingAt now: EngineInstant, afterStarts earlier: Int) -> Duration {
        guard earlier > 0 else { return coldStart }
        return energy?.restartDelay(startingAt: now) ?? .zero
    }

    /// Powers the source down at once, without lingering (a fatal error, access lost, shutdown); `monitoring`
    /// as in ``reconcile(now:cap:monitoring:isShutDown:)``. At shutdown a receiver already waiting in an
    /// idle state stays there: no later step of its plan is taken, so nothing is left to wake for.
    mutating func forceOff(now: EngineInstant, monitoring: Bool, shuttingDown: Bool = false) -> Command? {
        reconcileMonitorDemand(now: now, monitoring: monitoring)
        if shuttingDown { idle?.endPlan() }
        guard policy.forceOff(now: now) == .stop else { return nil }
        account(.stop, now: now, wasOn: true)
        return .stop
    }

    /// The source failed for good at `now`: it is powered down as by ``forceOff(now:monitoring:shuttingDown:)``,
    /// and stays down until demand ends (``recoverFromFailure()``). Returns what to do to the source, if anything.
    mutating func fail(now: EngineInstant, monitoring: Bool) -> Command? {
        let command = forceOff(now: now, monitoring: monitoring)
        policy.markFailed()
        return command
    }

    /// Demand ended: a source that failed may be chosen again.
    mutating func recoverFromFailure() { policy.recover() }

    /// The source reports where its receiver confirmed it waits (see ``SourceEvent/receiverState(_:age:)``):
    /// the energy counts it, and the restart-aware plan goes on from it — a receiver that stayed on is not
    /// stepped deeper.
    mutating func receiverConfirmed(_ state: ReceiverPowerProfile.IdleState, age: Duration = .zero, now: EngineInstant) {
        energy?.confirmed(state, age: age, running: policy.isOn, now: now)
        idle?.receiverConfirmed(state)
    }

    /// The source reports the setting its running receiver confirmed (see ``SourceEvent/receiverTracking(_:age:)``),
    /// on evidence `age` old: the energy counts it, and the mode plan goes on from it. A setting other than the
    /// mode the receiver was last sent to, on evidence since that command, is a refusal (``ModeRefusal``): the
    /// receiver runs in what it kept, and the mode is asked for again after a backoff.
    mutating func receiverTracking(_ mode: PowerMode, age: Duration = .zero, now: EngineInstant) {
        energy?.confirmedTracking(mode, age: age, running: policy.isOn, now: now)
        let refusals = policy.refusals
        policy.receiverConfirmed(mode, since: now - age, now: now)
        // Refused: its fixes come in the mode kept, so the run waiting in the mode asked would read as silence.
        if isJudged, policy.refusals != refusals { delivery.refused(keeping: mode) }
    }

    /// How long the run in progress was expected, when it started, to take to its first fix; `nil` once it gave one
    /// (``fixArrived(accuracy:now:)`` clears it), or while the source is down.
    private(set) var expectedAcquisition: Duration?

    /// How long the source, off, would take to its first fix if started at `now`: its cold start the first time,
    /// after that the restart from where it waits (``restartDelay(startingAt:)`` as that start will count it).
    func expectedRestartDelay(startingAt now: EngineInstant) -> Duration {
        restartDelay(startingAt: now, afterStarts: policy.starts)
    }

    /// Counts what a command does to the receiver's energy; `wasOn` is whether the policy ran the source before it
    /// (a step down is from running, or deeper from where the receiver waits).
    private mutating func account(_ command: Command?, now: EngineInstant, wasOn: Bool) {
        switch command {
        case .start?: expectedAcquisition = restartDelay(startingAt: now)
        case .stop?, .idle?: expectedAcquisition = nil
        case .setMode?, nil: break
        }
        if isJudged, let command { noteRun(command, now: now) }
        guard let command, energy != nil else { return }
        switch command {
        case .start(let mode): energy!.started(mode, now: now)
        case .setMode(let mode): energy!.modeChanged(mode, now: now)
        case .stop: energy!.sentDown(into: .off, fromRunning: true, now: now)
        case .idle(let step): energy!.sentDown(into: step.state, fromRunning: wasOn, now: now)
        }
    }

    /// The restart-aware rule: when demand ends the source stays on until the plan's first step down (the
    /// break-even of a restart) — or steps down at once when the gap is the monitors' sleep, whose end is
    /// known — then goes where the plan says, and deeper as later steps fall due; the gap is remembered
    /// when demand comes back.
    private mutating func reconcileRestartAware(
        demanded: PowerMode?, now: EngineInstant, cap: PowerMode?, monitoring: Bool, isShutDown: Bool
    ) -> Command? {
        let before = policy.state
        var linger = self.linger
        if case .running(let mode, _) = before, demanded == nil, let stayOn = idle!.demandEnded(mode: mode, now: now) {
            linger = monitors.isSleeping(monitoring: monitoring) ? .zero : stayOn
        }
        switch policy.reconcile(now: now, demanded: demanded, linger: linger, cap: cap) {
        case .start(let mode)?:
            // Down in a gap with no step taken: it was forced off (an error, access lost), not stepped down.
            if idle!.isGapWithoutStep { idle!.abandonGap() } else { idle!.demandReturned(now: now) }
            return .start(mode)
        case .setMode(let mode)?:
            if case .lingering = before { idle!.demandReturned(now: now) }
            return .setMode(mode)
        case .stop?:
            if let step = idle!.takeStep() { return .idle(step) }
            // No idle state is cheaper than tracking: the fixed linger has passed.
            idle!.abandonGap()
            return .stop
        case nil:
            if case .lingering = before, case .running = policy.state { idle!.demandReturned(now: now) }
            // A source down, whether stopped or failed, goes on down its plan.
            if !isShutDown, !policy.isOn, let due = idle!.nextDeeperStep, due <= now, let step = idle!.takeStep() {
                return .idle(step)
            }
            return nil
        }
    }

    private static func command(_ command: PowerPolicy.Command?) -> Command? {
        switch command {
        case .start(let mode)?: .start(mode)
        case .setMode(let mode)?: .setMode(mode)
        case .stop?: .stop
        case nil: nil
        }
    }

    // MARK: Statistics

    /// The planner's counters, with the source's on-time and the monitors' sleep up to `now`.
    func addStatistics(to statistics: inout SchedulerStatistics, now: EngineInstant) {
        statistics.sourceStarts = policy.starts
        statistics.sourceStops = policy.stops
        statistics.sourceModeChanges = policy.modeChanges
        statistics.sourceModesRefused = policy.refusals
        statistics.sourceOnTime = policy.onTime(at: now)
        statistics.receiverEnergy = energy?.joules(at: now)
        statistics.delivery = [delivery.figures]
        statistics.regionSleeps = monitors.sleeps
        statistics.regionSleepTime = monitors.sleepTime(at: now)
        statistics.sourceMode = runningMode
        guard let idle else { return }
        statistics.idleState = idle.state
        statistics.lastPowerDown = idle.lastStep
        statistics.lastRestartCondition = idle.lastRestart
        statistics.gapsBridgedOn = idle.gapsBridgedOn
        statistics.powerDownsToStandby = idle.stepsToStandby
        statistics.powerDownsToOff = idle.stepsToOff
        statistics.predictedGap = idle.decider.predictedGap
    }
}

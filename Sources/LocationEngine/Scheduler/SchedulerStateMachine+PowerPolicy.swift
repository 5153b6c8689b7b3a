extension SchedulerStateMachine {
    /// The planner of gaps in demand, when the restart-aware rule applies: the rule is restart-aware and the
    /// source describes its receiver.
    static func idlePlanner(_ configuration: Configuration) -> IdlePlanner? {
        guard let trust = configuration.powerDown.trust, let profile = configuration.sourceCapabilities.powerProfile else { return nil }
        return IdlePlanner(profile: profile, trust: trust)
    }

    /// Brings the source in line with demand by the restart-aware rule: when demand ends the source stays on
    /// until the plan's first step down (the break-even of a restart), then goes where the plan says, and
    /// deeper as later steps fall due; the gap is remembered when demand comes back.
    mutating func reconcilePowerRestartAware(now: EngineInstant, cap: PowerMode?) {
        let before = power.state
        var linger = configuration.linger
        if case .running(let mode) = before, power.demandedMode == nil, let stayOn = idle!.demandEnded(mode: mode, now: now) {
            linger = isRegionSleepGap ? .zero : stayOn
        }
        switch power.reconcile(now: now, linger: linger, cap: cap) {
        case .start(let mode)?:
            // Down with the gap still "on": it was forced off (an error, access lost), not stepped down.
            if idle!.state == .on { idle!.abandonGap() } else { idle!.demandReturned(now: now) }
            emit(.startSource(mode))
        case .setMode(let mode)?:
            if case .lingering = before { idle!.demandReturned(now: now) }
            emit(.setSourceMode(mode))
        case .stop?:
            if let step = idle!.takeStep() {
                emit(.idleSource(step))
            } else {
                // No idle state is cheaper than tracking: the fixed linger has passed.
                idle!.abandonGap()
                emit(.stopSource)
            }
        case nil:
            if case .lingering = before, case .running = power.state { idle!.demandReturned(now: now) }
            if !isShutDown, power.state == .off, let due = idle!.nextDeeperStep, due <= now, let step = idle!.takeStep() {
                emit(.idleSource(step))
            }
        }
    }

    /// The restart-aware policy's part of the statistics.
    func addPowerDownStatistics(to statistics: inout SchedulerStatistics) {
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

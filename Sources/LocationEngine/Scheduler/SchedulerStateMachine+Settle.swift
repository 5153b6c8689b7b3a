extension SchedulerStateMachine {
    /// The end of every event: the one step that brings the sources in line with what the event left and
    /// reads each part's next deadline into its alarm. The parts change their facts during the event and only say
    /// that something moved — the demand (``askPower(at:)``), a power-down beside it (``powerDown(_:at:)``),
    /// the regions' or authorization's next deadline (their `alarmMoved`) — so every source command of an
    /// event comes from here, the power planner decides once, from the final demand, and a source started
    /// and stopped within one event is never commanded at all. The passing of time settles
    /// once per instant it reaches instead (``runTimeline(upTo:)``): a reconcile there must happen at the
    /// instant things fell due, so that the energy account stops then.
    /// - Complexity: that of the power planner's reconciliation, O(s) for s sources, when asked; O(1) otherwise.
    @inline(__always)
    mutating func settle() {
        if let due = powerDue {
            powerDue = nil
            reconcilePower(now: due)
        } else {
            alarms[.power] = power.readNextWakeup()
        }
        if geofences.alarmMoved { setRegionsAlarm() }
        if access.alarmMoved { setAuthorizationAlarm() }
    }

    /// The demand, the monitors or the access picture changed at `now`: the power planner reconciles at the
    /// settle step, at the latest instant asked.
    @inline(__always)
    mutating func askPower(at now: EngineInstant) {
        if let due = powerDue, due > now { return }
        powerDue = now
    }

    /// Brings the sources in line with the requests' and the monitors' demand, and sets the power alarm to
    /// the planner's next wake-up (the one place it is set after a reconciliation). Under reduced accuracy
    /// the cheapest mode serves everyone: every fix is coarsened anyway.
    @inline(__always)
    private mutating func reconcilePower(now: EngineInstant) {
        let cap: PowerMode? = access.accuracy == .reduced ? .lowest : nil
        let (commands, nextWakeup) = power.reconcile(
            demand: requests.demand, now: now, cap: cap, monitoring: geofences.evaluator.count > 0, isShutDown: isShutDown)
        emit(commands)
        alarms[.power] = nextWakeup
    }

    /// The event powers `down` sources at `now`: the power planner carries it out at the settle step,
    /// first in its reconciliation with what the event left.
    mutating func powerDown(_ down: SourcePlanner.PowerDown, at now: EngineInstant) {
        power.powerDown(down)
        askPower(at: now)
    }

    /// Decides what the sources must do, in source order, ahead of the event's other actions
    /// (``SchedulerEffects``).
    @inline(__always)
    mutating func emit(_ commands: SourceCommands) {
        commands.forEach { delivery.emitCommand(Action($0.command, for: $0.source)) }
    }

    /// Sets the regions' alarm to the evaluator's next deadline.
    @inline(never)
    private mutating func setRegionsAlarm() {
        geofences.alarmMoved = false
        alarms[.regions] = geofences.evaluator.nextDeadline
    }

    /// Sets authorization's alarm to its next scheduled change.
    @inline(never)
    mutating func setAuthorizationAlarm() {
        access.alarmMoved = false
        alarms[.authorization] = access.timeline.nextDue
    }
}

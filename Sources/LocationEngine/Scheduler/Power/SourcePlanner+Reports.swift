extension SourcePlanner {
    // MARK: What the other parts and the sources report

    /// Source `source` reports where its receiver confirmed it is (see ``PowerPlanner/receiverConfirmed(_:age:now:)``).
    mutating func receiverConfirmed(_ state: ReceiverPowerProfile.IdleState, age: Duration, now: EngineInstant, source: SourceID) {
        self[source].receiverConfirmed(state, age: age, now: now)
    }

    /// Source `source` reports the setting its running receiver confirmed.
    mutating func receiverTracking(_ mode: PowerMode, age: Duration, now: EngineInstant, source: SourceID) {
        self[source].receiverTracking(mode, age: age, now: now)
    }

    /// The monitors want the source now (see ``PowerPlanner/endMonitorSleep()``).
    mutating func endMonitorSleep() {
        for index in records.indices { records[index].planner.endMonitorSleep() }
    }

    /// Whether a fix could let the monitors sleep (see ``PowerPlanner/monitorsMaySleep(besides:)``).
    func monitorsMaySleep(besides demand: PowerDemand) -> Bool { self[monitorSource].monitorsMaySleep(besides: demand) }

    /// Lets the monitors sleep until a restart before `due`, if worth it (see ``PowerPlanner/planMonitorSleep(due:now:)``).
    mutating func planMonitorSleep(due: EngineInstant, now: EngineInstant) -> Bool {
        self[monitorSource].planMonitorSleep(due: due, now: now)
    }

    /// Writes the planners' figures into `statistics`: the sums over the sources (counts of power-downs among
    /// them), the finest mode running, the receiver's state (idle state, last step down, restart, predicted gap) as
    /// the first source with a receiver profile has it, and, with several, each source's figures in
    /// ``SchedulerStatistics/sources`` (with one, the sums are its own figures, and the list stays empty as
    /// documented).
    func addStatistics(to statistics: inout SchedulerStatistics, now: EngineInstant) {
        records[records.firstIndex { $0.planner.idle != nil } ?? 0].planner.addStatistics(to: &statistics, now: now)
        statistics.sourceMode = records.compactMap(\.planner.runningMode).max()
        statistics.gapsBridgedOn = records.reduce(0) { $0 + ($1.planner.idle?.gapsBridgedOn ?? 0) }
        statistics.powerDownsToStandby = records.reduce(0) { $0 + ($1.planner.idle?.stepsToStandby ?? 0) }
        statistics.powerDownsToOff = records.reduce(0) { $0 + ($1.planner.idle?.stepsToOff ?? 0) }
        statistics.delivery = records.map(\.planner.delivery.figures)
        var total = SchedulerStatistics.SourceFigures()
        let figures = records.indices.map { index in
            var own = SchedulerStatistics()
            records[index].planner.addStatistics(to: &own, now: now)
            let figures = SchedulerStatistics.SourceFigures(
                starts: own.sourceStarts, stops: own.sourceStops, modeChanges: own.sourceModeChanges, onTime: own.sourceOnTime,
                receiverEnergy: own.receiverEnergy, mode: own.sourceMode, failed: records[index].planner.hasFailed, chosen: chosen?.index == index,
                fallback: fallback?.index == index)
            total.starts += figures.starts
            total.stops += figures.stops
            total.modeChanges += figures.modeChanges
            total.onTime += figures.onTime
            if let energy = figures.receiverEnergy { total.receiverEnergy = (total.receiverEnergy ?? 0) + energy }
            return figures
        }
        if figures.count > 1 { statistics.sources = figures }
        statistics.sourceStarts = total.starts
        statistics.sourceStops = total.stops
        statistics.sourceModeChanges = total.modeChanges
        statistics.sourceModesRefused = records.reduce(0) { $0 + $1.planner.policy.refusals }
        statistics.sourceOnTime = total.onTime
        statistics.receiverEnergy = total.receiverEnergy
        // The monitors sleep on whichever source was chosen for them: every source's sleeps count.
        statistics.regionSleeps = records.reduce(0) { $0 + $1.planner.monitors.sleeps }
        statistics.regionSleepTime = records.reduce(.zero) { $0 + $1.planner.monitors.sleepTime(at: now) }
    }
}

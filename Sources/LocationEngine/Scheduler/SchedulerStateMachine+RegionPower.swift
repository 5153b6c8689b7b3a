extension SchedulerStateMachine {
    /// After a fix the regions took: whether the monitors may let the source sleep, and until when
    /// (see <doc:Geofences>). Each fix decides afresh, replacing the plan of the one before.
    ///
    /// The monitors demand the source unless every region's state is certain and no boundary can be
    /// reached (``RegionReach``) before `wake = fix time + timeToReach − time to first fix`, that being
    /// later than a restart is worth: the first step down the power policy would take (the break-even of
    /// a restart, or the fixed linger). At `wake` they demand it again, so that a fix is there when a
    /// boundary could first be reached. A source that describes no receiver
    /// (``SourceCapabilities/powerProfile``) gives no time to first fix to wake ahead by: the monitors then
    /// demand it all the time.
    ///
    /// While other requests demand the source in the monitors' mode, a sleep would change nothing: the
    /// monitors plan none (and keep their share), and the first fix after those requests end plans it.
    /// - Complexity: that of ``RegionEvaluator/reach(from:)``, only with a receiver profile and no other
    ///   request demanding the monitors' mode.
    mutating func planRegionSleep(after fix: StampedFix, now: EngineInstant) {
        geofences.wakeAt = nil
        let othersInMode = power.demand(in: Geofences.demandedMode) - (geofences.isDemanding ? 1 : 0)
        guard othersInMode == 0, let profile = configuration.sourceCapabilities.powerProfile,
            let worthIt = restartBreakEven(profile), let reach = geofences.evaluator.reach(from: fix.location)
        else { return }
        let reachable = fix.observedAt + reach.timeToReach
        // The longest a restart can take after this gap: from off (no deeper state).
        let wake = reachable - profile.restartDelay(after: reachable - now, in: .off)
        guard wake - now > worthIt else { return }
        geofences.wakeAt = wake
        geofences.evaluator.holdStates(until: reachable)
    }

    /// Whether the gap in demand that begins now is the monitors' sleep, whose end is known (``Geofences/wakeAt``,
    /// planned only when longer than a restart is worth): the restart-aware rule then steps the source down at
    /// once instead of staying on through a guessed break-even, which it does for gaps it cannot foresee.
    /// - Complexity: O(1)
    var isRegionSleepGap: Bool { geofences.wakeAt != nil && geofences.evaluator.count > 0 }

    /// The shortest sleep worth a restart: below it the power policy would keep the source running
    /// through the gap anyway. With the restart-aware rule, the earliest break-even of a step down from
    /// tracking; with the fixed linger, the linger (and at least that break-even). `nil` when no idle
    /// state is cheaper than tracking.
    func restartBreakEven(_ profile: ReceiverPowerProfile) -> Duration? {
        let decider = idle?.decider ?? PowerDownDecider(profile: profile)
        let mode = Geofences.demandedMode
        let breakEvens = [ReceiverPowerProfile.IdleState.standby, .off].compactMap { decider.breakEven(from: .on, to: $0, mode: mode) }
        guard let breakEven = breakEvens.min() else { return nil }
        return idle == nil ? max(breakEven, configuration.linger) : breakEven
    }

    /// Brings the monitors' share of the power demand in line: one share, in ``Geofences/demandedMode``,
    /// while any region is monitored and the monitors do not let the source sleep; the sleep ends at its
    /// wake-up instant. Called first by every reconciliation of the power, and where the source is forced off.
    /// - Complexity: O(1)
    mutating func reconcileRegionDemand(now: EngineInstant) {
        let monitoring = geofences.evaluator.count > 0
        if !monitoring { geofences.wakeAt = nil }
        if let wake = geofences.wakeAt, wake <= now { geofences.wakeAt = nil }
        let demanding = monitoring && geofences.wakeAt == nil
        if demanding != geofences.isDemanding {
            if demanding { power.add(Geofences.demandedMode) } else { power.remove(Geofences.demandedMode) }
            geofences.isDemanding = demanding
        }
        let asleep = monitoring && !demanding
        if asleep, geofences.asleepSince == nil {
            geofences.asleepSince = now
            geofences.sleeps += 1
        } else if !asleep, let since = geofences.asleepSince {
            geofences.sleptTime += max(.zero, now - since)
            geofences.asleepSince = nil
        }
    }
}

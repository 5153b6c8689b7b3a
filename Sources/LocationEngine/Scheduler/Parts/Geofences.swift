/// The core's monitored regions: the evaluator that decides them, and the regions of monitors that wait
/// for authorization (they join the evaluator when admitted, so a waiting monitor decides nothing). Their
/// share of the power demand is the power planner's (``PowerPlanner``).
struct Geofences: Sendable {
    var evaluator: RegionEvaluator
    /// Why the configuration was refused, if it was: every monitor then ends at once, rejected.
    let configurationError: GeofenceError?
    /// Regions of monitors not admitted yet.
    var waiting: [RequestID: (region: GeofenceRegion, options: GeofenceOptions)] = [:]
    /// Whether the evaluator's next deadline may have moved since the core last read it into the regions'
    /// alarm (the event's settle step reads it, ``SchedulerStateMachine/settle()``).
    var alarmMoved = false
    /// The earliest instant the truth could be decidable against some region's state, as the monitors'
    /// last plan found it (or, while other requests keep the source running, the first of their fixes that
    /// left a region in doubt); `nil` when nothing is planned.
    var decidableFrom: EngineInstant?

    /// What the monitors demand of the source while it must run for them: their best, as a standard
    /// subscription without an accuracy filter.
    static let demandedMode = PowerMode.best

    init(configuration: GeofenceConfiguration) {
        do {
            evaluator = try RegionEvaluator(configuration: configuration)
            configurationError = nil
        } catch {
            evaluator = try! RegionEvaluator()  // the defaults are valid
            configurationError = error
        }
    }

    /// Why a monitor with `options` is refused, if it is: the configuration or the options are invalid.
    func refusal(of options: GeofenceOptions) -> String? {
        do throws(GeofenceError) {
            if let configurationError { throw configurationError }
            try options.validate()
            return nil
        } catch {
            return error.description
        }
    }

    /// A monitor is admitted at `now`: its region joins the evaluator, undecided until the next fix. Returns
    /// whether one did (it waited).
    mutating func admit(_ id: RequestID, now: EngineInstant) -> Bool {
        guard let (region, options) = waiting.removeValue(forKey: id) else { return false }
        evaluator.add(id, region: region, options: options, at: now)
        return true
    }

    /// These requests were admitted at `now`: the monitors among them have their regions join the evaluator,
    /// which then wants the source until a fix decides them (the monitors' sleep in `power` ends).
    /// - Complexity: O(1) when no monitor waits, else O(k) for k requests.
    @inline(__always)
    mutating func admit(_ ids: some Sequence<RequestID>, power: inout SourcePlanner, now: EngineInstant) {
        guard !waiting.isEmpty else { return }
        var any = false
        for id in ids where admit(id, now: now) { any = true }
        alarmMoved = true
        if any { power.endMonitorSleep() }
    }

    /// Forgets region `id`, waiting or monitored.
    mutating func remove(_ id: RequestID) {
        if waiting.removeValue(forKey: id) == nil { evaluator.remove(id) }
        alarmMoved = true
    }

    /// Time passes to `instant`, the regions' alarm in the core: the dwells and unknown
    /// timeouts due by then are decided (taken with ``RegionEvaluator/nextEvent()``).
    mutating func advanceTime(to instant: EngineInstant) {
        evaluator.advanceTime(now: instant)
        alarmMoved = true
    }

    /// A fix reaches the regions: their transitions are decided (taken with ``RegionEvaluator/nextEvent()``);
    /// then the power planner decides whether the monitors may let the source sleep, and until when: until a
    /// fix is due at the earliest instant the truth could be decidable against some region's state
    /// (``RegionReach/timeToDecidable``) plus the smallest latency budget among the regions
    /// (``GeofenceOptions/responsiveness``). A region in doubt is planned by its own decision slack when the
    /// fix says the device stands still, or when there is a budget; otherwise the source keeps running. When
    /// the truth could be decidable already, the budget runs from the earliest instant the fix before had
    /// planned it could be (``decidableFrom``), so that a decision comes at most the budget after the first
    /// fix that could see it, not a budget after each fix that fell short under noise. While they sleep the
    /// regions hold their states until the fix is due: no transition is owed before it.
    /// - Complexity: that of ``RegionEvaluator/receiveFix(_:observedAt:now:)``, and of
    ///   ``RegionEvaluator/reach(from:inDoubtWhileMoving:)`` only when the planner says a sleep could be worth it.
    mutating func decide(by fix: StampedFix, power: inout SourcePlanner, besides demand: PowerDemand, now: EngineInstant) {
        // A fix older than one the regions were decided from changes nothing, the monitors' plan included.
        guard evaluator.receiveFix(fix.location, observedAt: fix.observedAt, now: now) || !fix.location.isValid else { return }
        alarmMoved = true
        power.endMonitorSleep()
        // The truth may be decidable already: since the last plan's earliest instant, and never later than this
        // fix (a region that joined since may have been decidable at once).
        let decidableAlready = min(decidableFrom ?? fix.observedAt, fix.observedAt)
        guard power.monitorsMaySleep(besides: demand) else {
            // The source runs for other requests; a region their fixes leave in doubt keeps its budget running.
            decidableFrom = evaluator.hasRegionInDoubt ? decidableAlready : nil
            return
        }
        let budget = evaluator.responsiveness.smallest
        let earliest: EngineInstant
        if let reach = evaluator.reach(from: fix.location, inDoubtWhileMoving: budget > .zero) {
            earliest = fix.observedAt + reach.timeToDecidable
        } else if budget > .zero, fix.location.isValid, evaluator.hasRegionInDoubt {
            earliest = decidableAlready
        } else {
            decidableFrom = nil
            return
        }
        decidableFrom = earliest
        let due = earliest + budget
        if power.planMonitorSleep(due: due, now: now) { evaluator.holdStates(until: due) }
    }
}

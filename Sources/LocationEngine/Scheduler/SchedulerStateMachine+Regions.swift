extension SchedulerStateMachine {
    /// A region monitor arrives (see <doc:Geofences>): a subscription that receives no fixes but the
    /// transitions of `region` (``SchedulerAction/notifyRegion(_:_:)``), and ends as every subscription
    /// does — cancel, force-complete, denial, a fatal source error, shutdown — with one
    /// ``SubscriptionEvent/ended(_:)``. While admitted, the monitors together power the source as a standard
    /// subscription does, but for the times the distance to the nearest boundary lets it sleep (see
    /// ``GeofenceConfiguration/maximumSpeed``).
    /// Invalid `options` (or an invalid ``Configuration/geofences``) end it at once with
    /// ``SubscriptionEnd/rejected(reason:)``.
    /// - Complexity: O(1) amortised.
    public mutating func monitor(
        _ id: RequestID,
        region: GeofenceRegion,
        options: GeofenceOptions,
        madeAt: EngineInstant?,
        handler: consuming SubscriptionHandler,
        now: EngineInstant
    ) {
        var refusal: String?
        do throws(GeofenceError) {
            if let error = geofences.configurationError { throw error }
            try options.validate()
        } catch {
            refusal = error.description
        }
        if let refusal {
            let now = enter(now, "monitor")
            _ = now
            counters.subscriptionsSubmitted += 1
            if let withdrawal = endIfWithdrawnAhead(id) { return redirect(Recipient(id, handler), withdrawal) }
            return emitSubscribers([Recipient(id, handler)], .ended(.rejected(reason: refusal)))
        }
        geofences.waiting[id] = (region, options)
        // Every refusal and ending of a subscription applies; admission moves the region to the evaluator.
        // Passive: a monitor adds no demand of its own; the monitors' one share is drawn from the geometry.
        subscribe(id, options: SubscriptionOptions(kind: .passive), madeAt: madeAt, handler: handler, now: now)
        if requests.subscriptions[id] != nil {
            requests.subscriptions[id]!.isRegion = true
        } else {
            geofences.waiting[id] = nil
        }
    }

    /// The state of the region monitored as `id`, or `nil` when there is none (or it waits).
    public func regionState(_ id: RequestID) -> GeofenceState? { geofences.evaluator.state(of: id) }

    /// How many regions are monitored (admitted).
    public var monitoredRegions: Int { geofences.evaluator.count }

    /// Admission of a region monitor: its region joins the evaluator (undecided until the next fix).
    mutating func admitRegion(_ id: RequestID, _ subscription: inout Subscription) {
        guard let (region, options) = geofences.waiting.removeValue(forKey: id) else { return }
        subscription.isRegion = true
        geofences.evaluator.add(id, region: region, options: options)
        // Its state is unknown until a fix decides it: no sleep until then.
        power.endMonitorSleep()
    }

    /// A fix reaches the regions: their transitions are queued, one action each.
    /// - Complexity: that of ``RegionEvaluator/receiveFix(_:observedAt:now:)``.
    mutating func evaluateRegions(_ fix: StampedFix, now: EngineInstant) {
        guard geofences.evaluator.count > 0 else { return }
        geofences.evaluator.receiveFix(fix.location, observedAt: fix.observedAt, now: now)
        emitRegionEvents()
        planRegionSleep(after: fix, now: now)
    }

    /// After a fix the regions took: whether the monitors may let the source sleep, and until when — the
    /// power planner decides from when the nearest boundary could first be reached (``RegionReach``).
    /// - Complexity: that of ``RegionEvaluator/reach(from:)``, only when the planner says a sleep could be
    ///   worth it.
    private mutating func planRegionSleep(after fix: StampedFix, now: EngineInstant) {
        power.endMonitorSleep()
        guard power.monitorsMaySleep, let reach = geofences.evaluator.reach(from: fix.location) else { return }
        let reachable = fix.observedAt + reach.timeToReach
        if power.planMonitorSleep(reachable: reachable, now: now) { geofences.evaluator.holdStates(until: reachable) }
    }

    /// Time reaches the regions: dwells and unknown timeouts due by `now`.
    mutating func advanceRegions(now: EngineInstant) {
        guard geofences.evaluator.count > 0 else { return }
        geofences.evaluator.advanceTime(now: now)
        emitRegionEvents()
    }

    private mutating func emitRegionEvents() {
        while let event = geofences.evaluator.nextEvent() {
            guard let subscription = requests.subscriptions[event.id] else { continue }
            emit(.notifyRegion(event, Recipient(event.id, subscription.handler)))
        }
    }
}

extension SchedulerStateMachine {
    /// A one-shot request arrives (see <doc:OneShotRequests>).
    ///
    /// It completes at once from the cache when a known fix satisfies its accuracy and recency (without
    /// powering the source); is refused at once when unauthorized, shut down, invalid or naming an
    /// undeclared purpose key; under reduced accuracy, when it is finer than coarsened fixes can be, it
    /// ends with ``LocationStatus/accuracyReduced`` or (naming a purpose key) waits for temporary full
    /// accuracy; otherwise it waits for a fix, its timeout (`nil` or zero: none) or authorization.
    /// - Complexity: O(log n) with a timeout, amortised O(1) without.
    @_specialize(exported: true, where OneShotHandler == ClosureOneShotHandler, SubscriptionHandler == ClosureSubscriptionHandler, MonitorHandler == ClosureMonitorHandler)
    public mutating func submitOneShot(
        _ id: RequestID, accuracy: LocationAccuracy, timeout: Duration?, delayUntilAuthorized: Bool, purposeKey: String?,
        madeAt: EngineInstant?, handler: consuming OneShotHandler, now: EngineInstant
    ) -> Effects {
        placeOneShot(
            id, accuracy: accuracy, timeout: timeout, delayUntilAuthorized: delayUntilAuthorized, purposeKey: purposeKey, madeAt: madeAt,
            handler: handler, now: enter(now))
        settle()
        return delivery.takeEffects()
    }

    /// A one-shot request arrives at `now`: ends at once, or takes its place.
    @inline(__always)
    private mutating func placeOneShot(
        _ id: RequestID, accuracy: LocationAccuracy, timeout: Duration?, delayUntilAuthorized: Bool, purposeKey: String?,
        madeAt: EngineInstant?, handler: consuming OneShotHandler, now: EngineInstant
    ) {
        assert(!isPending(id), "submitOneShot(\(id)): the ID is already pending")
        counters.oneShotsSubmitted += 1
        if let withdrawal = delivery.takeWithdrawalAhead(of: id) { return redirect(Recipient(id, handler), withdrawal, now: now) }
        if let refusal = configuration.refusal(
            accuracy: accuracy, timeout: timeout, purposeKey: purposeKey, isShutDown: isShutDown, gate: access.gate)
        {
            return delivery.emitOneShots([Recipient(id, handler)], LocationResult(status: refusal, location: nil, age: nil, achievedAccuracy: nil))
        }
        let timeout = timeout.flatMap { $0.isPositive ? $0 : nil }
        // The purpose key is kept while pending: an admitted request may still need it if accuracy
        // becomes reduced. A timeout that waits for access joins the wish when the request is placed.
        let request = OneShot(handler: handler, wish: OneShotWish(accuracy: accuracy, purposeKey: purposeKey, timeoutAwaitingAccess: nil))
        if let cached = access.cachedResult(satisfying: accuracy, now: now) {
            counters.oneShotsFromCache += 1
            return delivery.emitOneShots([Recipient(id, request.handler)], cached)
        }
        let placement = requests.place(
            id, request, timeout: timeout, from: min(madeAt ?? now, now), delayUntilAuthorized: delayUntilAuthorized, gate: access.gate,
            rules: access.rules)
        if endedOnArrival(id, now: now) { return }
        placed(id, placement, now: now)
    }

    /// A continuous request arrives (see <doc:Subscriptions>). It is told at once (with a final
    /// ``SubscriptionEvent/ended(_:)``) when its options are invalid, the engine is shut down, access is
    /// refused, it names an undeclared purpose key, or it asks for heading from a source without
    /// course. Under reduced accuracy, one that needs full accuracy ends with
    /// ``SubscriptionEnd/accuracyReduced`` or (naming a purpose key) waits for temporary full accuracy.
    /// - Complexity: O(1) amortised, O(log n) with a duration.
    @_specialize(exported: true, where OneShotHandler == ClosureOneShotHandler, SubscriptionHandler == ClosureSubscriptionHandler, MonitorHandler == ClosureMonitorHandler)
    public mutating func subscribe(
        _ id: RequestID, options: SubscriptionOptions, madeAt: EngineInstant?, handler: consuming SubscriptionHandler, now: EngineInstant
    ) -> Effects {
        register(id, options: options, madeAt: madeAt, handler: handler, now: enter(now))
        settle()
        return delivery.takeEffects()
    }

    /// A region monitor arrives (see <doc:Geofences>): it receives no fixes but the transitions of
    /// `region` (``SchedulerAction/notifyRegion(_:_:)``) and source errors, and ends as a subscription
    /// does, with one ``RegionEvent/ended(_:)`` (``SchedulerAction/notifyMonitors(_:_:)``). The monitors
    /// together power the source as a subscription does, but for the times the nearest boundary is out
    /// of reach (``GeofenceConfiguration/maximumSpeed``). Invalid `options` (or an invalid
    /// ``Configuration/geofences``) end it at once with ``SubscriptionEnd/rejected(reason:)``.
    /// - Complexity: O(1) amortised.
    public mutating func monitor(
        _ id: RequestID, region: GeofenceRegion, options: GeofenceOptions, madeAt: EngineInstant?, handler: consuming MonitorHandler,
        now: EngineInstant
    ) -> Effects {
        let now = enter(now)
        assert(!isPending(id), "monitor(\(id)): the ID is already pending")
        counters.subscriptionsSubmitted += 1
        if let withdrawal = delivery.takeWithdrawalAhead(of: id) {
            delivery.redirect(Recipient(id, handler), withdrawal)
        } else if let refusal = configuration.refusal(ofMonitor: options, geofences: geofences, isShutDown: isShutDown, gate: access.gate) {
            delivery.emitMonitors([Recipient(id, handler)], .ended(refusal))
        } else {
            // A monitor adds no demand of its own: the monitors' one share is drawn from the geometry.
            geofences.waiting[id] = (region, options)
            placed(id, requests.place(id, handler, gate: access.gate), now: now)
        }
        settle()
        return delivery.takeEffects()
    }

    /// The state of the region monitored as `id`, or `nil` when there is none (or it waits).
    public func regionState(_ id: RequestID) -> GeofenceState? { geofences.evaluator.state(of: id) }

    /// How many regions are monitored (admitted).
    public var monitoredRegions: Int { geofences.evaluator.count }

    /// A subscription arrives: refused, waiting for access, or admitted.
    private mutating func register(
        _ id: RequestID, options: SubscriptionOptions, madeAt: EngineInstant?, handler: consuming SubscriptionHandler, now: EngineInstant
    ) {
        assert(!isPending(id), "subscribe(\(id)): the ID is already pending")
        counters.subscriptionsSubmitted += 1
        if let withdrawal = delivery.takeWithdrawalAhead(of: id) { return delivery.redirect(Recipient(id, handler), withdrawal) }
        if let refusal = configuration.refusal(of: options, isShutDown: isShutDown, gate: access.gate) {
            return delivery.emitSubscribers([Recipient(id, handler)], .ended(refusal))
        }
        let subscription = Subscription(handler: handler, options: options)
        let placement = requests.place(id, subscription, from: min(madeAt ?? now, now), gate: access.gate, rules: access.rules)
        if endedOnArrival(id, now: now) { return }
        placed(id, placement, now: now)
    }

    /// Whether the request `id`, just placed, ended at once: its timeout or duration ran out before it arrived
    /// (made long before the core took it — before `run()`, behind a backlog). It then ends as one expiring
    /// does, timed out with its reason, having asked nothing of the source or the user.
    /// - Complexity: O(1) unless a deadline is due.
    @inline(__always)
    private mutating func endedOnArrival(_ id: RequestID, now: EngineInstant) -> Bool {
        guard let earliest = requests.deadlines.earliest, earliest <= now else { return false }
        // Past a power step still due (the caller's settle step takes it), as the timeline's own pass does.
        expireDeadlines(now: now, skippingPower: true)
        return !isPending(id)
    }

    /// A request took its place: the waiting ones ask for access, the admitted ones for the source (a
    /// monitor's region joins the evaluator).
    @inline(__always)
    private mutating func placed(_ id: RequestID, _ placement: Requests.Placement, now: EngineInstant) {
        switch placement {
        // The period's one request for authorization is made, if it was not yet.
        case .awaitingAuthorization: carryOut(access.authorizationNeeded(), now: now)
        case .needingFullAccuracy: holdForFullAccuracy([id], now: now)
        case .admitted:
            geofences.admit(CollectionOfOne(id), power: &power, now: now)
            askPower(at: now)
        }
    }
}

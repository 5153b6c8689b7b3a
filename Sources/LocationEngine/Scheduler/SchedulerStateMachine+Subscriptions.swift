extension SchedulerStateMachine {
    /// A continuous request arrives (see <doc:Subscriptions>). It is told at once (with a final
    /// ``SubscriptionEvent/ended(_:)``) when its options are invalid, the engine is shut down, access is
    /// refused, it names an undeclared purpose key, or it asks for heading from a source without
    /// course. Under reduced accuracy, one that needs full accuracy ends with
    /// ``SubscriptionEnd/accuracyReduced`` or (naming a purpose key) waits for temporary full accuracy.
    /// - Complexity: O(1) amortised, O(log n) with a duration.
    @_specialize(exported: true, where OneShotHandler == ClosureOneShotHandler, SubscriptionHandler == ClosureSubscriptionHandler)
    public mutating func subscribe(
        _ id: RequestID,
        options: SubscriptionOptions,
        madeAt: EngineInstant?,
        handler: consuming SubscriptionHandler,
        now: EngineInstant
    ) {
        let now = enter(now, "subscribe")
        assert(!isPending(id), "subscribe(\(id)): the ID is already pending")
        counters.subscriptionsSubmitted += 1
        if let withdrawal = endIfWithdrawnAhead(id) { return redirect(Recipient(id, handler), withdrawal) }
        let refusal: SubscriptionEnd? =
            if let failure = options.validationFailure { .rejected(reason: failure) }
            else if let key = options.purposeKey, !configuration.declares(purposeKey: key) { .misconfigured(.undeclaredPurposeKey(key)) }
            else if isShutDown { .shutDown }
            else if case .unauthorized(let failure) = authorization { .unauthorized(failure) }
            else if options.kind == .heading && !configuration.sourceCapabilities.providesCourse { .headingUnavailable }
            else { nil }
        if let refusal { return emitSubscribers([Recipient(id, handler)], .ended(refusal)) }
        var subscription = Subscription(
            handler: handler, options: options, lastDelivered: nil, lastDeliveryTime: nil, delivered: 0)
        if let duration = options.duration {
            requests.deadlines.insert(id, timeout: duration, from: min(madeAt ?? now, now))
            subscription.countdown = .running
        }
        if authorization == .notDetermined {
            requests.subscriptions[id] = subscription
            access.awaitingAuthorization.append(id)
            requestAuthorizationIfNeeded(now: now)
            return
        }
        if needsFullAccuracy(options) {
            requests.subscriptions[id] = subscription
            holdForFullAccuracy([id], now: now)
            return
        }
        admit(id, &subscription)
        reconcilePower(now: now)
    }

    /// Removes a subscription and its share of the power demand (its deadline entry, if any, stays
    /// behind until reached or compacted away).
    mutating func removeSubscription(_ id: RequestID) -> Subscription? {
        guard let subscription = requests.subscriptions.removeValue(forKey: id) else { return nil }
        if delivery.fanOutsPending > 0 { delivery.endedDuringFanOut.insert(id) }
        if subscription.phase == .admitted, let mode = subscription.options.powerDemand { power.remove(mode) }
        if subscription.isRegion { geofences.remove(id) }
        return subscription
    }

    /// Offers `fix` to every admitted subscription, appending grouped notifications and the ends of
    /// subscriptions that reached their maximum number of updates.
    /// - Complexity: O(s) for s subscriptions.
    mutating func fanOut(_ fix: StampedFix, now: EngineInstant) {
        guard !requests.subscriptions.isEmpty else { return }
        var locationHandlers: [Recipient<SubscriptionHandler>] = []
        var headingHandlers: [Recipient<SubscriptionHandler>] = []
        var exhausted: [RequestID] = []
        var position = requests.subscriptions.values.startIndex
        while position != requests.subscriptions.values.endIndex {
            defer { requests.subscriptions.values.formIndex(after: &position) }
            guard requests.subscriptions.values[position].phase == .admitted, !requests.subscriptions.values[position].isRegion,
                Self.accepts(fix, requests.subscriptions.values[position], now: now)
            else { continue }
            requests.subscriptions.values[position].lastDelivered = Position(fix.location)
            requests.subscriptions.values[position].lastDeliveryTime = now
            requests.subscriptions.values[position].delivered += 1
            let subscription = requests.subscriptions.values[position]
            let recipient = Recipient(requests.subscriptions.keys[position], subscription.handler)
            if subscription.options.kind == .heading {
                headingHandlers.append(recipient)
            } else {
                locationHandlers.append(recipient)
            }
            if let maximum = subscription.options.maximumUpdates, subscription.delivered >= maximum {
                exhausted.append(requests.subscriptions.keys[position])
            }
        }
        // The exhausted ones end before the update is queued, so that it still reaches them: it was
        // decided with them live.
        let ended = exhausted.compactMap { id in
            removeSubscription(id).map { Recipient(id, $0.handler) }
        }
        if !locationHandlers.isEmpty {
            let update = LocationUpdate(location: fix.location, age: fix.age(at: now), achievedAccuracy: fix.achieved(at: now))
            emitSubscribers(locationHandlers, .location(update))
        }
        if !headingHandlers.isEmpty, let course = fix.location.course {
            emitSubscribers(headingHandlers, .heading(HeadingUpdate(course: course, location: fix.location)))
        }
        emitSubscribers(ended, .ended(.maximumUpdatesReached))
    }

    /// Whether `fix` passes a subscription's filters at `now`.
    static func accepts(_ fix: StampedFix, _ subscription: Subscription, now: EngineInstant) -> Bool {
        let options = subscription.options
        if let accuracy = options.accuracy,
            !accuracy.isSatisfied(horizontalAccuracy: fix.location.horizontalAccuracy, age: fix.age(at: now))
        {
            return false
        }
        if options.minimumInterval > .zero, let last = subscription.lastDeliveryTime, now - last < options.minimumInterval {
            return false
        }
        let moved = subscription.lastDelivered.map { $0.distance(to: fix.location) }
        switch options.kind {
        case .heading:
            guard fix.location.course != nil else { return false }
        case .significantChange:
            if let moved, moved < options.significantDistance - distanceTolerance { return false }
        case .standard, .passive:
            break
        }
        if options.distanceFilter > 0, let moved, moved < options.distanceFilter - distanceTolerance { return false }
        return true
    }

    /// How far short of a distance filter a movement may fall and still pass: 1 mm, far below any
    /// receiver's precision, so that a movement of exactly the filter's distance is not rejected by
    /// floating-point rounding in the great-circle computation.
    static var distanceTolerance: Double { 0.001 }
}

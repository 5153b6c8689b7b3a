extension SchedulerStateMachine {
    /// The accuracy authorization changed (SEMANTICS §6).
    ///
    /// - reduced: the remembered fixes are coarsened, so nothing precise is delivered from the cache;
    ///   admitted requests that coarsened fixes cannot serve wait for temporary full accuracy (when they
    ///   name a purpose key) or end with ``LocationStatus/accuracyReduced``; the source drops to its
    ///   cheapest mode;
    /// - full: requests waiting for full accuracy are admitted.
    ///
    /// Either way, a refusal of temporary full accuracy is forgotten: the next request may ask again.
    /// - Complexity: O(n) to reduced, O(w) to full for w waiting requests.
    @_specialize(exported: true, where OneShotHandler == ClosureOneShotHandler, SubscriptionHandler == ClosureSubscriptionHandler)
    ///
    /// - Parameter askingForFullAccuracy: `false` when the reduction must not prompt at once (temporary
    ///   full accuracy reverting at the end of a session): requests needing full accuracy then end.
    public mutating func setAccuracyAuthorization(
        _ accuracy: AccuracyAuthorization, askingForFullAccuracy: Bool = true, now: EngineInstant, into actions: inout [Action]
    ) {
        let now = tick(now)
        guard accuracy != accuracyAuthorization else { return }
        accuracyAuthorization = accuracy
        fullAccuracyRequested = false
        fullAccuracyRefused = false
        switch accuracy {
        case .reduced:
            lastCoarseFixAt = nil
            history.coarsen(with: configuration.reducedAccuracy)
            fullAccuracyRefused = !askingForFullAccuracy
            holdForFullAccuracy(unadmitRequestsNeedingFullAccuracy(), now: now, into: &actions)
            fullAccuracyRefused = false
        case .full:
            for id in replace(&awaitingFullAccuracy, with: []) {
                if var request = oneShots[id], !request.admitted {
                    if let timeout = delayedTimeouts.removeValue(forKey: id) {
                        deadlines.insert(id, deadline: now + timeout)
                        request.hasDeadline = true
                    }
                    request.admitted = true
                    oneShots[id] = request
                    let accuracy = self.accuracy(of: id, request)
                    index.insert(id, accuracy: accuracy)
                    power.add(accuracy.requiredPowerMode)
                } else if var subscription = subscriptions[id], !subscription.admitted {
                    subscription.admitted = true
                    subscriptions[id] = subscription
                    if let mode = subscription.options.powerDemand { power.add(mode) }
                }
            }
        }
        reconcilePower(now: now, into: &actions)
    }

    /// The provider answered a temporary-full-accuracy request and accuracy is still reduced: every
    /// request waiting for it ends with ``LocationStatus/accuracyReduced`` /
    /// ``SubscriptionEnd/accuracyReduced``, and later ones end at once until the accuracy
    /// authorization changes or a new session begins (``beginNewSession()``).
    /// - Complexity: O(w) for w waiting requests.
    @_specialize(exported: true, where OneShotHandler == ClosureOneShotHandler, SubscriptionHandler == ClosureSubscriptionHandler)
    public mutating func refuseTemporaryFullAccuracy(now: EngineInstant, into actions: inout [Action]) {
        let now = tick(now)
        fullAccuracyRequested = false
        guard accuracyAuthorization == .reduced else { return }
        fullAccuracyRefused = true
        holdForFullAccuracy(replace(&awaitingFullAccuracy, with: []), now: now, into: &actions)
        reconcilePower(now: now, into: &actions)
    }

    /// A new session of use begins: a refusal of temporary full accuracy no longer stands.
    public mutating func beginNewSession() {
        fullAccuracyRefused = false
    }

    /// The authorization request of this not-determined period was answered without a decision, or
    /// cannot be made (nothing declared): every request waiting for authorization ends with these
    /// statuses, and the next request asks again.
    /// - Complexity: O(w) for w waiting requests.
    @_specialize(exported: true, where OneShotHandler == ClosureOneShotHandler, SubscriptionHandler == ClosureSubscriptionHandler)
    public mutating func endAwaitingAuthorization(
        oneShotStatus: LocationStatus,
        subscriptionEnd: SubscriptionEnd,
        now: EngineInstant,
        into actions: inout [Action]
    ) {
        _ = tick(now)
        guard authorization == .notDetermined else { return }
        authorizationRequested = false
        var handlers: [Recipient<OneShotHandler>] = []
        var subscribers: [Recipient<SubscriptionHandler>] = []
        for id in replace(&awaitingAuthorization, with: []) {
            if let request = removeOneShot(id, removedFromIndex: false, removedFromDeadlines: false) {
                handlers.append(Recipient(id, request.handler))
            } else if let subscription = removeSubscription(id, removedFromDeadlines: false) {
                subscribers.append(Recipient(id, subscription.handler))
            }
        }
        if !handlers.isEmpty {
            counters.oneShotsFailed += handlers.count
            actions.append(.completeOneShots(handlers, LocationResult(status: oneShotStatus, location: nil, age: nil, achievedAccuracy: nil)))
        }
        if !subscribers.isEmpty {
            counters.subscriptionsEnded += subscribers.count
            actions.append(.notifySubscriptions(subscribers, .ended(subscriptionEnd)))
        }
        compactIfNeeded()
    }

    /// Takes every admitted request that coarsened fixes cannot serve out of the index and the power
    /// demand, returning their IDs in submission order.
    mutating func unadmitRequestsNeedingFullAccuracy() -> [RequestID] {
        let policy = configuration.reducedAccuracy
        var ids: [RequestID] = []
        oneShots.forEach { id, request in
            if request.admitted && policy.cannotSatisfy(accuracy(of: id, request)) { ids.append(id) }
        }
        for (id, subscription) in subscriptions where subscription.admitted && subscription.options.needsFullAccuracy(policy) {
            ids.append(id)
        }
        for id in ids {
            if var request = oneShots[id] {
                index.noteAbandoned()
                power.remove(powerMode(of: id, request))
                request.admitted = false
                oneShots[id] = request
            } else if var subscription = subscriptions[id] {
                if let mode = subscription.options.powerDemand { power.remove(mode) }
                subscription.admitted = false
                subscriptions[id] = subscription
            }
        }
        return ids.sorted()
    }

    /// Under reduced accuracy, for pending, unadmitted requests that coarsened fixes cannot serve: those
    /// naming a purpose key wait for temporary full accuracy (asked for once, showing the first waiting
    /// request's key; the answer applies to all of them) unless it was refused;
    /// the others end with ``LocationStatus/accuracyReduced`` (one-shots carrying the best coarsened
    /// fix) / ``SubscriptionEnd/accuracyReduced``, in two grouped actions.
    mutating func holdForFullAccuracy(_ ids: [RequestID], now: EngineInstant, into actions: inout [Action]) {
        var firstKey: String?
        var handlers: [Recipient<OneShotHandler>] = []
        var subscribers: [Recipient<SubscriptionHandler>] = []
        for id in ids {
            let key = purposeKeys[id] ?? subscriptions[id]?.options.purposeKey
            if let key, !fullAccuracyRefused, isPending(id) {
                awaitingFullAccuracy.append(id)
                if firstKey == nil { firstKey = key }
            } else if let request = removeOneShot(id, removedFromIndex: false, removedFromDeadlines: false) {
                handlers.append(Recipient(id, request.handler))
            } else if let subscription = removeSubscription(id, removedFromDeadlines: false) {
                subscribers.append(Recipient(id, subscription.handler))
            }
        }
        if let firstKey, !fullAccuracyRequested {
            fullAccuracyRequested = true
            counters.fullAccuracyRequests += 1
            actions.append(.requestTemporaryFullAccuracy(purposeKey: firstKey))
        }
        if !handlers.isEmpty {
            counters.oneShotsFailed += handlers.count
            actions.append(.completeOneShots(handlers, result(.accuracyReduced, now: now)))
        }
        if !subscribers.isEmpty {
            counters.subscriptionsEnded += subscribers.count
            actions.append(.notifySubscriptions(subscribers, .ended(.accuracyReduced)))
        }
        compactIfNeeded()
    }
}

extension SchedulerStateMachine {
    /// A one-shot request without rare options arrives: see
    /// ``submitOneShot(_:accuracy:timeout:delayUntilAuthorized:purposeKey:madeAt:handler:now:into:)``.
    ///
    /// (The full form takes no default arguments: with its exported specialization, a default argument
    /// used from another module refers to a specialized default-value symbol that Swift 6.3 does not
    /// emit, and release builds fail to link. This inlinable form fills them in at the call site.)
    @inlinable
    public mutating func submitOneShot(
        _ id: RequestID, accuracy: LocationAccuracy, timeout: Duration?, handler: consuming OneShotHandler, now: EngineInstant,
        into actions: inout [Action]
    ) {
        submitOneShot(
            id, accuracy: accuracy, timeout: timeout, delayUntilAuthorized: false, purposeKey: nil, madeAt: nil, handler: handler,
            now: now, into: &actions)
    }

    /// A one-shot request arrives (see <doc:OneShotRequests>).
    ///
    /// It completes at once from the cache when a known fix satisfies its accuracy and recency (without
    /// powering the source); is refused at once when unauthorized, shut down, invalid or naming an
    /// undeclared purpose key; under reduced accuracy, when it is finer than coarsened fixes can be, it
    /// ends with ``LocationStatus/accuracyReduced`` or (naming a purpose key) waits for temporary full
    /// accuracy; otherwise it waits for a fix, its timeout (`nil` or zero: none) or authorization.
    /// - Complexity: O(log n) with a timeout, amortised O(1) without.
    @_specialize(exported: true, where OneShotHandler == ClosureOneShotHandler, SubscriptionHandler == ClosureSubscriptionHandler)
    public mutating func submitOneShot(
        _ id: RequestID,
        accuracy: LocationAccuracy,
        timeout: Duration?,
        delayUntilAuthorized: Bool,
        purposeKey: String?,
        madeAt: EngineInstant?,
        handler: consuming OneShotHandler,
        now: EngineInstant,
        into actions: inout [Action]
    ) {
        let now = enter(now, into: &actions)
        assert(!isPending(id), "submitOneShot(\(id)): the ID is already pending")
        counters.oneShotsSubmitted += 1
        if let failure = Self.validate(accuracy: accuracy, timeout: timeout) {
            return refuse(id, handler, .rejected(reason: failure), into: &actions)
        }
        if let purposeKey, !configuration.declares(purposeKey: purposeKey) {
            return refuse(id, handler, .misconfigured(.undeclaredPurposeKey(purposeKey)), into: &actions)
        }
        if isShutDown { return refuse(id, handler, .shutDown, into: &actions) }
        if case .unauthorized(let failure) = authorization {
            return refuse(id, handler, .unauthorized(failure), into: &actions)
        }
        let timeout = timeout.flatMap { $0 > .zero ? $0 : nil }
        let start = min(madeAt ?? now, now)
        var request = OneShot(handler: handler, level: accuracy.level.map { UInt8($0.rawValue) } ?? Self.customLevel)
        if accuracy.level == nil { customAccuracies[id] = accuracy }
        // Kept while pending: an admitted request may still need it if accuracy becomes reduced.
        if let purposeKey { purposeKeys[id] = purposeKey }

        if authorization == .notDetermined {
            if let timeout {
                if delayUntilAuthorized {
                    delayedTimeouts[id] = timeout
                    request.countdown = .delayed
                } else {
                    deadlines.insert(id, timeout: timeout, from: start)
                    request.countdown = .running
                }
            }
            oneShots[id] = request
            awaitingAuthorization.append(id)
            requestAuthorizationIfNeeded(now: now, into: &actions)
            return
        }

        if let cached = history.cached(satisfying: accuracy, at: now) {
            counters.oneShotsFromCache += 1
            counters.oneShotsSucceeded += 1
            customAccuracies[id] = nil
            if purposeKey != nil { purposeKeys[id] = nil }
            let result = LocationResult(
                status: .success, location: cached.location, age: cached.age(at: now), achievedAccuracy: cached.achieved(at: now))
            actions.append(.completeOneShots([Recipient(id, request.handler)], result))
            return
        }
        if needsFullAccuracy(accuracy) {
            // Waiting for temporary full accuracy is waiting for authorization: a delayed timeout starts
            // when the answer comes.
            if let timeout {
                if delayUntilAuthorized && mayWaitForFullAccuracy(purposeKey: purposeKey) {
                    delayedTimeouts[id] = timeout
                    request.countdown = .delayed
                } else {
                    deadlines.insert(id, timeout: timeout, from: start)
                    request.countdown = .running
                }
            }
            oneShots[id] = request
            holdForFullAccuracy([id], now: now, into: &actions)
            return
        }
        if let timeout {
            deadlines.insert(id, timeout: timeout, from: start)
            request.countdown = .running
        }
        admit(id, &request)
        reconcilePower(now: now, into: &actions)
    }

    /// Cancels a one-shot request or a subscription: nothing is delivered but a ``SchedulerAction/cancelOneShot(_:)``
    /// or ``SchedulerAction/cancelSubscription(_:)`` for the owner's bookkeeping. Unknown or finished IDs are a no-op.
    /// - Complexity: O(1) amortised.
    @_specialize(exported: true, where OneShotHandler == ClosureOneShotHandler, SubscriptionHandler == ClosureSubscriptionHandler)
    public mutating func cancel(_ id: RequestID, now: EngineInstant, into actions: inout [Action]) {
        let now = tick(now)
        if let request = removeOneShot(id, removedFromIndex: false, removedFromDeadlines: false) {
            counters.oneShotsCancelled += 1
            actions.append(.cancelOneShot(request.handler))
        } else if let subscription = removeSubscription(id, removedFromDeadlines: false) {
            counters.subscriptionsCancelled += 1
            actions.append(.cancelSubscription(subscription.handler))
        } else {
            return
        }
        afterRemovals()
        reconcilePower(now: now, into: &actions)
    }

    /// Ends a request early: a one-shot gets ``LocationStatus/forceCompleted`` with the best fix known,
    /// a subscription ``SubscriptionEnd/forceCompleted``. Unknown or finished IDs are a no-op.
    /// - Complexity: O(1) amortised.
    @_specialize(exported: true, where OneShotHandler == ClosureOneShotHandler, SubscriptionHandler == ClosureSubscriptionHandler)
    public mutating func forceComplete(_ id: RequestID, now: EngineInstant, into actions: inout [Action]) {
        let now = tick(now)
        if let request = removeOneShot(id, removedFromIndex: false, removedFromDeadlines: false) {
            counters.oneShotsForceCompleted += 1
            actions.append(.completeOneShots([Recipient(id, request.handler)], result(.forceCompleted, now: now)))
        } else if let subscription = removeSubscription(id, removedFromDeadlines: false) {
            counters.subscriptionsEnded += 1
            actions.append(.notifySubscriptions([Recipient(id, subscription.handler)], .ended(.forceCompleted)))
        } else {
            return
        }
        afterRemovals()
        reconcilePower(now: now, into: &actions)
    }

    /// Removes a pending one-shot and undoes its bookkeeping; `removedFrom…` say which queue entries
    /// the caller already took out (anything left there is marked abandoned).
    mutating func removeOneShot(_ id: RequestID, removedFromIndex: Bool, removedFromDeadlines: Bool) -> OneShot? {
        guard let request = oneShots.removeValue(forKey: id) else { return nil }
        switch request.countdown {
        case .running: if !removedFromDeadlines { deadlines.noteAbandoned() }
        case .delayed: delayedTimeouts[id] = nil
        case .none: break
        }
        if request.phase.isIndexed && !removedFromIndex { index.noteAbandoned() }
        if request.phase == .admitted { power.remove(powerMode(of: id, request)) }
        if request.level == Self.customLevel { customAccuracies[id] = nil }
        if !purposeKeys.isEmpty { purposeKeys[id] = nil }
        return request
    }

    /// The owner did not hand a one-shot the result of a completion group, because a handler cancelled
    /// or force-completed it first: the counters follow what the request really got.
    public mutating func noteWithdrawn(oneShotEndedWith status: LocationStatus, cancelled: Bool) {
        switch status {
        case .success: counters.oneShotsSucceeded -= 1
        case .timedOut: counters.oneShotsTimedOut -= 1
        case .forceCompleted: counters.oneShotsForceCompleted -= 1
        default: counters.oneShotsFailed -= 1
        }
        if cancelled { counters.oneShotsCancelled += 1 } else { counters.oneShotsForceCompleted += 1 }
    }

    /// As ``noteWithdrawn(oneShotEndedWith:cancelled:)``, for a subscription's final event.
    public mutating func noteWithdrawn(subscriptionEndedCancelled cancelled: Bool) {
        if cancelled {
            counters.subscriptionsEnded -= 1
            counters.subscriptionsCancelled += 1
        }
    }

    /// Delivers a final status to a request that was never scheduled.
    mutating func refuse(_ id: RequestID, _ handler: OneShotHandler, _ status: LocationStatus, into actions: inout [Action]) {
        counters.oneShotsFailed += 1
        actions.append(.completeOneShots([Recipient(id, handler)], LocationResult(status: status, location: nil, age: nil, achievedAccuracy: nil)))
    }

    /// Emits the single authorization request of a not-determined period.
    mutating func requestAuthorizationIfNeeded(now: EngineInstant, into actions: inout [Action]) {
        guard !authorizationRequested else { return }
        authorizationRequested = true
        counters.authorizationRequests += 1
        askForAuthorization(now: now, into: &actions)
    }

    static func validate(accuracy: LocationAccuracy, timeout: Duration?) -> String? {
        if !accuracy.isValid { return "accuracy must be finite and positive with a non-negative maximum age (got \(accuracy))" }
        if let timeout, timeout < .zero { return "timeout must not be negative (got \(timeout))" }
        return nil
    }
}

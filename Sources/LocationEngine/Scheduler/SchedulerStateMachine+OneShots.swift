extension SchedulerStateMachine {
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
        now: EngineInstant
    ) {
        let now = enter(now, "submitOneShot")
        assert(!isPending(id), "submitOneShot(\(id)): the ID is already pending")
        counters.oneShotsSubmitted += 1
        if let withdrawal = endIfWithdrawnAhead(id) { return redirect(Recipient(id, handler), withdrawal) }
        if let failure = Self.validate(accuracy: accuracy, timeout: timeout) {
            return refuse(id, handler, .rejected(reason: failure))
        }
        if let purposeKey, !configuration.declares(purposeKey: purposeKey) {
            return refuse(id, handler, .misconfigured(.undeclaredPurposeKey(purposeKey)))
        }
        if isShutDown { return refuse(id, handler, .shutDown) }
        if case .unauthorized(let failure) = authorization {
            return refuse(id, handler, .unauthorized(failure))
        }
        let timeout = timeout.flatMap { $0 > .zero ? $0 : nil }
        let start = min(madeAt ?? now, now)
        // The purpose key is kept while pending: an admitted request may still need it if accuracy
        // becomes reduced. The timeout is kept for a countdown that may wait for authorization.
        var request = OneShot(
            handler: handler,
            wish: OneShotWish(accuracy: accuracy, purposeKey: purposeKey, delayedTimeout: delayUntilAuthorized ? timeout : nil))

        if authorization == .notDetermined {
            if let timeout {
                if delayUntilAuthorized {
                    request.countdown = .delayed
                } else {
                    requests.deadlines.insert(id, timeout: timeout, from: start)
                    request.countdown = .running
                }
            }
            requests.oneShots[id] = request
            access.awaitingAuthorization.append(id)
            requestAuthorizationIfNeeded(now: now)
            return
        }

        if let cached = history.cached(satisfying: accuracy, at: now) {
            counters.oneShotsFromCache += 1
            let result = LocationResult(
                status: .success, location: cached.location, age: cached.age(at: now), achievedAccuracy: cached.achieved(at: now))
            emitOneShots([Recipient(id, request.handler)], result, .succeeded)
            return
        }
        if needsFullAccuracy(accuracy) {
            // Waiting for temporary full accuracy is waiting for authorization: a delayed timeout starts
            // when the answer comes.
            if let timeout {
                if delayUntilAuthorized && mayWaitForFullAccuracy(purposeKey: purposeKey) {
                    request.countdown = .delayed
                } else {
                    requests.deadlines.insert(id, timeout: timeout, from: start)
                    request.countdown = .running
                }
            }
            requests.oneShots[id] = request
            holdForFullAccuracy([id], now: now)
            return
        }
        if let timeout {
            requests.deadlines.insert(id, timeout: timeout, from: start)
            request.countdown = .running
        }
        admit(id, &request)
        reconcilePower(now: now)
    }

    /// Removes a pending one-shot and its share of the power demand. Its entries in the deadline queue
    /// and the index, if any, stay behind until they are reached or compacted away.
    mutating func removeOneShot(_ id: RequestID) -> OneShot? {
        guard let request = requests.oneShots.removeValue(forKey: id) else { return nil }
        if request.phase == .admitted { power.remove(request.wish.powerMode) }
        return request
    }

    /// Delivers a final status to a request that was never scheduled.
    mutating func refuse(_ id: RequestID, _ handler: OneShotHandler, _ status: LocationStatus) {
        emitOneShots([Recipient(id, handler)], LocationResult(status: status, location: nil, age: nil, achievedAccuracy: nil), .failed)
    }

    /// Emits the single authorization request of a not-determined period.
    mutating func requestAuthorizationIfNeeded(now: EngineInstant) {
        guard !access.authorizationRequested else { return }
        access.authorizationRequested = true
        counters.authorizationRequests += 1
        askForAuthorization(now: now)
    }

    static func validate(accuracy: LocationAccuracy, timeout: Duration?) -> String? {
        if !accuracy.isValid { return "accuracy must be finite and positive with a non-negative maximum age (got \(accuracy))" }
        if let timeout, timeout < .zero { return "timeout must not be negative (got \(timeout))" }
        return nil
    }
}

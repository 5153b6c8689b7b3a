extension SchedulerStateMachine {
    /// The source reports a fix that was `age` old on arrival.
    ///
    /// Deadlines due at `now` expire *first*, so a fix arriving after a request's deadline never turns
    /// it into a success (see <doc:OneShotRequests>). Under reduced accuracy the fix is throttled and coarsened
    /// (``ReducedAccuracyPolicy``) before it is remembered or delivered. Then every one-shot whose accuracy and recency the fix meets
    /// completes with it, and subscriptions get it through their filters. Invalid fixes (non-finite or
    /// out-of-range values) are counted and dropped.
    /// - Complexity: O(s + e log L) for s subscriptions, e expired deadlines over L deadline lanes; the
    ///   one-shots it completes cost O(1) each as they are handed out (``nextOneShot()``).
    @_specialize(exported: true, where OneShotHandler == ClosureOneShotHandler, SubscriptionHandler == ClosureSubscriptionHandler)
    public mutating func receiveFix(_ location: Location, age: Duration, now: EngineInstant) {
        let now = enter(now, "receiveFix")
        expireDeadlines(now: now)
        guard authorization == .authorized, !isShutDown else { return }
        counters.fixesReceived += 1
        guard location.isValid, age >= .zero else {
            counters.invalidFixes += 1
            emit(.fixProcessed(accepted: false))
            return
        }
        var location = location
        if accuracyAuthorization == .reduced {
            if let last = access.lastCoarseFixAt, now - last < configuration.reducedAccuracy.minimumInterval {
                counters.fixesThrottled += 1
                emit(.fixProcessed(accepted: false))
                return
            }
            access.lastCoarseFixAt = now
            location = configuration.reducedAccuracy.coarsen(location)
        }
        let fix = StampedFix(location: location, observedAt: now - age)
        history.record(fix)
        emit(.fixProcessed(accepted: true))
        completeOneShots(with: fix, now: now)
        fanOut(fix, now: now)
        evaluateRegions(fix, now: now)
        afterRemovals()
        reconcilePower(now: now)
    }

    /// The source reports a temporary failure: one-shots keep waiting, subscriptions are told and keep running.
    /// - Complexity: O(s) for s subscriptions.
    public mutating func receiveTransientError(_ error: SourceError, now: EngineInstant) {
        let now = enter(now, "receiveTransientError")
        expireDeadlines(now: now)
        counters.transientErrors += 1
        let handlers = requests.subscriptions.lazy.filter { $0.value.phase == .admitted }.map { Recipient($0.key, $0.value.handler) }
        emitSubscribers(Array(handlers), .sourceError(error))
    }

    /// The source is gone for good: every request it was serving ends with the error, and the source is
    /// powered down (requests still waiting for authorization or temporary full accuracy keep waiting).
    /// Later requests start it afresh (no sticky failure flag).
    /// - Complexity: O(n).
    public mutating func receiveFatalError(_ error: SourceError, now: EngineInstant) {
        let now = enter(now, "receiveFatalError")
        expireDeadlines(now: now)
        counters.fatalErrors += 1
        endEverything(oneShotStatus: .failed(error), subscriptionEnd: .failed(error), onlyAdmitted: true, now: now)
        forceSourceOff(now: now)
    }

    /// Time passes, if anything falls due by `now` (``nextWakeup``): then as ``advanceTime(now:)``.
    /// Returns whether it did.
    ///
    /// The owner's check between two commands. Reading ``nextWakeup`` from outside (through an actor's
    /// stored property) makes the optimizer copy the whole state machine, retaining every buffer, so
    /// that the next change to a buffer copies it; inside a mutating call nothing is copied. For the
    /// same reason it is not inlined into the owner's loop, and the planners' getters it reads are
    /// inlined into it: otherwise the planners are copied to call them (a few hundred bytes per command).
    @discardableResult
    @inline(never)
    mutating func advanceTimeIfDue(now: EngineInstant) -> Bool {
        guard let next = nextWakeup, next <= now else { return false }
        advanceTime(now: now)
        return true
    }

    /// Time passes: applies the authorization changes scheduled by `now` (each at its own instant,
    /// after the deadlines due before it), expires due deadlines (timeouts, subscription durations)
    /// and ends the linger. It may come while earlier actions are being carried out (between two
    /// slices of a large delivery): what it decides is queued behind them, and the rest of a large
    /// delivery gives way to it after the slice in progress.
    /// - Complexity: O(e log L) for e expired deadlines over L deadline lanes.
    @_specialize(exported: true, where OneShotHandler == ClosureOneShotHandler, SubscriptionHandler == ClosureSubscriptionHandler)
    public mutating func advanceTime(now: EngineInstant) {
        let now = tick(now)
        delivery.outbox.beginEvent()
        applyDueAuthorizationChanges(upTo: now)
        expireDeadlines(now: now)
        advanceRegions(now: now)
        reconcilePower(now: now)
    }

    /// Expires every deadline due at `now`; one-shots expiring together share one result.
    mutating func expireDeadlines(now: EngineInstant) {
        guard let earliest = requests.deadlines.earliest, earliest <= now else { return }
        var timedOut: [Recipient<OneShotHandler>] = []
        var elapsed: [Recipient<SubscriptionHandler>] = []
        while let id = requests.deadlines.popDue(at: now) {
            // A request that the fix being completed satisfies succeeded when the fix arrived, before
            // this deadline: it stays for the fix's delivery, its countdown over.
            if delivery.fixCompletion != nil, var request = requests.oneShots[id], fixCompletionCovers(id, request) {
                request.countdown = .none
                requests.oneShots[id] = request
            } else if let request = removeOneShot(id) {
                timedOut.append(Recipient(id, request.handler))
            } else if let subscription = removeSubscription(id) {
                elapsed.append(Recipient(id, subscription.handler))
            }
        }
        if !timedOut.isEmpty { emit(.timeoutsExpired(earliestDeadline: earliest)) }
        deliverEnds(timedOut, result(.timedOut, now: now), .timedOut, elapsed, .durationElapsed)
        reconcilePower(now: now)
    }

    /// The picture's access (its gate) changed from `previous` (see <doc:AuthorizationAndPrivacy>).
    ///
    /// - authorized: waiting requests are admitted (under reduced accuracy, those needing full accuracy
    ///   are held for it or end), delayed timeouts start now;
    /// - not determined (a one-time grant lapsed): pending requests end with
    ///   ``AuthorizationFailure/lapsed``, the fix history is forgotten, new requests wait again and the
    ///   next one asks for authorization once;
    /// - unauthorized: every request ends with that status, the source is powered down, and the
    ///   fix history is forgotten so nothing precise leaks later.
    ///
    /// Whenever access is lost the source is powered down at once, without lingering.
    /// - Complexity: O(w log n) for w waiting requests; O(n) on revocation.
    mutating func accessChanged(from previous: AuthorizationGate, now: EngineInstant) {
        let gate = authorization
        guard gate != previous else { return }
        switch gate {
        case .authorized:
            access.authorizationRequested = false
            admitWaitingRequests(now: now)
        case .notDetermined:
            access.authorizationRequested = false
            if previous == .authorized {
                history.removeAll()
                endEverything(oneShotStatus: .unauthorized(.lapsed), subscriptionEnd: .unauthorized(.lapsed), onlyAdmitted: false, now: now)
            }
        case .unauthorized(let failure):
            access.authorizationRequested = false
            history.removeAll()
            endEverything(oneShotStatus: .unauthorized(failure), subscriptionEnd: .unauthorized(failure), onlyAdmitted: false, now: now)
        }
        // Access lost: the receiver goes off at once, without lingering.
        if gate != .authorized { forceSourceOff(now: now) }
        reconcilePower(now: now)
    }

    /// Ends every request with `.shutDown` and refuses new ones.
    /// - Complexity: O(n).
    public mutating func shutdown(now: EngineInstant) {
        let now = enter(now, "shutdown")
        guard !isShutDown else { return }
        isShutDown = true
        access.timeline.close()
        endEverything(oneShotStatus: .shutDown, subscriptionEnd: .shutDown, onlyAdmitted: false, now: now)
        forceSourceOff(now: now)
    }
}

extension SchedulerStateMachine {
    /// Admits every request that waited for authorization; delayed timeouts start now. Under reduced
    /// accuracy, those needing full accuracy are held for it (or end) instead; a delayed timeout of one
    /// that goes on waiting, for temporary full accuracy, starts when that is answered.
    mutating func admitWaitingRequests(now: EngineInstant) {
        var needingFullAccuracy: [RequestID] = []
        for id in replace(&access.awaitingAuthorization, with: []) {
            if var request = requests.oneShots[id], request.phase != .admitted {
                let needsFull = needsFullAccuracy(request.wish.accuracy)
                if !(needsFull && mayWaitForFullAccuracy(purposeKey: request.wish.purposeKey)) {
                    startDelayedTimeout(id, &request, now: now)
                }
                if needsFull {
                    requests.oneShots[id] = request
                    needingFullAccuracy.append(id)
                } else {
                    admit(id, &request)
                }
            } else if var subscription = requests.subscriptions[id], subscription.phase != .admitted {
                if needsFullAccuracy(subscription.options) {
                    needingFullAccuracy.append(id)
                } else {
                    admit(id, &subscription)
                }
            }
        }
        if !needingFullAccuracy.isEmpty { holdForFullAccuracy(needingFullAccuracy, now: now) }
    }

    /// Lets a one-shot complete: counted in power demand, in the accuracy index (once), stored.
    mutating func admit(_ id: RequestID, _ request: inout OneShot) {
        let accuracy = request.wish.accuracy
        if !request.phase.isIndexed { requests.index.insert(id, accuracy: accuracy) }
        request.phase = .admitted
        requests.oneShots[id] = request
        power.add(accuracy.requiredPowerMode)
    }

    /// Lets a subscription receive fixes: counted in power demand, stored.
    mutating func admit(_ id: RequestID, _ subscription: inout Subscription) {
        subscription.phase = .admitted
        if !geofences.waiting.isEmpty { admitRegion(id, &subscription) }
        requests.subscriptions[id] = subscription
        if let mode = subscription.options.powerDemand { power.add(mode) }
    }

    /// Starts the timeout that waited for authorization, if the request has one.
    mutating func startDelayedTimeout(_ id: RequestID, _ request: inout OneShot, now: EngineInstant) {
        guard request.countdown == .delayed, let timeout = request.wish.delayedTimeout else { return }
        requests.deadlines.insert(id, timeout: timeout, from: now)
        request.countdown = .running
    }

    /// Ends every pending request (only those admitted to the source, if `onlyAdmitted`), one-shots with
    /// the best fix known, in two grouped actions.
    mutating func endEverything(
        oneShotStatus: LocationStatus,
        subscriptionEnd: SubscriptionEnd,
        onlyAdmitted: Bool,
        now: EngineInstant
    ) {
        var ids: [RequestID] = []
        requests.oneShots.forEach { id, request in if !onlyAdmitted || request.phase == .admitted { ids.append(id) } }
        ids.sort()
        ids += requests.subscriptions.lazy.filter { !onlyAdmitted || $0.value.phase == .admitted }.map(\.key).sorted()
        if !onlyAdmitted {
            access.awaitingAuthorization.removeAll()
            access.awaitingFullAccuracy.removeAll()
            if access.temporaryFullAccuracy == .asked { access.temporaryFullAccuracy = .notAsked }
        }
        end(ids, oneShotStatus: oneShotStatus, subscriptionEnd: subscriptionEnd, now: now)
    }

    /// Ends these requests (those still pending), one-shots with `oneShotStatus` and the best fix known,
    /// subscriptions with `subscriptionEnd`, in two grouped actions.
    mutating func end(
        _ ids: [RequestID], oneShotStatus: LocationStatus, subscriptionEnd: SubscriptionEnd, now: EngineInstant
    ) {
        var handlers: [Recipient<OneShotHandler>] = []
        var subscribers: [Recipient<SubscriptionHandler>] = []
        for id in ids {
            if let request = removeOneShot(id) {
                handlers.append(Recipient(id, request.handler))
            } else if let subscription = removeSubscription(id) {
                subscribers.append(Recipient(id, subscription.handler))
            }
        }
        deliverEnds(handlers, result(oneShotStatus, now: now), .failed, subscribers, subscriptionEnd)
    }

    /// Queues the grouped final deliveries of already removed requests, counted under `tally` as they
    /// are handed out (`result` is O(1) to build, so callers build it even when no one-shot ends).
    mutating func deliverEnds(
        _ handlers: [Recipient<OneShotHandler>], _ result: LocationResult, _ tally: OneShotTally,
        _ subscribers: [Recipient<SubscriptionHandler>], _ end: SubscriptionEnd
    ) {
        emitOneShots(handlers, result, tally)
        emitSubscribers(subscribers, .ended(end))
        afterRemovals()
    }
}

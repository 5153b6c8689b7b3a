extension SchedulerStateMachine.Requests {
    /// Where a request that arrived stands.
    enum Placement {
        /// It waits for authorization (not determined yet): the period's one request for it is due.
        case awaitingAuthorization
        /// Under reduced accuracy, coarsened fixes cannot serve it: it waits for temporary full accuracy
        /// or ends (``holdForFullAccuracy(_:mayWait:)``).
        case needingFullAccuracy
        /// It is admitted: in the demand (and a one-shot in the index).
        case admitted
    }

    /// A one-shot arrives under `gate` and `rules` (not from the cache): it waits or is admitted, and its
    /// timeout starts from `start` unless it is to wait for access to start (`delayUntilAuthorized`).
    /// - Complexity: amortised O(1), O(log n) with a timeout.
    mutating func place(
        _ id: RequestID, _ request: consuming OneShot, timeout: Duration?, from start: EngineInstant, delayUntilAuthorized: Bool,
        gate: AuthorizationGate, rules: AccuracyRules
    ) -> Placement {
        var request = request
        let placement: Placement =
            gate == .notDetermined ? .awaitingAuthorization : rules.needsFullAccuracy(request.wish) ? .needingFullAccuracy : .admitted
        if let timeout {
            // Waiting for temporary full accuracy is waiting for authorization: a delayed timeout starts
            // when the answer comes.
            let awaitsAccess =
                switch placement {
                case .awaitingAuthorization: delayUntilAuthorized
                case .needingFullAccuracy: delayUntilAuthorized && rules.mayWaitForFullAccuracy(purposeKey: request.wish.purposeKey)
                case .admitted: false
                }
            if awaitsAccess { request.wish = request.wish.awaitingAccess(timeout) } else { deadlines.insert(id, timeout: timeout, from: start) }
        }
        switch placement {
        case .awaitingAuthorization:
            request.phase = .awaitingAuthorization
            store(id, request)
            awaitingAuthorization.append(id)
        case .needingFullAccuracy:
            request.phase = .awaitingFullAccuracy
            store(id, request)
        case .admitted:
            admit(id, &request)
        }
        return placement
    }

    /// A subscription, made at `start`, arrives under `gate` and `rules`: it waits or is admitted; its
    /// duration, if it has one, counts from `start`.
    /// - Complexity: amortised O(1), O(log n) with a duration.
    mutating func place(
        _ id: RequestID, _ subscription: consuming Subscription, from start: EngineInstant, gate: AuthorizationGate, rules: AccuracyRules
    ) -> Placement {
        var subscription = subscription
        if let duration = subscription.options.duration { deadlines.insert(id, timeout: duration, from: start) }
        if gate == .notDetermined {
            subscription.phase = .awaitingAuthorization
            store(id, subscription)
            awaitingAuthorization.append(id)
            return .awaitingAuthorization
        }
        if rules.needsFullAccuracy(subscription.options) {
            subscription.phase = .awaitingFullAccuracy
            store(id, subscription)
            return .needingFullAccuracy
        }
        admit(id, &subscription)
        return .admitted
    }

    /// A monitor arrives under `gate`: it waits for authorization or is admitted (coarsened fixes serve
    /// it, and it adds no demand of its own).
    /// - Complexity: amortised O(1)
    mutating func place(_ id: RequestID, _ handler: consuming MonitorHandler, gate: AuthorizationGate) -> Placement {
        if gate == .notDetermined {
            store(id, Monitor(handler: handler, phase: .awaitingAuthorization))
            awaitingAuthorization.append(id)
            return .awaitingAuthorization
        }
        store(id, Monitor(handler: handler, phase: .admitted))
        return .admitted
    }

    /// What admitting waiting requests came to: those that need full accuracy instead (in order), and
    /// the monitors admitted (whose regions join the evaluator).
    struct Admitted {
        var needingFullAccuracy: [RequestID] = []
        var monitors: [RequestID] = []
    }

    /// Authorization was granted: every request waiting for it is admitted and its delayed timeout starts
    /// now — but for those that coarsened fixes cannot serve (`rules`), which are returned; a delayed
    /// timeout of one that may go on waiting, for temporary full accuracy, starts when that is answered.
    /// - Complexity: O(w) for w waiting requests.
    mutating func admitAwaitingAuthorization(rules: AccuracyRules, now: EngineInstant) -> Admitted {
        var admitted = Admitted()
        for id in replace(&awaitingAuthorization, with: []) {
            if var request = oneShot(id), request.phase == .awaitingAuthorization {
                let needsFull = rules.needsFullAccuracy(request.wish)
                if !(needsFull && rules.mayWaitForFullAccuracy(purposeKey: request.wish.purposeKey)) {
                    startDelayedTimeout(id, &request, now: now)
                }
                if needsFull {
                    request.phase = .awaitingFullAccuracy
                    store(id, request)
                    admitted.needingFullAccuracy.append(id)
                } else {
                    admit(id, &request)
                }
            } else if var subscription = subscriptions[id], subscription.phase == .awaitingAuthorization {
                if rules.needsFullAccuracy(subscription.options) {
                    subscription.phase = .awaitingFullAccuracy
                    store(id, subscription)
                    admitted.needingFullAccuracy.append(id)
                } else {
                    admit(id, &subscription)
                }
            } else if var monitor = monitor(id), monitor.phase == .awaitingAuthorization {
                monitor.phase = .admitted
                store(id, monitor)
                admitted.monitors.append(id)
            }
        }
        return admitted
    }

    /// Full accuracy came back: every request waiting for it is admitted, delayed timeouts start now.
    /// (A monitor never waits for it.)
    /// - Complexity: O(w) for w waiting requests.
    mutating func admitAwaitingFullAccuracy(now: EngineInstant) {
        for id in replace(&awaitingFullAccuracy, with: []) {
            if var request = oneShot(id), request.phase.awaitsFullAccuracy {
                startDelayedTimeout(id, &request, now: now)
                admit(id, &request)
            } else if var subscription = subscriptions[id], subscription.phase.awaitsFullAccuracy {
                admit(id, &subscription)
            }
        }
    }

    /// Accuracy became reduced: takes every admitted request that coarsened fixes cannot serve (`rules`)
    /// out of the demand and holds it; one-shots keep their index entry (no coarsened fix can reach it).
    /// Returns their IDs in submission order.
    /// - Complexity: O(n log n)
    mutating func holdUnservable(rules: AccuracyRules) -> [RequestID] {
        var ids: [RequestID] = []
        table.forEach { id, entry in
            if case .oneShot(let request) = entry, request.phase == .admitted && rules.needsFullAccuracy(request.wish) { ids.append(id) }
        }
        for (id, subscription) in subscriptions where subscription.phase == .admitted && rules.needsFullAccuracy(subscription.options) {
            ids.append(id)
        }
        for id in ids {
            if var request = oneShot(id) {
                demand.removeOneShot(request.wish.powerMode)
                request.phase = .held
                store(id, request)
            } else if var subscription = subscriptions[id] {
                if let mode = subscription.options.powerDemand { demand.remove(mode, course: subscription.options.wantsCourse) }
                subscription.phase = .held
                store(id, subscription)
            }
        }
        return ids.sorted()
    }

    /// Pending, unadmitted requests that coarsened fixes cannot serve: those naming a purpose key wait for
    /// temporary full accuracy when `mayWait`; returns the first such key (the one a prompt shows) and
    /// the others, which must end.
    /// - Complexity: O(k) for k IDs.
    mutating func holdForFullAccuracy(_ ids: [RequestID], mayWait: Bool) -> (firstKey: String?, ending: [RequestID]) {
        var firstKey: String?
        var ending: [RequestID] = []
        for id in ids {
            if mayWait, let key = oneShot(id)?.wish.purposeKey ?? subscriptions[id]?.options.purposeKey {
                awaitingFullAccuracy.append(id)
                if firstKey == nil { firstKey = key }
            } else {
                ending.append(id)
            }
        }
        return (firstKey, ending)
    }

    /// Starts the timeout of a one-shot that waited for access to start it, if it has one: it leaves
    /// the wish for the deadlines.
    private mutating func startDelayedTimeout(_ id: RequestID, _ request: inout OneShot, now: EngineInstant) {
        guard let timeout = request.wish.timeoutAwaitingAccess else { return }
        deadlines.insert(id, timeout: timeout, from: now)
        request.wish = request.wish.awaitingAccess(nil)
    }
}

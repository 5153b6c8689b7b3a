extension SchedulerStateMachine {
    /// The picture's accuracy authorization changed from `previous` (see <doc:AuthorizationAndPrivacy>).
    ///
    /// - reduced: the remembered fixes are coarsened, so nothing precise is delivered from the cache;
    ///   admitted requests that coarsened fixes cannot serve wait for temporary full accuracy (when they
    ///   name a purpose key) or end with ``LocationStatus/accuracyReduced``; the source drops to its
    ///   cheapest mode;
    /// - full: requests waiting for full accuracy are admitted.
    ///
    /// Either way, a refusal of temporary full accuracy is forgotten: the next request may ask again.
    ///
    /// - Parameters:
    ///   - previous: the accuracy authorization before the change.
    ///   - askingForFullAccuracy: `false` when the reduction must not prompt at once (temporary full
    ///     accuracy reverting at the end of a session): requests needing full accuracy then end.
    ///   - now: the current instant.
    /// - Complexity: O(n log n) to reduced, O(w) to full for w waiting requests.
    mutating func accuracyChanged(from previous: AccuracyAuthorization, askingForFullAccuracy: Bool, now: EngineInstant) {
        guard accuracyAuthorization != previous else { return }
        access.temporaryFullAccuracy = .notAsked
        switch accuracyAuthorization {
        case .reduced:
            access.lastCoarseFixAt = nil
            history.coarsen(with: configuration.reducedAccuracy)
            holdForFullAccuracy(unadmitRequestsNeedingFullAccuracy(), mayWait: askingForFullAccuracy, now: now)
        case .full:
            for id in replace(&access.awaitingFullAccuracy, with: []) {
                if var request = requests.oneShots[id], request.phase != .admitted {
                    startDelayedTimeout(id, &request, now: now)
                    admit(id, &request)
                } else if var subscription = requests.subscriptions[id], subscription.phase != .admitted {
                    admit(id, &subscription)
                }
            }
        }
        reconcilePower(now: now)
    }

    /// The provider answered a temporary-full-accuracy request and accuracy is still reduced: every
    /// request waiting for it ends with ``LocationStatus/accuracyReduced`` /
    /// ``SubscriptionEnd/accuracyReduced``, and later ones end at once until the accuracy
    /// authorization changes or a new session begins (``beginNewSession()``).
    /// - Complexity: O(w) for w waiting requests.
    mutating func refuseTemporaryFullAccuracy(now: EngineInstant) {
        guard accuracyAuthorization == .reduced else {
            access.temporaryFullAccuracy = .notAsked
            return
        }
        access.temporaryFullAccuracy = .refused
        holdForFullAccuracy(replace(&access.awaitingFullAccuracy, with: []), now: now)
        reconcilePower(now: now)
    }

    /// A new session of use begins: a refusal of temporary full accuracy no longer stands.
    mutating func beginNewSession() {
        if access.temporaryFullAccuracy == .refused { access.temporaryFullAccuracy = .notAsked }
    }

    /// The authorization request of this not-determined period was answered without a decision, or
    /// cannot be made (nothing declared): every request waiting for authorization ends with these
    /// statuses, and the next request asks again.
    /// - Complexity: O(w) for w waiting requests.
    mutating func endAwaitingAuthorization(
        oneShotStatus: LocationStatus,
        subscriptionEnd: SubscriptionEnd,
        now: EngineInstant
    ) {
        let now = tick(now)
        guard authorization == .notDetermined else { return }
        access.authorizationRequested = false
        // Not authorized: the one-shots' result carries no fix.
        end(replace(&access.awaitingAuthorization, with: []), oneShotStatus: oneShotStatus, subscriptionEnd: subscriptionEnd, now: now)
    }

    /// Whether coarsened fixes can never satisfy a one-shot of this accuracy now.
    func needsFullAccuracy(_ accuracy: LocationAccuracy) -> Bool {
        accuracyAuthorization == .reduced && configuration.reducedAccuracy.cannotSatisfy(accuracy)
    }

    /// Whether coarsened fixes can never serve a subscription with these options now.
    func needsFullAccuracy(_ options: SubscriptionOptions) -> Bool {
        accuracyAuthorization == .reduced && options.needsFullAccuracy(configuration.reducedAccuracy)
    }

    /// Whether a request naming `purposeKey` would wait for temporary full accuracy rather than end.
    func mayWaitForFullAccuracy(purposeKey: String?) -> Bool {
        purposeKey != nil && access.temporaryFullAccuracy != .refused
    }

    /// Takes every admitted request that coarsened fixes cannot serve out of the power demand (one-shots
    /// keep their index entry: no coarse fix can reach it), returning their IDs in submission order.
    mutating func unadmitRequestsNeedingFullAccuracy() -> [RequestID] {
        var ids: [RequestID] = []
        requests.oneShots.forEach { id, request in
            if request.phase == .admitted && needsFullAccuracy(request.wish.accuracy) { ids.append(id) }
        }
        for (id, subscription) in requests.subscriptions where subscription.phase == .admitted && needsFullAccuracy(subscription.options) {
            ids.append(id)
        }
        for id in ids {
            if var request = requests.oneShots[id] {
                power.remove(request.wish.powerMode)
                request.phase = .held
                requests.oneShots[id] = request
            } else if var subscription = requests.subscriptions[id] {
                if let mode = subscription.options.powerDemand { power.remove(mode) }
                subscription.phase = .held
                requests.subscriptions[id] = subscription
            }
        }
        return ids.sorted()
    }

    /// Under reduced accuracy, for pending, unadmitted requests that coarsened fixes cannot serve: those
    /// naming a purpose key wait for temporary full accuracy (asked for once, showing the first waiting
    /// request's key; the answer applies to all of them) when `mayWait` (by default: unless it was
    /// refused); the others end with ``LocationStatus/accuracyReduced`` (one-shots carrying the best
    /// coarsened fix) / ``SubscriptionEnd/accuracyReduced``.
    mutating func holdForFullAccuracy(_ ids: [RequestID], mayWait: Bool? = nil, now: EngineInstant) {
        let mayWait = mayWait ?? (access.temporaryFullAccuracy != .refused)
        var firstKey: String?
        var ending: [RequestID] = []
        for id in ids {
            if mayWait, let key = requests.oneShots[id]?.wish.purposeKey ?? requests.subscriptions[id]?.options.purposeKey {
                access.awaitingFullAccuracy.append(id)
                if firstKey == nil { firstKey = key }
            } else {
                ending.append(id)
            }
        }
        if let firstKey, access.temporaryFullAccuracy != .asked {
            access.temporaryFullAccuracy = .asked
            counters.fullAccuracyRequests += 1
            askForTemporaryFullAccuracy(firstKey)
        }
        end(ending, oneShotStatus: .accuracyReduced, subscriptionEnd: .accuracyReduced, now: now)
    }
}

extension SchedulerStateMachine {
    /// The owner's answer type when it reaches a recipient.
    public typealias Reach = Reaching<OneShotHandler, SubscriptionHandler, MonitorHandler>

    /// Whether an event decided mid-delivery (``Moment/midDelivery``) may have overtaken a recipient
    /// still ahead of the owner: then ask ``reached(oneShot:receiving:)``,
    /// ``reached(subscriber:receiving:)`` or ``reached(monitor:receiving:)`` before each delivery.
    /// Forgotten at the next event between events.
    /// - Complexity: O(1)
    @inline(__always)
    public var hasOvertaken: Bool { delivery.hasOvertaken }

    /// The owner reached `recipient` with `result` decided for it. A withdrawal that overtook it
    /// mid-delivery takes effect instead — unless the decided ending was itself a withdrawal's (the first
    /// withdrawal made is the one that takes effect); the counters follow. After accuracy became reduced
    /// mid-delivery, a precise fix in the result is coarsened; after access was lost, a success becomes the
    /// ending the loss gave the one-shots it found pending, and any other ending loses its fix.
    /// - Complexity: O(1)
    public mutating func reached(oneShot recipient: Recipient<OneShotHandler>, receiving result: LocationResult) -> Reach {
        guard result.status != .forceCompleted, let withdrawal = delivery.takeWithdrawal(overtaking: recipient.id) else {
            if let status = delivery.accessLostMidDelivery, result.location != nil {
                // A success decided with access ends as the loss ended the pending; another ending stays what it
                // was (a timeout, a force-completion made before), without its fix.
                guard result.status == .success else {
                    return .instead(.completeOneShots([recipient], LocationResult(status: result.status, location: nil, age: nil, achievedAccuracy: nil)))
                }
                delivery.counts.count(.succeeded, -1)
                delivery.counts.count(OneShotTally(status))
                return .instead(.completeOneShots([recipient], LocationResult(status: status, location: nil, age: nil, achievedAccuracy: nil)))
            }
            guard let policy = delivery.reducedMidDelivery, let location = result.location, !policy.isCoarse(location) else { return .asDecided }
            return .instead(.completeOneShots([recipient], policy.coarsened(result)))
        }
        delivery.counts.count(OneShotTally(result.status), -1)
        switch withdrawal {
        case .cancel:
            delivery.counts.oneShotsCancelled += 1
            return .instead(.cancelOneShot(recipient))
        case .forceComplete:
            delivery.counts.oneShotsForceCompleted += 1
            return .instead(.completeOneShots([recipient], access.result(.forceCompleted, now: latestNow)))
        }
    }

    /// The owner reached `recipient` with `event` decided for it. An update or notice skips a
    /// subscription that ended or was withdrawn since; an ending that a withdrawal overtook becomes the
    /// withdrawal's, as for one-shots. After accuracy became reduced mid-delivery, a precise location update
    /// is coarsened and a heading skipped (a course is finer than any grid); after access was lost, both are
    /// skipped.
    /// - Complexity: O(1)
    public mutating func reached(subscriber recipient: Recipient<SubscriptionHandler>, receiving event: SubscriptionEvent) -> Reach {
        guard case .ended(let end) = event else {
            let isUpdate = switch event {
            case .location, .heading: true
            case .sourceError, .ended: false
            }
            if !delivery.hasEndedMidDelivery(recipient.id), !(isUpdate && delivery.accessLostMidDelivery != nil) {
                guard let policy = delivery.reducedMidDelivery else { return .asDecided }
                switch event {
                case .location(let update) where !policy.isCoarse(update.location):
                    return .instead(.notifySubscriptions([recipient], .location(policy.coarsened(update))))
                case .heading: break
                case .location, .sourceError, .ended: return .asDecided
                }
            }
            if isUpdate { delivery.counts.subscriptionUpdates -= 1 }
            return .skip
        }
        switch delivery.takeWithdrawal(overtaking: end, of: recipient.id) {
        case nil: return .asDecided
        case .cancel?: return .instead(.cancelSubscription(recipient))
        case .forceComplete?: return .instead(.notifySubscriptions([recipient], .ended(.forceCompleted)))
        }
    }

    /// The owner reached a monitor with `event` decided for it. A transition or source error skips a
    /// monitor that ended or was withdrawn since; an ending that a withdrawal overtook becomes the
    /// withdrawal's, as for subscriptions.
    /// - Complexity: O(1)
    public mutating func reached(monitor recipient: Recipient<MonitorHandler>, receiving event: RegionEvent) -> Reach {
        guard case .ended(let end) = event else { return delivery.hasEndedMidDelivery(recipient.id) ? .skip : .asDecided }
        switch delivery.takeWithdrawal(overtaking: end, of: recipient.id) {
        case nil: return .asDecided
        case .cancel?: return .instead(.cancelMonitor(recipient))
        case .forceComplete?: return .instead(.notifyMonitors([recipient], .ended(.forceCompleted)))
        }
    }
}

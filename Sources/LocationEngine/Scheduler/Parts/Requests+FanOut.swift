extension SchedulerStateMachine.Requests {
    /// Who a fix reaches among the subscriptions: the recipients of its updates in submission order, in runs
    /// of one kind (a location update or a heading update), and the subscriptions it brought to their maximum
    /// number of updates (already removed: they get the update, then their end).
    struct FanOut {
        /// Recipients next to each other in submission order that hear the same kind of update: one delivery.
        struct Run {
            /// Whether they hear the fix's heading rather than its location.
            var heading: Bool
            var recipients: [Recipient<SubscriptionHandler>]
        }

        /// The runs, in submission order (one run while every subscription reached wants locations).
        var runs: [Run] = []
        var exhausted: [Recipient<SubscriptionHandler>] = []

        /// Adds `recipient` after those already reached.
        /// - Complexity: amortised O(1)
        @inline(__always)
        mutating func append(_ recipient: Recipient<SubscriptionHandler>, heading: Bool) {
            if let last = runs.indices.last, runs[last].heading == heading {
                runs[last].recipients.append(recipient)
            } else {
                runs.append(Run(heading: heading, recipients: [recipient]))
            }
        }
    }

    /// Offers `fix` to every admitted subscription through its filters, in submission order, records
    /// the delivery in those it passes, and removes those it exhausts. `coarsened` says whether the fix is
    /// a cell centre of `grid` (accuracy is reduced); `headingsOnly`, that only heading subscriptions hear it
    /// (a fix kept out of the position that carries the only course).
    /// - Complexity: O(s) for s subscriptions.
    mutating func offer(
        _ fix: StampedFix, coarsened: Bool = false, grid: ReducedAccuracyPolicy = ReducedAccuracyPolicy(), headingsOnly: Bool = false,
        now: EngineInstant
    ) -> FanOut {
        var fanOut = FanOut()
        var exhausted: [RequestID] = []
        subscriptions.updateEach { id, subscription in
            guard subscription.phase == .admitted, !headingsOnly || subscription.options.kind == .heading,
                Self.accepts(fix, subscription, coarsened: coarsened, grid: grid, now: now)
            else { return }
            subscription.lastDelivery = Subscription.LastDelivery(position: Position(fix.location), time: now, coarse: coarsened)
            subscription.delivered += 1
            fanOut.append(Recipient(id, subscription.handler), heading: subscription.options.kind == .heading)
            if let maximum = subscription.options.maximumUpdates, subscription.delivered >= maximum {
                exhausted.append(id)
            }
        }
        fanOut.exhausted = exhausted.compactMap { id in
            guard case .subscription(let handler)? = remove(id) else { return nil }
            return Recipient(id, handler)
        }
        return fanOut
    }

    /// Whether `fix` passes a subscription's filters at `now`.
    static func accepts(
        _ fix: StampedFix, _ subscription: Subscription, coarsened: Bool = false, grid: ReducedAccuracyPolicy = ReducedAccuracyPolicy(),
        now: EngineInstant
    ) -> Bool {
        let options = subscription.options
        if let accuracy = options.accuracy,
            !accuracy.isSatisfied(horizontalAccuracy: fix.location.horizontalAccuracy, age: fix.age(at: now))
        {
            return false
        }
        if options.minimumInterval > .zero, let last = subscription.lastDelivery, now - last.time < options.minimumInterval {
            return false
        }
        let moved = subscription.lastDelivery.map { last in
            // Across a change of accuracy, a cell centre and a precise position are compared as cells: a device
            // that stayed in its cell has not moved, however far its precise position lies from the centre.
            guard last.coarse != coarsened else { return last.position.distance(to: fix.location) }
            let before = grid.coarsen(Location(latitude: last.position.latitude, longitude: last.position.longitude, horizontalAccuracy: 0))
            return before.distance(to: grid.coarsen(fix.location))
        }
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

extension SchedulerStateMachine {
    /// Time passes, if anything falls due by `now` (``nextWakeup``): then as ``advanceTime(now:)``.
    /// Returns whether it did.
    ///
    /// The owner's check between two commands. Read from outside (through an actor's stored property),
    /// ``nextWakeup`` makes the optimizer copy the whole state machine, so that the next change to a
    /// buffer copies it; inside a mutating call, not inlined into the owner's loop, nothing is copied.
    @discardableResult
    @inline(never)
    mutating func advanceTimeIfDue(now: EngineInstant) -> Bool {
        guard let next = nextWakeup, next <= now else { return false }
        advanceTime(now: now)
        return true
    }

    /// Time passes: the authorization changes scheduled by `now` apply (each after the deadlines due
    /// before it), due deadlines expire, the regions' dwells and unknown timeouts run, and the power
    /// planner may step the source down. It may come between two slices of a large delivery: what it
    /// decides goes first after the slice in progress.
    /// - Complexity: O(e log L) for e expired deadlines over L deadline lanes.
    @_specialize(exported: true, where OneShotHandler == ClosureOneShotHandler, SubscriptionHandler == ClosureSubscriptionHandler)
    public mutating func advanceTime(now: EngineInstant) {
        let now = tick(now)
        delivery.outbox.beginEvent()
        applyDueAuthorizationChanges(upTo: now)
        expireDeadlines(now: now)
        if geofences.evaluator.count > 0 {
            geofences.evaluator.advanceTime(now: now)
            emitRegionEvents()
        }
        reconcilePower(now: now)
    }

    /// Expires every deadline due at `now`; one-shots expiring together share one result.
    mutating func expireDeadlines(now: EngineInstant) {
        guard let earliest = requests.deadlines.earliest, earliest <= now else { return }
        let expired = requests.expire(now: now, sparing: delivery.fixCompletion)
        if !expired.oneShots.isEmpty { emit(.timeoutsExpired(earliestDeadline: earliest)) }
        deliverEnds(expired, result(.timedOut, now: now), .timedOut, .durationElapsed)
        reconcilePower(now: now)
    }

    /// The owner is idle at `now`: the requests drop abandoned queue entries if there is time before the
    /// next wake-up. It changes no request's fate.
    /// - Complexity: O(n) when it compacts.
    mutating func compactIfIdle(now: EngineInstant) {
        if delivery.outbox.isEmpty { requests.compact(ifIdleUntil: nextWakeup, now: now) }
    }
}

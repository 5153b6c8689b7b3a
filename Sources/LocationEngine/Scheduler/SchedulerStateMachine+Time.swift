extension SchedulerStateMachine {
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
    /// after the deadlines due before it), expires due deadlines (timeouts, subscription durations),
    /// advances the regions (dwells, unknown timeouts) and lets the power planner step the source down.
    /// It may come while earlier actions are being carried out (between two slices of a large delivery):
    /// what it decides is queued behind them, and the rest of a large delivery gives way to it after the
    /// slice in progress.
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

    /// The owner is idle at `now`: the core drops abandoned queue entries if there is enough time
    /// before its next wake-up for that much work (about 20 ns an entry), so that compaction never
    /// delays a timeout or a delivery. It changes no request's fate.
    /// - Complexity: O(n) when it compacts.
    mutating func compactIfIdle(now: EngineInstant) {
        let backlog = requests.compactionBacklog
        guard backlog > 0, delivery.outbox.isEmpty else { return }
        if let next = nextWakeup, next - now < .nanoseconds(20 * backlog) + .microseconds(200) { return }
        requests.compact()
    }
}

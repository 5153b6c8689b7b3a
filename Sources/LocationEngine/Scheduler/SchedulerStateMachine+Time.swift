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
        var timedOut: [Recipient<OneShotHandler>] = []
        var elapsed: [Recipient<SubscriptionHandler>] = []
        while let id = requests.deadlines.popDue(at: now) {
            // A request that the fix being completed satisfies succeeded when the fix arrived, before
            // this deadline: it stays for the fix's delivery (its timeout has run).
            if let completion = delivery.fixCompletion, let request = requests.oneShots[id],
                completion.covers(request.wish, isIndexed: request.phase.isIndexed)
            {
                continue
            } else if let request = requests.removeOneShot(id) {
                timedOut.append(Recipient(id, request.handler))
            } else if let subscription = removeSubscription(id) {
                elapsed.append(Recipient(id, subscription.handler))
            }
        }
        if !timedOut.isEmpty { emit(.timeoutsExpired(earliestDeadline: earliest)) }
        deliverEnds(timedOut, result(.timedOut, now: now), .timedOut, elapsed, .durationElapsed)
        reconcilePower(now: now)
    }

    // MARK: Compaction

    /// Keeps the next wake-up live after requests ended: abandoned deadlines at the head of the queue
    /// are dropped, so the owner never wakes for a request that has already ended. Bulk compaction
    /// does not run here (this is on the delivery and expiry paths) unless abandoned entries grow past
    /// a memory bound that an owner calling ``compact()`` when idle never reaches.
    /// - Complexity: O(a log n) for a abandoned entries at the head.
    mutating func afterRemovals() {
        requests.dropAbandonedDeadlineHead()
        let bound = 1 << 20
        if requests.abandonedEntries(beyond: bound) || access.waitingLists(beyond: 4 * bound) { compact() }
    }

    /// How many entries ``compact()`` would scan now (0 when it has nothing worth doing).
    var compactionBacklog: Int { requests.compactionBacklog + access.waitingBacklog }

    /// The owner is idle at `now`: the core drops abandoned queue entries if there is enough time
    /// before its next wake-up for that much work (about 20 ns an entry), so that compaction never
    /// delays a timeout or a delivery. It changes no request's fate.
    /// - Complexity: O(n) when it compacts.
    mutating func compactIfIdle(now: EngineInstant) {
        let backlog = compactionBacklog
        guard backlog > 0, delivery.outbox.isEmpty else { return }
        if let next = nextWakeup, next - now < .nanoseconds(20 * backlog) + .microseconds(200) { return }
        compact()
    }

    /// Drops abandoned queue entries and stale waiting-list entries once they dominate, so memory
    /// stays proportional to pending requests; it changes no request's fate.
    /// - Complexity: O(n) when it compacts.
    mutating func compact() {
        requests.compact()
        let requests = self.requests
        access.compactWaitingLists(stillWaiting: requests.isWaiting)
    }
}

extension SchedulerStateMachine {
    /// Time passes, if anything falls due by `now` (``nextWakeup``): then as ``advanceTime(now:at:)``,
    /// and its effects are returned; `nil` if nothing fell due.
    ///
    /// The owner's check between two commands. Read from outside (through an actor's stored property),
    /// ``nextWakeup`` makes the optimizer copy the whole state machine, so that the next change to a
    /// buffer copies it; inside a mutating call, not inlined into the owner's loop, nothing is copied.
    @inline(never)
    mutating func advanceTimeIfDue(now: EngineInstant, at moment: Moment = .betweenEvents) -> Effects? {
        guard let next = nextWakeup, next <= now else { return nil }
        return advanceTime(now: now, at: moment)
    }

    /// Time passes: what fell due by `now` happens in instant order across the parts — the requests'
    /// deadlines, authorization's changes, the regions' dwells and unknown timeouts, the power planner's
    /// steps — then the power planner may step the source down. It may come between two handlers of a
    /// long delivery (`moment` ``Moment/midDelivery``): its effects are carried out first, and an update
    /// still ahead of the owner skips the subscriptions it ends.
    /// - Complexity: O(e log L) for e expired deadlines over L deadline lanes.
    @_specialize(exported: true, where OneShotHandler == ClosureOneShotHandler, SubscriptionHandler == ClosureSubscriptionHandler, MonitorHandler == ClosureMonitorHandler)
    public mutating func advanceTime(now: EngineInstant, at moment: Moment = .betweenEvents) -> Effects {
        let now = tick(now)
        delivery.begin(at: moment)
        runTimeline(upTo: now)
        askPower(at: now)
        settle()
        return delivery.takeEffects()
    }

    /// Takes what fell due by `instant`, earliest first across the parts: the requests' deadlines (those
    /// due together share one result), authorization's changes
    /// (each at its own instant, after the deadlines due before it: what was due before a change happened
    /// under the old picture), the regions' dwells and unknown timeouts (stamped with their instants), and
    /// the power planner's step, taken at the present instant. Each alarm taken ends in a settle step at its
    /// instant (``settle()``): a reconcile asked for there happens then, so that the energy account stops at
    /// the instant things fell due, not at the end of the pass. The power planner is asked once a pass: a
    /// step it still finds due stays for the caller's settle step, and the pass goes on with the other
    /// parts. What fell due last is left for the caller's settle step.
    ///
    /// Mid-delivery the regions' dwells and unknown timeouts wait for the delivery's end (the next event
    /// between events): a transition of the delivery still ahead of the owner — the `entered` a dwell
    /// follows — reaches its monitor first. They keep their instants.
    /// - Complexity: O(e log L) for e expired deadlines over L deadline lanes, plus O(1) per alarm.
    mutating func runTimeline(upTo instant: EngineInstant) {
        var powerTaken = false
        let regionsWait = delivery.moment == .midDelivery
        while true {
            // Deadlines before an authorization change end as they would have at its instant.
            expireDeadlines(
                now: instant, resultAt: min(instant, alarms[.authorization] ?? instant), skippingPower: powerTaken, skippingRegions: regionsWait)
            guard let (part, at) = alarms.popDue(at: instant, skippingPower: powerTaken, skippingRegions: regionsWait) else { return }
            switch part {
            case .authorization: applyAuthorizationChanges(dueAt: at)
            case .regions:
                geofences.advanceTime(to: at)
                delivery.emitTransitions(from: &geofences.evaluator, of: requests)
            case .power:
                powerTaken = true
                // A reconcile still due at an earlier instant (deadlines that ended before a scheduled
                // change) settles there first.
                if let due = powerDue, due < latestNow { settle() }
                askPower(at: latestNow)
            }
            settle()
        }
    }

    /// An event arrives at `now`: what fell due by then happens first, as if the owner had passed the time
    /// just before (``runTimeline(upTo:)``). So the outcome of a submission, a fix, a source's error, a
    /// session's end or a shutdown never depends on whether its owner called ``advanceTime(now:at:)``
    /// first: a fix never completes a request whose deadline has passed, a submission after a due
    /// revocation is refused. (A withdrawal does not catch up: see ``withdraw(_:_:now:at:)``.)
    /// - Complexity: O(1) when nothing is due; else that of ``runTimeline(upTo:)``.
    @inline(__always)
    mutating func catchUp(to now: EngineInstant) {
        guard let next = nextWakeup, next <= now else { return }
        runTimeline(upTo: now)
    }

    /// Expires every deadline due at `now`; one-shots expiring together share one result, with the best
    /// fix known at `resultAt`, when the power planner then reconciles. Stops at the first part's alarm due
    /// before a deadline, the power planner's left out when `skippingPower` (``runTimeline(upTo:)`` takes
    /// it) and the regions' when `skippingRegions` (they wait for a delivery's end); a deadline at the
    /// alarm's instant comes first.
    mutating func expireDeadlines(now: EngineInstant, resultAt: EngineInstant? = nil, skippingPower: Bool = false, skippingRegions: Bool = false) {
        guard let earliest = requests.deadlines.earliest, earliest <= now else { return }
        let bound = alarms.earliest(skippingPower: skippingPower, skippingRegions: skippingRegions).map { min($0.at, now) } ?? now
        guard earliest <= bound else { return }
        let expired = requests.expire(now: bound)
        if !expired.oneShots.isEmpty { emit(.timeoutsExpired(earliestDeadline: earliest)) }
        let resultAt = resultAt ?? now
        var timedOut = result(.timedOut, now: resultAt)
        if !expired.oneShots.isEmpty { timedOut.reason = power.reason(best: timedOut.location, age: timedOut.age, now: resultAt) }
        deliverEnds(expired, timedOut, .durationElapsed)
        askPower(at: resultAt)
    }

    /// The owner is idle at `now`: the requests drop abandoned queue entries if there is time before the
    /// next wake-up. It changes no request's fate.
    /// - Complexity: O(n) when it compacts.
    mutating func compactIfIdle(now: EngineInstant) {
        requests.compact(ifIdleUntil: nextWakeup, now: now)
    }
}

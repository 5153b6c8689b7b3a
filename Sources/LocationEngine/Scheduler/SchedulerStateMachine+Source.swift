extension SchedulerStateMachine {
    /// Source `source` reports a fix that was `age` old on arrival.
    ///
    /// What fell due by `now` happens *first* (as before every event but a withdrawal), so a fix arriving
    /// after a request's deadline never turns it into a success (see <doc:OneShotRequests>), nor one
    /// arriving after a revocation was due reaches anyone. Under reduced accuracy the fix is throttled and
    /// coarsened (``ReducedAccuracyPolicy``). Then every one-shot whose accuracy and recency it meets
    /// completes with it, and subscriptions get it through their filters. Invalid fixes (non-finite or
    /// out-of-range values) are counted and dropped; a fix from another source less accurate than the latest and
    /// inside its circle is kept out of the position and the subscriptions, and answers only one-shots no
    /// remembered fix does (<doc:SeveralSources>).
    /// - Complexity: O(s + e log L) for s subscriptions, e expired deadlines over L deadline lanes; the
    ///   one-shots it completes cost O(1) each.
    @_specialize(exported: true, where OneShotHandler == ClosureOneShotHandler, SubscriptionHandler == ClosureSubscriptionHandler, MonitorHandler == ClosureMonitorHandler)
    public mutating func receiveFix(_ location: Location, age: Duration, now: EngineInstant, source: SourceID = .first) -> Effects {
        takeFix(location, age: age, now: enter(now), source: source)
        settle()
        return delivery.takeEffects()
    }

    /// A fix arrives at `now`: what it completes, updates and decides.
    @inline(__always)
    private mutating func takeFix(_ location: Location, age: Duration, now: EngineInstant, source: SourceID) {
        guard access.gate == .authorized, !isShutDown else { return }
        // A source is judged by what it delivers: an invalid fix (a NaN position, a negative accuracy, one
        // from the future) is no delivery, so a receiver that emits only those still falls back.
        if Access.isValid(location, age: age) { power.fixArrived(from: source, accuracy: location.horizontalAccuracy, now: now) }
        let fix: StampedFix
        switch access.receive(location, age: age, now: now, source: source) {
        case .accepted(let accepted):
            fix = accepted
        case .superseded(let superseded):
            // Counted as superseded (`fixes_superseded`), not as dropped; it leaves the position and the
            // subscriptions alone, but a one-shot it satisfies and no remembered fix does is answered by it, and
            // its course reaches heading subscriptions (the more accurate fix beside it may carry none).
            guard access.accuracy == .full else { return }
            var removed = false
            if let (recipients, result) = requests.complete(with: superseded, now: now) {
                delivery.emitOneShots(recipients, result)
                removed = true
            }
            if superseded.location.course != nil, !requests.subscriptions.isEmpty {
                let offered = requests.offer(superseded, headingsOnly: true, now: now)
                delivery.emit(offered, of: superseded, now: now)
                removed = removed || !offered.exhausted.isEmpty
            }
            if removed {
                requests.afterRemovals()
                askPower(at: now)
            }
            return
        case .dropped:
            emit(.fixProcessed(accepted: false))
            return
        }
        emit(.fixProcessed(accepted: true))
        if let (recipients, result) = requests.complete(with: fix, now: now) { delivery.emitOneShots(recipients, result) }
        if !requests.subscriptions.isEmpty {
            let offered = requests.offer(fix, coarsened: access.accuracy == .reduced, grid: access.reducedAccuracy, now: now)
            delivery.emit(offered, of: fix, now: now)
        }
        if geofences.evaluator.count > 0 {
            // Under reduced accuracy the throttle holds fixes apart by design: unknown timeouts allow for it.
            let held = access.accuracy == .reduced ? access.reducedAccuracy.minimumInterval : .zero
            if geofences.evaluator.heldFixGap != held { geofences.evaluator.heldFixGap = held }
            geofences.decide(by: fix, power: &power, besides: requests.demand, now: now)
            delivery.emitTransitions(from: &geofences.evaluator, of: requests)
        }
        requests.afterRemovals()
        askPower(at: now)
    }

    /// Source `source` reports where its receiver confirmed it is (``SourceEvent/receiverState(_:age:)``): the
    /// power planner counts it in the energy and plans on from it (a receiver that stayed on is not stepped deeper).
    /// - Complexity: O(1)
    public mutating func receiveReceiverState(
        _ state: ReceiverPowerProfile.IdleState, age: Duration = .zero, now: EngineInstant, source: SourceID = .first
    ) -> Effects {
        let now = enter(now)
        power.receiverConfirmed(state, age: age, now: now, source: source)
        askPower(at: now)
        settle()
        return delivery.takeEffects()
    }

    /// The source reports that its running receiver confirmed the setting of `mode`
    /// (``SourceEvent/receiverTracking(_:age:)``): the power planner's energy account costs it so from now.
    /// - Complexity: O(1)
    public mutating func receiveReceiverTracking(_ mode: PowerMode, age: Duration = .zero, now: EngineInstant, source: SourceID = .first) -> Effects {
        let now = enter(now)
        power.receiverTracking(mode, age: age, now: now, source: source)
        settle()
        return delivery.takeEffects()
    }

    /// Source `source` reports a temporary failure: one-shots keep waiting (a one-shot that then ends without
    /// a fix says so in its ``LocationResult/reason``), subscriptions and monitors are told and keep running.
    /// - Complexity: O(s) for s subscriptions and monitors.
    public mutating func receiveTransientError(_ error: SourceError, now: EngineInstant, source: SourceID = .first) -> Effects {
        let now = enter(now)
        power.errorReported(error, by: source, now: now)
        counters.transientErrors += 1
        delivery.emitSubscribers(requests.admittedSubscribers(), .sourceError(error))
        delivery.emitMonitors(requests.admittedMonitors(), .sourceError(error))
        settle()
        return delivery.takeEffects()
    }

    /// Source `source` is gone for good: it is powered down, and every admitted request no other source can
    /// serve ends with the error (with one source, every one; those waiting for access keep waiting).
    /// It stays failed, chosen no more, until an event leaves no request needing any source; later requests
    /// then start it afresh.
    /// - Complexity: O(n).
    public mutating func receiveFatalError(_ error: SourceError, now: EngineInstant, source: SourceID = .first) -> Effects {
        let now = enter(now)
        counters.fatalErrors += 1
        let ending = requests.removeAll(onlyAdmitted: true, unservedBy: power.sources(leftAfterFailing: source))
        deliverEnds(ending, result(.failed(error), now: now), .failed(error))
        powerDown(.failed(source), at: now)
        settle()
        return delivery.takeEffects()
    }
}

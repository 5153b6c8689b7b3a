extension SchedulerStateMachine {
    /// Ends a request early — a cancel, or a force-complete (see ``Withdrawal``). Unknown or finished
    /// IDs are a no-op.
    ///
    /// Unlike every other event it does not first let what fell due by `now` happen: a withdrawal is taken
    /// as made before its owner handed it over (the engine hands withdrawals over before it passes the
    /// time), so a cancel made just before a deadline wins. Pass the time first (``advanceTime(now:at:)``)
    /// to have what fell due come before it.
    ///
    /// It may come while the effects of earlier events are being carried out (a handler withdrew a
    /// request: `moment` is ``Moment/midDelivery``): a request that has ended but whose ending the owner
    /// has not reached yet gets the withdrawal's ending instead of the one decided
    /// (``reached(oneShot:receiving:)``), and an update still ahead skips a subscription it ends. It may
    /// also name an ID not submitted yet (IDs increase in submission order): that request ends this way
    /// as it arrives.
    /// - Complexity: O(1) amortised.
    @_specialize(exported: true, where OneShotHandler == ClosureOneShotHandler, SubscriptionHandler == ClosureSubscriptionHandler, MonitorHandler == ClosureMonitorHandler)
    public mutating func withdraw(_ id: RequestID, _ withdrawal: Withdrawal, now: EngineInstant, at moment: Moment = .betweenEvents) -> Effects {
        let now = tick(now)
        delivery.begin(at: moment)
        decideWithdrawal(id, withdrawal, now: now)
        settle()
        return delivery.takeEffects()
    }

    /// A withdrawal that its owner must hold until the commands made before it that can decide how pending
    /// requests end have been processed (an authorization change, the end of a session…), shown as it arrives
    /// for what no such command can change. A request that has ended, its ending still ahead of the owner
    /// (`moment` is ``Moment/midDelivery``), takes the withdrawal's ending instead, as with
    /// ``withdraw(_:_:now:at:)``. A request pending, or not submitted yet, keeps it until the owner hands it
    /// over (``withdraw(_:_:now:at:)``, in its turn): if it is a cancel, no update or transition reaches the
    /// request meanwhile, and an ending decided meanwhile by anything but those commands (a fix, a timeout, a
    /// failure) becomes the cancel; theirs stand. The first withdrawal of a request is the one that counts.
    /// It decides no action of its own: what it changes shows in the endings and deliveries decided later.
    /// - Complexity: O(1) amortised.
    public mutating func withdrawHeld(_ id: RequestID, _ withdrawal: Withdrawal, now: EngineInstant, at moment: Moment = .midDelivery) {
        _ = tick(now)
        delivery.begin(at: moment)
        if requests.contains(id) || id > delivery.lastSubmittedID {
            delivery.hold(id, withdrawal)
        } else {
            delivery.recordWithdrawal(id, withdrawal)
        }
    }

    @inline(__always)
    private mutating func decideWithdrawal(_ id: RequestID, _ withdrawal: Withdrawal, now: EngineInstant) {
        if !delivery.held.isEmpty { delivery.held[id] = nil }
        switch requests.remove(id) {
        case .oneShot(let request)?:
            redirect(Recipient(id, request.takeHandler()), withdrawal, now: now)
        case .subscription(let handler)?:
            // An update being fanned out skips it.
            delivery.subscriptionEnded(id)
            delivery.redirect(Recipient(id, handler), withdrawal)
        case .monitor(let handler)?:
            // A transition being handed out skips it; its region goes.
            delivery.subscriptionEnded(id)
            geofences.remove(id)
            delivery.redirect(Recipient(id, handler), withdrawal)
        case nil:
            return delivery.recordWithdrawal(id, withdrawal)
        }
        requests.afterRemovals()
        askPower(at: now)
    }

    /// Ends a withdrawn one-shot as its withdrawal says: a force-complete carries the best fix known at
    /// `now`. Only a force-complete reads the access part: handed whole to the delivery part as an argument,
    /// it was copied on every cancel (about 64 instructions, a callgrind profile).
    @inline(__always)
    mutating func redirect(_ recipient: Recipient<OneShotHandler>, _ withdrawal: Withdrawal, now: EngineInstant) {
        switch withdrawal {
        case .cancel: delivery.cancel(recipient)
        case .forceComplete: delivery.forceComplete(recipient, access.result(.forceCompleted, now: now))
        }
    }

    /// Ends the engine: every request ends with `.shutDown` and new ones are refused.
    /// - Complexity: O(n).
    public mutating func shutdown(now: EngineInstant) -> Effects {
        let now = enter(now)
        guard lifecycle == .running else {
            settle()
            return delivery.takeEffects()
        }
        lifecycle = .shutDown
        access.close()
        let held = heldAndPending()
        endEverything(oneShotStatus: .shutDown, subscriptionEnd: .shutDown, onlyAdmitted: false, now: now)
        keepBarrierEndings(of: held)
        powerDown(.all, at: now)
        settle()
        return delivery.takeEffects()
    }

    /// The requests pending with a withdrawal held, before a barrier event (an authorization change, the end
    /// of a session, a location-button press, shutdown) decides its endings: pass them to
    /// ``keepBarrierEndings(of:)`` after it. Empty, without allocating, when nothing is held.
    @inline(__always)
    func heldAndPending() -> [RequestID] {
        guard !delivery.held.isEmpty else { return [] }
        return delivery.held.keys.filter { requests.contains($0) }
    }

    /// A barrier event has decided its endings: those of `heldBefore` (``heldAndPending()`` before it) that it
    /// ended stand against the withdrawals held behind it (see ``withdrawHeld(_:_:now:at:)``).
    @inline(__always)
    mutating func keepBarrierEndings(of heldBefore: [RequestID]) {
        guard !heldBefore.isEmpty else { return }
        delivery.keepBarrierEndings(of: heldBefore.filter { !requests.contains($0) })
    }

    /// Ends every pending request (only those admitted to the source, if `onlyAdmitted`), one-shots with
    /// the best fix known, in grouped actions.
    mutating func endEverything(oneShotStatus: LocationStatus, subscriptionEnd: SubscriptionEnd, onlyAdmitted: Bool, now: EngineInstant) {
        if !onlyAdmitted { access.forgetWaitingRequests() }
        deliverEnds(requests.removeAll(onlyAdmitted: onlyAdmitted), result(oneShotStatus, now: now), subscriptionEnd)
    }

    /// Ends these requests (those still pending), one-shots with `oneShotStatus` and the best fix known,
    /// subscriptions and monitors with `subscriptionEnd`, in grouped actions.
    mutating func end(_ ids: [RequestID], oneShotStatus: LocationStatus, subscriptionEnd: SubscriptionEnd, now: EngineInstant) {
        deliverEnds(requests.remove(ids), result(oneShotStatus, now: now), subscriptionEnd)
    }

    /// Decides the grouped final deliveries of removed requests; an update or transition still ahead of
    /// the owner skips the subscriptions and monitors, and the monitors' regions go.
    mutating func deliverEnds(_ removed: Requests.Removed, _ result: LocationResult, _ end: SubscriptionEnd) {
        for subscriber in removed.subscribers { delivery.subscriptionEnded(subscriber.id) }
        for monitor in removed.monitors {
            delivery.subscriptionEnded(monitor.id)
            geofences.remove(monitor.id)
        }
        delivery.emitOneShots(removed.oneShots, result)
        delivery.emitSubscribers(removed.subscribers, .ended(end))
        delivery.emitMonitors(removed.monitors, .ended(end))
        requests.afterRemovals()
    }
}

extension SchedulerStateMachine {
    // MARK: Taking actions (the owner)

    /// The next thing to carry out, or `nil` when everything decided so far has been handed over.
    ///
    /// After ``SchedulerAction/completeOneShots(_:)`` take the recipients with ``nextOneShot()``, after
    /// ``SchedulerAction/notifySubscriptions(_:)`` with ``nextSubscriber()``, until it returns `nil`;
    /// then ask for the next action. Every event but ``withdraw(_:_:now:)`` and
    /// ``advanceTime(now:)`` needs every action of the events before it taken first.
    /// - Complexity: O(1)
    @_specialize(exported: true, where OneShotHandler == ClosureOneShotHandler, SubscriptionHandler == ClosureSubscriptionHandler)
    public mutating func nextAction() -> Action? {
        // The owner moved on before the group was done: what is left of it comes again next.
        if delivery.outbox.handing != .nothing { delivery.outbox.setAsideCurrentGroup() }
        // A loop, not a recursion: any number of entries may be skipped in a row (every transition of
        // monitors that ended after it was decided), and the stack must not grow with them.
        while let entry = delivery.outbox.popFirst() {
            switch entry {
            case .action(.notifyRegion(let event, _)) where requests.subscriptions[event.id] == nil || delivery.withdrawals[event.id] != nil:
                // The monitor ended (a handler withdrew it) after the transition was decided.
                continue
            case .action(let action):
                return action
            case .oneShots(let recipients, let start, let result, let tally):
                delivery.outbox.handing = .oneShots(tally)
                delivery.outbox.oneShots = recipients
                delivery.outbox.position = start
                delivery.outbox.result = result
                return .completeOneShots(result)
            case .subscribers(let recipients, let start, let event, let tally):
                delivery.outbox.handing = .subscribers(tally)
                delivery.outbox.subscribers = recipients
                delivery.outbox.position = start
                delivery.outbox.event = event
                return .notifySubscriptions(event)
            case .fixCompletion:
                guard let completion = delivery.fixCompletion else { continue }
                delivery.outbox.handing = .fix
                return .completeOneShots(completion.result)
            }
        }
        forgetSettledWithdrawals()
        return nil
    }

    /// The next one-shot to hand the result of the current ``SchedulerAction/completeOneShots(_:)``
    /// to, or `nil` when there is none (for now: a large group hands out a slice, lets what was
    /// decided meanwhile go first, and comes again as a later action). The request has ended.
    /// - Complexity: O(1), amortised over the group.
    @_specialize(exported: true, where OneShotHandler == ClosureOneShotHandler, SubscriptionHandler == ClosureSubscriptionHandler)
    public mutating func nextOneShot() -> Recipient<OneShotHandler>? {
        switch delivery.outbox.handing {
        case .oneShots(let tally):
            while delivery.outbox.position < delivery.outbox.oneShots.count {
                if delivery.outbox.givesWay() { return nil }
                let recipient = delivery.outbox.oneShots[delivery.outbox.position]
                delivery.outbox.position += 1
                // Ended before a handler withdrew it, but not handed out yet: the withdrawal wins —
                // unless a withdrawal ended it (a force-complete, the only one-shot ending counted as
                // one): the first withdrawal made is the one that takes effect.
                if tally != .forceCompleted, !delivery.withdrawals.isEmpty, let withdrawal = delivery.withdrawals.removeValue(forKey: recipient.id) {
                    redirect(recipient, withdrawal)
                    continue
                }
                delivery.outbox.handedOut += 1
                count(tally)
                return recipient
            }
            delivery.outbox.finishCurrentGroup()
            return nil
        case .fix:
            if delivery.outbox.givesWay() { return nil }
            guard let recipient = takeNextFixRecipient() else {
                delivery.outbox.finishCurrentGroup()
                return nil
            }
            delivery.outbox.handedOut += 1
            counters.oneShotsSucceeded += 1
            return recipient
        case .nothing, .subscribers:
            return nil
        }
    }

    /// The next subscription to hand the event of the current ``SchedulerAction/notifySubscriptions(_:)``
    /// to, or `nil` when there is none (for now, as with ``nextOneShot()``). A subscription that ended
    /// or was withdrawn after an update was decided for it hears nothing more of it.
    /// - Complexity: O(1), amortised over the group.
    @_specialize(exported: true, where OneShotHandler == ClosureOneShotHandler, SubscriptionHandler == ClosureSubscriptionHandler)
    public mutating func nextSubscriber() -> Recipient<SubscriptionHandler>? {
        guard case .subscribers(let tally) = delivery.outbox.handing else { return nil }
        while delivery.outbox.position < delivery.outbox.subscribers.count {
            if delivery.outbox.givesWay() { return nil }
            let recipient = delivery.outbox.subscribers[delivery.outbox.position]
            delivery.outbox.position += 1
            if tally == .end {
                // As for one-shots: a force-complete's own ending is not redirected by a later withdrawal.
                if !delivery.withdrawals.isEmpty, !Self.isWithdrawalEnding(delivery.outbox.event),
                    let withdrawal = delivery.withdrawals.removeValue(forKey: recipient.id)
                {
                    redirect(recipient, withdrawal)
                    continue
                }
                counters.subscriptionsEnded += 1
            } else {
                // Ended (or withdrawn, its end still to come) after the update was decided for it.
                if !delivery.endedDuringFanOut.isEmpty && delivery.endedDuringFanOut.contains(recipient.id) { continue }
                if !delivery.withdrawals.isEmpty && delivery.withdrawals[recipient.id] != nil { continue }
                if tally == .update { counters.subscriptionUpdates += 1 }
            }
            delivery.outbox.handedOut += 1
            return recipient
        }
        delivery.outbox.finishCurrentGroup()
        if tally != .end {
            delivery.fanOutsPending -= 1
            if delivery.fanOutsPending == 0 && !delivery.endedDuringFanOut.isEmpty { delivery.endedDuringFanOut.removeAll() }
        }
        return nil
    }

    // MARK: Withdrawals

    /// Ends a request early — a cancel, or a force-complete (see ``Withdrawal``). Unknown or finished
    /// IDs are a no-op.
    ///
    /// It may come while the actions of earlier events are being carried out (a handler withdrew a
    /// request): a request that has ended but is not handed out yet gets the withdrawal's ending instead
    /// of the one decided. It may also name an ID not submitted yet (IDs increase in submission order):
    /// that request ends this way as it arrives.
    /// - Complexity: O(1) amortised.
    @_specialize(exported: true, where OneShotHandler == ClosureOneShotHandler, SubscriptionHandler == ClosureSubscriptionHandler)
    public mutating func withdraw(_ id: RequestID, _ withdrawal: Withdrawal, now: EngineInstant) {
        let now = tick(now)
        delivery.outbox.beginEvent()
        if let request = removeOneShot(id) {
            redirect(Recipient(id, request.handler), withdrawal)
        } else if let subscription = removeSubscription(id) {
            redirect(Recipient(id, subscription.handler), withdrawal)
        } else {
            // The first withdrawal of a request is the one that takes effect: a later one (a cancel
            // after a force-complete, both made before the request arrived) changes nothing.
            if (!delivery.outbox.isEmpty || id > delivery.lastSubmittedID) && delivery.withdrawals[id] == nil { delivery.withdrawals[id] = withdrawal }
            return
        }
        afterRemovals()
        reconcilePower(now: now)
    }

    /// Ends a withdrawn one-shot as its withdrawal says.
    mutating func redirect(_ recipient: Recipient<OneShotHandler>, _ withdrawal: Withdrawal) {
        let entry: Outbox<OneShotHandler, SubscriptionHandler>.Entry
        switch withdrawal {
        case .cancel:
            counters.oneShotsCancelled += 1
            entry = .action(.cancelOneShot(recipient))
        case .forceComplete:
            entry = .oneShots([recipient], start: 0, result(.forceCompleted, now: latestNow), .forceCompleted)
        }
        delivery.outbox.append(entry)
    }

    /// Whether a subscription's last event is the ending a withdrawal gave it (only a force-complete
    /// ends a subscription `.forceCompleted`).
    static func isWithdrawalEnding(_ event: SubscriptionEvent?) -> Bool {
        if case .ended(.forceCompleted)? = event { return true }
        return false
    }

    /// Ends a withdrawn subscription as its withdrawal says.
    mutating func redirect(_ recipient: Recipient<SubscriptionHandler>, _ withdrawal: Withdrawal) {
        let entry: Outbox<OneShotHandler, SubscriptionHandler>.Entry
        switch withdrawal {
        case .cancel:
            counters.subscriptionsCancelled += 1
            entry = .action(.cancelSubscription(recipient))
        case .forceComplete:
            entry = .subscribers([recipient], start: 0, .ended(.forceCompleted), .end)
        }
        delivery.outbox.append(entry)
    }

    /// A request submitted under an ID that was withdrawn before it arrived: whether it ended that way.
    mutating func endIfWithdrawnAhead(_ id: RequestID) -> Withdrawal? {
        if id > delivery.lastSubmittedID { delivery.lastSubmittedID = id }
        guard !delivery.withdrawals.isEmpty else { return nil }
        return delivery.withdrawals.removeValue(forKey: id)
    }

    /// Once everything is handed out, withdrawals of requests that had already ended are moot; those
    /// naming IDs not submitted yet stay.
    mutating func forgetSettledWithdrawals() {
        guard !delivery.withdrawals.isEmpty else { return }
        let last = delivery.lastSubmittedID
        delivery.withdrawals = delivery.withdrawals.filter { $0.key > last }
    }

    // MARK: Deciding (the events)

    /// Queues an action.
    @inline(__always)
    mutating func emit(_ action: Action) { delivery.outbox.append(.action(action)) }

    /// Queues one result for these ended one-shots, counted under `tally` as they are handed out.
    mutating func emitOneShots(_ recipients: [Recipient<OneShotHandler>], _ result: LocationResult, _ tally: OneShotTally) {
        guard !recipients.isEmpty else { return }
        delivery.outbox.append(.oneShots(recipients, start: 0, result, tally))
    }

    /// Queues one event for these subscriptions (an `.ended` event for subscriptions that have ended).
    mutating func emitSubscribers(_ recipients: [Recipient<SubscriptionHandler>], _ event: SubscriptionEvent) {
        guard !recipients.isEmpty else { return }
        let tally: SubscriberTally
        switch event {
        case .location, .heading: tally = .update
        case .sourceError: tally = .notice
        case .ended: tally = .end
        }
        if tally != .end { delivery.fanOutsPending += 1 }
        delivery.outbox.append(.subscribers(recipients, start: 0, event, tally))
    }

    /// Adds a handed-out one-shot to its outcome's counter.
    @inline(__always)
    mutating func count(_ tally: OneShotTally) {
        switch tally {
        case .succeeded: counters.oneShotsSucceeded += 1
        case .timedOut: counters.oneShotsTimedOut += 1
        case .forceCompleted: counters.oneShotsForceCompleted += 1
        case .failed: counters.oneShotsFailed += 1
        }
    }

    /// The start of every event but withdrawals and the passing of time: the actions of earlier events
    /// must all have been taken, and the timeline moves to `now`.
    mutating func enter(_ now: EngineInstant, _ event: StaticString) -> EngineInstant {
        precondition(
            delivery.outbox.isEmpty, "SchedulerStateMachine.\(event): actions of earlier events are still to be taken (nextAction() until nil)")
        delivery.outbox.beginEvent()
        return tick(now)
    }
}

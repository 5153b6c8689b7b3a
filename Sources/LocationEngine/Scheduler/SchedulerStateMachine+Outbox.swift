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
        if outbox.handing != .nothing { outbox.setAsideCurrentGroup() }
        // A loop, not a recursion: any number of entries may be skipped in a row (every transition of
        // monitors that ended after it was decided), and the stack must not grow with them.
        while let entry = outbox.popFirst() {
            switch entry {
            case .action(.notifyRegion(let event, _)) where subscriptions[event.id] == nil || withdrawals[event.id] != nil:
                // The monitor ended (a handler withdrew it) after the transition was decided.
                continue
            case .action(let action):
                return action
            case .oneShots(let recipients, let start, let result, let tally):
                outbox.handing = .oneShots(tally)
                outbox.oneShots = recipients
                outbox.position = start
                outbox.result = result
                return .completeOneShots(result)
            case .subscribers(let recipients, let start, let event, let tally):
                outbox.handing = .subscribers(tally)
                outbox.subscribers = recipients
                outbox.position = start
                outbox.event = event
                return .notifySubscriptions(event)
            case .fixCompletion:
                guard let completion = fixCompletion else { continue }
                outbox.handing = .fix
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
        switch outbox.handing {
        case .oneShots(let tally):
            while outbox.position < outbox.oneShots.count {
                if outbox.givesWay() { return nil }
                let recipient = outbox.oneShots[outbox.position]
                outbox.position += 1
                // Ended before a handler withdrew it, but not handed out yet: the withdrawal wins —
                // unless a withdrawal ended it (a force-complete, the only one-shot ending counted as
                // one): the first withdrawal made is the one that takes effect.
                if tally != .forceCompleted, !withdrawals.isEmpty, let withdrawal = withdrawals.removeValue(forKey: recipient.id) {
                    redirect(recipient, withdrawal)
                    continue
                }
                outbox.handedOut += 1
                count(tally)
                return recipient
            }
            outbox.finishCurrentGroup()
            return nil
        case .fix:
            if outbox.givesWay() { return nil }
            guard let recipient = takeNextFixRecipient() else {
                outbox.finishCurrentGroup()
                return nil
            }
            outbox.handedOut += 1
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
        guard case .subscribers(let tally) = outbox.handing else { return nil }
        while outbox.position < outbox.subscribers.count {
            if outbox.givesWay() { return nil }
            let recipient = outbox.subscribers[outbox.position]
            outbox.position += 1
            if tally == .end {
                // As for one-shots: a force-complete's own ending is not redirected by a later withdrawal.
                if !withdrawals.isEmpty, !Self.isWithdrawalEnding(outbox.event),
                    let withdrawal = withdrawals.removeValue(forKey: recipient.id)
                {
                    redirect(recipient, withdrawal)
                    continue
                }
                counters.subscriptionsEnded += 1
            } else {
                // Ended (or withdrawn, its end still to come) after the update was decided for it.
                if !endedDuringFanOut.isEmpty && endedDuringFanOut.contains(recipient.id) { continue }
                if !withdrawals.isEmpty && withdrawals[recipient.id] != nil { continue }
                if tally == .update { counters.subscriptionUpdates += 1 }
            }
            outbox.handedOut += 1
            return recipient
        }
        outbox.finishCurrentGroup()
        if tally != .end {
            fanOutsPending -= 1
            if fanOutsPending == 0 && !endedDuringFanOut.isEmpty { endedDuringFanOut.removeAll() }
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
        outbox.beginEvent()
        if let request = removeOneShot(id) {
            redirect(Recipient(id, request.handler), withdrawal)
        } else if let subscription = removeSubscription(id) {
            redirect(Recipient(id, subscription.handler), withdrawal)
        } else {
            // The first withdrawal of a request is the one that takes effect: a later one (a cancel
            // after a force-complete, both made before the request arrived) changes nothing.
            if (!outbox.isEmpty || id > lastSubmittedID) && withdrawals[id] == nil { withdrawals[id] = withdrawal }
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
        outbox.append(entry)
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
        outbox.append(entry)
    }

    /// A request submitted under an ID that was withdrawn before it arrived: whether it ended that way.
    mutating func endIfWithdrawnAhead(_ id: RequestID) -> Withdrawal? {
        if id > lastSubmittedID { lastSubmittedID = id }
        guard !withdrawals.isEmpty else { return nil }
        return withdrawals.removeValue(forKey: id)
    }

    /// Once everything is handed out, withdrawals of requests that had already ended are moot; those
    /// naming IDs not submitted yet stay.
    mutating func forgetSettledWithdrawals() {
        guard !withdrawals.isEmpty else { return }
        let last = lastSubmittedID
        withdrawals = withdrawals.filter { $0.key > last }
    }

    // MARK: Deciding (the events)

    /// Queues an action.
    @inline(__always)
    mutating func emit(_ action: Action) { outbox.append(.action(action)) }

    /// Queues one result for these ended one-shots, counted under `tally` as they are handed out.
    mutating func emitOneShots(_ recipients: [Recipient<OneShotHandler>], _ result: LocationResult, _ tally: OneShotTally) {
        guard !recipients.isEmpty else { return }
        outbox.append(.oneShots(recipients, start: 0, result, tally))
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
        if tally != .end { fanOutsPending += 1 }
        outbox.append(.subscribers(recipients, start: 0, event, tally))
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
            outbox.isEmpty, "SchedulerStateMachine.\(event): actions of earlier events are still to be taken (nextAction() until nil)")
        outbox.beginEvent()
        return tick(now)
    }
}

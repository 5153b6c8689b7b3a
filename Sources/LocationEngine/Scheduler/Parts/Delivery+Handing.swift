extension SchedulerStateMachine.Delivery {
    typealias Entry = Outbox<OneShotHandler, SubscriptionHandler>.Entry

    // MARK: Deciding

    /// Queues an action.
    @inline(__always)
    mutating func emit(_ action: SchedulerAction<OneShotHandler, SubscriptionHandler>) { outbox.append(.action(action)) }

    /// Queues the regions' transitions decided so far, one action each, to their monitors still pending in
    /// `requests`.
    mutating func emitTransitions(from evaluator: inout RegionEvaluator, of requests: SchedulerStateMachine.Requests) {
        while let event = evaluator.nextEvent() {
            guard let subscription = requests.subscriptions[event.id] else { continue }
            emit(.notifyRegion(event, Recipient(event.id, subscription.handler)))
        }
    }

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

    /// Queues what a fix brought the subscriptions (``Requests/offer(_:now:)``): grouped location and
    /// heading updates, then the ends of those it exhausted, which the updates still reach (they were
    /// decided with them live).
    mutating func emit(_ fanOut: SchedulerStateMachine.Requests.FanOut, of fix: StampedFix, now: EngineInstant) {
        for recipient in fanOut.exhausted { subscriptionEnded(recipient.id) }
        if !fanOut.locations.isEmpty {
            let update = LocationUpdate(location: fix.location, age: fix.age(at: now), achievedAccuracy: fix.achieved(at: now))
            emitSubscribers(fanOut.locations, .location(update))
        }
        if !fanOut.headings.isEmpty, let course = fix.location.course {
            emitSubscribers(fanOut.headings, .heading(HeadingUpdate(course: course, location: fix.location)))
        }
        emitSubscribers(fanOut.exhausted, .ended(.maximumUpdatesReached))
    }

    /// Queues the fix completion in progress (``fixCompletion``), whose one-shots are taken as they are
    /// handed out.
    mutating func emitFixCompletion(_ completion: FixCompletion) {
        fixCompletion = completion
        outbox.append(.fixCompletion)
    }

    /// A subscription ended: an update still being fanned out skips it.
    @inline(__always)
    mutating func subscriptionEnded(_ id: RequestID) {
        if fanOutsPending > 0 { endedDuringFanOut.insert(id) }
    }

    // MARK: Withdrawals

    /// Ends a cancelled one-shot: its handler hears of the cancel.
    mutating func cancel(_ recipient: Recipient<OneShotHandler>) {
        counts.oneShotsCancelled += 1
        outbox.append(.action(.cancelOneShot(recipient)))
    }

    /// Ends a force-completed one-shot with `result` (the best fix known).
    mutating func forceComplete(_ recipient: Recipient<OneShotHandler>, _ result: LocationResult) {
        outbox.append(.oneShots([recipient], start: 0, result, .forceCompleted))
    }

    /// Ends a withdrawn subscription as its withdrawal says.
    mutating func redirect(_ recipient: Recipient<SubscriptionHandler>, _ withdrawal: Withdrawal) {
        switch withdrawal {
        case .cancel:
            counts.subscriptionsCancelled += 1
            outbox.append(.action(.cancelSubscription(recipient)))
        case .forceComplete:
            outbox.append(.subscribers([recipient], start: 0, .ended(.forceCompleted), .end))
        }
    }

    /// A withdrawal of a request that is not pending: kept while what was decided is handed out (it may
    /// redirect an ending not handed out yet) or while the ID is not submitted yet. The first withdrawal
    /// of a request is the one that takes effect: a later one (a cancel after a force-complete, both
    /// made before the request arrived) changes nothing.
    mutating func recordWithdrawal(_ id: RequestID, _ withdrawal: Withdrawal) {
        if (!outbox.isEmpty || id > lastSubmittedID) && withdrawals[id] == nil { withdrawals[id] = withdrawal }
    }

    /// A request arrives under `id`: whether it was withdrawn before it arrived, and how.
    mutating func takeWithdrawalAhead(of id: RequestID) -> Withdrawal? {
        if id > lastSubmittedID { lastSubmittedID = id }
        guard !withdrawals.isEmpty else { return nil }
        return withdrawals.removeValue(forKey: id)
    }

    /// Whether the request is withdrawn, its ending still to be handed out.
    @inline(__always)
    func isWithdrawn(_ id: RequestID) -> Bool { !withdrawals.isEmpty && withdrawals[id] != nil }

    // MARK: Handing out

    /// The next action to hand over, with the group it opens (if any) taken up, or `nil` when everything
    /// decided has been handed over (and the withdrawals it settled are forgotten).
    /// - Complexity: O(1) amortised; a loop, so any number of entries may be skipped in a row without
    ///   the stack growing.
    mutating func takeNextAction() -> SchedulerAction<OneShotHandler, SubscriptionHandler>? {
        // The owner moved on before the group was done: what is left of it comes again next.
        if outbox.handing != .nothing { outbox.setAsideCurrentGroup() }
        while let entry = outbox.popFirst() {
            switch entry {
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

    /// What handing out the next one-shot gives.
    enum OneShotStep {
        /// Hand it out: it is counted.
        case handOut(Recipient<OneShotHandler>)
        /// A withdrawal reached it first: redirect it, then go on.
        case withdrawn(Recipient<OneShotHandler>, Withdrawal)
        /// None for now (the group is done, or gives way).
        case none
        /// The fix completion is over: the one-shots it completed no longer need the source.
        case fixCompleted
    }

    /// The next recipient of the one-shot group being handed out; a fix completion's one-shots are taken
    /// out of `requests` as they are handed out.
    /// - Complexity: amortised O(1) per one-shot.
    @inline(__always)
    mutating func nextOneShot(taking requests: inout SchedulerStateMachine.Requests) -> OneShotStep {
        outbox.handing == .fix ? nextFixRecipient(taking: &requests) : nextOneShotStep()
    }

    /// The next one-shot the fix being completed satisfies, taken out of `requests` as it is handed out.
    /// - Complexity: amortised O(1) per one-shot.
    private mutating func nextFixRecipient(taking requests: inout SchedulerStateMachine.Requests) -> OneShotStep {
        if outbox.givesWay() { return .none }
        if let recipient = takeFixRecipient(from: &requests) {
            outbox.handedOut += 1
            counts.oneShotsSucceeded += 1
            return .handOut(recipient)
        }
        outbox.finishCurrentGroup()
        return .fixCompleted
    }

    /// Takes every one-shot the fix being completed still satisfies out of `requests` at once, so that
    /// a change about to apply (an authorization change due between two slices of the fix's delivery)
    /// finds them ended: the fix came first. Their delivery keeps its place in the outbox. Returns whether
    /// a completion ended.
    /// - Complexity: O(k) for k one-shots left.
    mutating func settleFixCompletion(taking requests: inout SchedulerStateMachine.Requests) -> Bool {
        guard let result = fixCompletion?.result else { return false }
        var recipients: [Recipient<OneShotHandler>] = []
        while let recipient = takeFixRecipient(from: &requests) { recipients.append(recipient) }
        outbox.replaceFixCompletion(with: recipients.isEmpty ? nil : .oneShots(recipients, start: 0, result, .succeeded))
        return true
    }

    /// The next one-shot of the fix completion, or `nil` when it is over (then it is forgotten).
    private mutating func takeFixRecipient(from requests: inout SchedulerStateMachine.Requests) -> Recipient<OneShotHandler>? {
        guard fixCompletion != nil else { return nil }
        if let recipient = requests.takeNext(of: &fixCompletion!) { return recipient }
        fixCompletion = nil
        return nil
    }

    /// The next recipient of the one-shot group being handed out (not a fix completion's).
    /// - Complexity: O(1)
    private mutating func nextOneShotStep() -> OneShotStep {
        guard case .oneShots(let tally) = outbox.handing else { return .none }
        guard outbox.position < outbox.oneShots.count else {
            outbox.finishCurrentGroup()
            return .none
        }
        if outbox.givesWay() { return .none }
        let recipient = outbox.oneShots[outbox.position]
        outbox.position += 1
        // Ended before a handler withdrew it, but not handed out yet: the withdrawal wins — unless a
        // withdrawal ended it (a force-complete, the only one-shot ending counted as one): the first
        // withdrawal made is the one that takes effect.
        if tally != .forceCompleted, !withdrawals.isEmpty, let withdrawal = withdrawals.removeValue(forKey: recipient.id) {
            return .withdrawn(recipient, withdrawal)
        }
        outbox.handedOut += 1
        counts.count(tally)
        return .handOut(recipient)
    }

    /// The next subscription to hand the current group's event to, or `nil` for now (as for one-shots).
    /// A subscription that ended or was withdrawn after an update was decided for it hears nothing more
    /// of it.
    /// - Complexity: O(1), amortised over the group.
    mutating func nextSubscriber() -> Recipient<SubscriptionHandler>? {
        guard case .subscribers(let tally) = outbox.handing else { return nil }
        while outbox.position < outbox.subscribers.count {
            if outbox.givesWay() { return nil }
            let recipient = outbox.subscribers[outbox.position]
            outbox.position += 1
            if tally == .end {
                // As for one-shots: a force-complete's own ending is not redirected by a later withdrawal.
                if !withdrawals.isEmpty, !Self.isWithdrawalEnding(outbox.event), let withdrawal = withdrawals.removeValue(forKey: recipient.id) {
                    redirect(recipient, withdrawal)
                    continue
                }
                counts.subscriptionsEnded += 1
            } else {
                // Ended (or withdrawn, its end still to come) after the update was decided for it.
                if !endedDuringFanOut.isEmpty && endedDuringFanOut.contains(recipient.id) { continue }
                if isWithdrawn(recipient.id) { continue }
                if tally == .update { counts.subscriptionUpdates += 1 }
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

    /// Whether a subscription's last event is the ending a withdrawal gave it (only a force-complete
    /// ends a subscription `.forceCompleted`).
    static func isWithdrawalEnding(_ event: SubscriptionEvent?) -> Bool {
        if case .ended(.forceCompleted)? = event { return true }
        return false
    }

    /// Once everything is handed out, withdrawals of requests that had already ended are moot; those
    /// naming IDs not submitted yet stay.
    private mutating func forgetSettledWithdrawals() {
        guard !withdrawals.isEmpty else { return }
        let last = lastSubmittedID
        withdrawals = withdrawals.filter { $0.key > last }
    }
}

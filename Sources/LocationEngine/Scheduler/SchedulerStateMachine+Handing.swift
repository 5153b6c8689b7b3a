extension SchedulerStateMachine {
    /// The next thing to carry out, or `nil` when everything decided so far has been handed over.
    ///
    /// After ``SchedulerAction/completeOneShots(_:)`` take the recipients with ``nextOneShot()``, after
    /// ``SchedulerAction/notifySubscriptions(_:)`` with ``nextSubscriber()``, until it returns `nil`;
    /// then ask for the next action. Every event but ``withdraw(_:_:now:)`` and
    /// ``advanceTime(now:)`` needs every action of the events before it taken first.
    /// - Complexity: O(1) amortised; skipping decided transitions of monitors that ended since is a loop,
    ///   whose stack does not grow with their number.
    @_specialize(exported: true, where OneShotHandler == ClosureOneShotHandler, SubscriptionHandler == ClosureSubscriptionHandler)
    public mutating func nextAction() -> Action? {
        while let action = delivery.takeNextAction() {
            // The monitor ended (a handler withdrew it) after the transition was decided.
            if case .notifyRegion(let event, _) = action, requests.subscriptions[event.id] == nil || delivery.isWithdrawn(event.id) { continue }
            return action
        }
        return nil
    }

    /// The next one-shot to hand the result of the current ``SchedulerAction/completeOneShots(_:)``
    /// to, or `nil` when there is none (for now: a large group hands out a slice, lets what was
    /// decided meanwhile go first, and comes again as a later action). The request has ended.
    /// - Complexity: O(1), amortised over the group.
    @_specialize(exported: true, where OneShotHandler == ClosureOneShotHandler, SubscriptionHandler == ClosureSubscriptionHandler)
    public mutating func nextOneShot() -> Recipient<OneShotHandler>? {
        if delivery.outbox.handing == .fix {
            if delivery.outbox.givesWay() { return nil }
            guard let recipient = takeNextFixRecipient() else {
                delivery.outbox.finishCurrentGroup()
                return nil
            }
            delivery.outbox.handedOut += 1
            delivery.counts.oneShotsSucceeded += 1
            return recipient
        }
        while true {
            switch delivery.nextOneShotStep() {
            case .handOut(let recipient): return recipient
            case .withdrawn(let recipient, let withdrawal): redirect(recipient, withdrawal)
            case .none: return nil
            }
        }
    }

    /// The next subscription to hand the event of the current ``SchedulerAction/notifySubscriptions(_:)``
    /// to, or `nil` when there is none (for now, as with ``nextOneShot()``). A subscription that ended
    /// or was withdrawn after an update was decided for it hears nothing more of it.
    /// - Complexity: O(1), amortised over the group.
    @_specialize(exported: true, where OneShotHandler == ClosureOneShotHandler, SubscriptionHandler == ClosureSubscriptionHandler)
    public mutating func nextSubscriber() -> Recipient<SubscriptionHandler>? { delivery.nextSubscriber() }

    /// Takes the next one-shot the fix being completed satisfies out of the tables, or ends the
    /// completion when none is left (the one-shots it completed no longer need the source).
    /// - Complexity: amortised O(1) per one-shot taken.
    private mutating func takeNextFixRecipient() -> Recipient<OneShotHandler>? {
        guard delivery.fixCompletion != nil else { return nil }
        if let recipient = requests.takeNext(of: &delivery.fixCompletion!) { return recipient }
        delivery.fixCompletion = nil
        requests.afterRemovals()
        reconcilePower(now: latestNow)
        return nil
    }

    /// Takes every one-shot the fix being completed still satisfies out of the tables at once, so that
    /// a change about to apply (an authorization change due between two slices of the fix's delivery)
    /// finds them ended: the fix came first. Their delivery keeps its place in the outbox.
    /// - Complexity: O(k) for k one-shots left.
    mutating func settleFixCompletion() {
        guard let result = delivery.fixCompletion?.result else { return }
        var recipients: [Recipient<OneShotHandler>] = []
        while let recipient = takeNextFixRecipient() { recipients.append(recipient) }
        delivery.outbox.replaceFixCompletion(with: recipients.isEmpty ? nil : .oneShots(recipients, start: 0, result, .succeeded))
    }
}

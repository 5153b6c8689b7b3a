extension SchedulerStateMachine {
    /// The next thing to carry out, or `nil` when everything decided so far has been handed over.
    ///
    /// After ``SchedulerAction/completeOneShots(_:)`` take the recipients with ``nextOneShot()``, after
    /// ``SchedulerAction/notifySubscriptions(_:)`` with ``nextSubscriber()``, until `nil`. Every event
    /// but ``withdraw(_:_:now:)`` and ``advanceTime(now:)`` needs the earlier events' actions taken.
    /// - Complexity: O(1) amortised; skipping the transitions of monitors that ended since costs no stack.
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
        while true {
            switch delivery.nextOneShot(taking: &requests) {
            case .handOut(let recipient): return recipient
            case .withdrawn(let recipient, let withdrawal): redirect(recipient, withdrawal, now: latestNow)
            case .none: return nil
            case .fixCompleted:
                fixCompletionEnded()
                return nil
            }
        }
    }

    /// The next subscription to hand the event of the current ``SchedulerAction/notifySubscriptions(_:)``
    /// to, or `nil` when there is none (for now, as with ``nextOneShot()``); one that ended since hears nothing.
    /// - Complexity: O(1), amortised over the group.
    @_specialize(exported: true, where OneShotHandler == ClosureOneShotHandler, SubscriptionHandler == ClosureSubscriptionHandler)
    public mutating func nextSubscriber() -> Recipient<SubscriptionHandler>? { delivery.nextSubscriber() }

    /// A fix completion ended: the one-shots it completed no longer need the source.
    mutating func fixCompletionEnded() {
        requests.afterRemovals(on: &timeline)
        reconcilePower(now: latestNow)
    }
}

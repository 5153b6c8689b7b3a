extension SchedulerStateMachine {
    /// What has been decided and not yet handed out to the owner, and what may still change it: the
    /// withdrawals of requests that ended but are not handed out (or are not submitted yet), and the
    /// updates still being fanned out.
    struct Delivery {
        /// The actions and recipient groups decided, in order.
        var outbox: Outbox<OneShotHandler, SubscriptionHandler>
        /// The fix whose one-shots are being handed out, if any.
        var fixCompletion: FixCompletion?
        /// Withdrawals of requests that are not pending: ended but perhaps not handed out yet, or not
        /// submitted yet. Forgotten once everything is handed out (but for IDs not submitted yet). The
        /// first withdrawal of a request is the one kept.
        var withdrawals: [RequestID: Withdrawal] = [:]
        /// The highest ID submitted so far (IDs increase in submission order).
        var lastSubmittedID = RequestID(rawValue: 0)
        /// Updates (and source-error notices) decided and not fully handed out yet.
        var fanOutsPending = 0
        /// Subscriptions that ended while such an update was pending: it skips them.
        var endedDuringFanOut: Set<RequestID> = []

        init(slice: Int) {
            outbox = Outbox(slice: slice)
        }
    }
}

extension SchedulerStateMachine.Delivery: Sendable where OneShotHandler: Sendable, SubscriptionHandler: Sendable {}

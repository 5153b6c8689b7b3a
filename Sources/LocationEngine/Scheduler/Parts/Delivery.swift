extension SchedulerStateMachine {
    /// What has been decided and not yet handed out to the owner, and what may still change it: the
    /// withdrawals of requests that ended but are not handed out (or are not submitted yet), and the
    /// updates still being fanned out. It counts the outcomes as they are handed out.
    ///
    /// Its invariants: everything decided is handed out once, in the order decided (interim entries at
    /// the end of the slice in progress); a recipient that a withdrawal reached before it was handed out
    /// gets the withdrawal's ending instead, unless its own ending came from a withdrawal made earlier
    /// (the first withdrawal made is the one that takes effect).
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
        /// The outcomes handed out (and the cancellations decided).
        var counts = Counts()

        init(slice: Int) {
            outbox = Outbox(slice: slice)
        }
    }
}

extension SchedulerStateMachine.Delivery: Sendable where OneShotHandler: Sendable, SubscriptionHandler: Sendable {}

extension SchedulerStateMachine.Delivery {
    /// The outcomes handed out so far (cancellations as decided: a cancel's notice carries no outcome).
    struct Counts: Sendable {
        var oneShotsSucceeded = 0
        var oneShotsTimedOut = 0
        var oneShotsForceCompleted = 0
        var oneShotsFailed = 0
        var oneShotsCancelled = 0
        var subscriptionsEnded = 0
        var subscriptionsCancelled = 0
        var subscriptionUpdates = 0

        /// Adds a handed-out one-shot to its outcome's counter.
        @inline(__always)
        mutating func count(_ tally: OneShotTally) {
            switch tally {
            case .succeeded: oneShotsSucceeded += 1
            case .timedOut: oneShotsTimedOut += 1
            case .forceCompleted: oneShotsForceCompleted += 1
            case .failed: oneShotsFailed += 1
            }
        }

        /// Writes the counts into `statistics`.
        func add(to statistics: inout SchedulerStatistics) {
            statistics.oneShotsSucceeded = oneShotsSucceeded
            statistics.oneShotsTimedOut = oneShotsTimedOut
            statistics.oneShotsForceCompleted = oneShotsForceCompleted
            statistics.oneShotsFailed = oneShotsFailed
            statistics.oneShotsCancelled = oneShotsCancelled
            statistics.subscriptionsEnded = subscriptionsEnded
            statistics.subscriptionsCancelled = subscriptionsCancelled
            statistics.subscriptionUpdates = subscriptionUpdates
        }
    }
}

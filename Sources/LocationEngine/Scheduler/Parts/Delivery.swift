/// Which outcome counter a one-shot's ending adds to.
enum OneShotTally: UInt8, Sendable {
    case succeeded, timedOut, forceCompleted, failed

    /// The counter of an ending with `status`.
    @inline(__always)
    init(_ status: LocationStatus) {
        switch status {
        case .success: self = .succeeded
        case .timedOut: self = .timedOut
        case .forceCompleted: self = .forceCompleted
        default: self = .failed
        }
    }
}

extension SchedulerStateMachine {
    /// What the event in progress has decided, and what may still change a decided delivery: the
    /// withdrawals of requests that ended but whose ending may not be carried out yet (or that are not
    /// submitted yet), and the subscriptions that ended while an update for them may be ahead of the
    /// owner. It counts the outcomes as they are decided.
    ///
    /// Its invariants: every request's ending is decided once, in the event that removes it from the
    /// tables, and counted then; a recipient that a withdrawal overtook gets the withdrawal's ending
    /// instead when the owner reaches it, unless its own ending came from a withdrawal made earlier (the
    /// first withdrawal made is the one that takes effect), and that exchange moves the counters once.
    struct Delivery {
        /// The actions decided so far by the event in progress.
        var effects = SchedulerEffects<OneShotHandler, SubscriptionHandler, MonitorHandler>()
        /// When the event in progress came.
        var moment = Moment.betweenEvents
        /// Withdrawals of requests that had ended when they came mid-delivery: their endings may still
        /// be ahead of the owner. The first withdrawal of a request is the one kept; forgotten at the
        /// next event between events.
        var overtaken: [RequestID: Withdrawal] = [:]
        /// Subscriptions and monitors that ended mid-delivery: an update or transition still ahead of
        /// the owner skips them. Forgotten at the next event between events.
        var endedMidDelivery: Set<RequestID> = []
        /// Accuracy became reduced mid-delivery (the change is announced before the delivery resumes): what is
        /// still ahead of the owner was decided from a precise fix, and is coarsened by this policy (headings
        /// dropped) as it reaches its recipient. Forgotten at the next event between events.
        var reducedMidDelivery: ReducedAccuracyPolicy?
        /// Access was lost mid-delivery (the change is announced before the delivery resumes), with this ending
        /// for the one-shots it found pending: a one-shot still ahead of the owner whose result carries a fix
        /// ends so instead, without it, and no location or heading update reaches a subscription — not even one
        /// the fix had exhausted, which the revocation no longer finds pending. Forgotten at the next event
        /// between events.
        var accessLostMidDelivery: LocationStatus?
        /// Withdrawals naming IDs not submitted yet: the request ends so as it arrives. The first
        /// withdrawal of an ID is the one kept.
        var ahead: [RequestID: Withdrawal] = [:]
        /// Withdrawals of requests pending (or not submitted yet) that their owner holds behind a barrier
        /// command made before them (an authorization change, the end of a session…), the first of each
        /// request kept, until the owner hands them over. A cancel among them means no further delivery: no
        /// update or transition reaches its request, and an ending decided by any event but a barrier (a fix,
        /// a timeout, a failure) becomes the cancel; a barrier's own ending stands (it was made first). Kept
        /// across events; each entry goes when its withdrawal is handed over or its request ends.
        var held: [RequestID: Withdrawal] = [:]
        /// Requests a barrier ended while a withdrawal of theirs was held behind it: their first withdrawal
        /// lost to the barrier's ending, so no withdrawal handed over mid-delivery replaces that ending.
        /// Forgotten at the next event between events.
        var barrierEnded: Set<RequestID> = []
        /// The highest ID submitted so far (IDs increase in submission order).
        var lastSubmittedID = RequestID(rawValue: 0)
        /// The outcomes decided (a withdrawal that overtook a decided ending exchanges its count).
        var counts = Counts()
    }
}

extension SchedulerStateMachine.Delivery: Sendable where OneShotHandler: Sendable, SubscriptionHandler: Sendable, MonitorHandler: Sendable {}

extension SchedulerStateMachine.Delivery {
    /// The outcomes decided so far.
    struct Counts: Sendable {
        var oneShotsSucceeded = 0
        var oneShotsTimedOut = 0
        var oneShotsForceCompleted = 0
        var oneShotsFailed = 0
        var oneShotsCancelled = 0
        var subscriptionsEnded = 0
        var subscriptionsCancelled = 0
        var subscriptionUpdates = 0

        /// Adds `count` one-shots ending so to their outcome's counter (a negative count takes them back).
        @inline(__always)
        mutating func count(_ tally: OneShotTally, _ count: Int = 1) {
            switch tally {
            case .succeeded: oneShotsSucceeded += count
            case .timedOut: oneShotsTimedOut += count
            case .forceCompleted: oneShotsForceCompleted += count
            case .failed: oneShotsFailed += count
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

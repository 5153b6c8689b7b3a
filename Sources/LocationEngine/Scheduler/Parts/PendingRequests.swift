extension SchedulerStateMachine {
    /// Where a pending request stands with the source (and, for a one-shot, the accuracy index).
    enum Phase: UInt8 {
        /// Waiting for authorization or temporary full accuracy: not in the power demand, never indexed.
        case waiting
        /// In the power demand; a one-shot has its entry in the accuracy index, so a fix can complete it.
        case admitted
        /// Admitted once, now held for temporary full accuracy: out of the power demand again. A
        /// one-shot's index entry stays (no coarsened fix can reach it), so re-admission adds none.
        case held

        /// Whether a one-shot in this phase has an entry in the accuracy index.
        var isIndexed: Bool { self != .waiting }
    }

    /// A pending one-shot: 32 bytes with a closure handler, everything it asked for included. Its
    /// timeout, if it has one, either runs (its entry is on the timeline; one that ran out ended the
    /// request) or waits for access to start: then the wish holds it
    /// (``OneShotWish/timeoutAwaitingAccess``) until authorization, or temporary full accuracy, is
    /// answered.
    struct OneShot {
        var handler: OneShotHandler
        var wish: OneShotWish
        var phase: Phase = .waiting

        /// Its handler, the request given up for it: moved out, not copied and then released with the rest.
        @inline(__always)
        consuming func takeHandler() -> OneShotHandler { handler }
    }

    /// What a subscription receives: fixes, or its region's transitions.
    enum SubscriptionKind: UInt8 {
        /// A subscription: location or heading updates, through its filters.
        case updates
        /// A region monitor (``SchedulerStateMachine/monitor(_:region:options:madeAt:handler:now:)``):
        /// its region's transitions, never fixes. Its region is the monitored regions' fact.
        case region
    }

    /// A live subscription, or a region monitor.
    struct Subscription {
        var handler: SubscriptionHandler
        var options: SubscriptionOptions
        /// Whether it gets fixes or is a region monitor.
        let kind: SubscriptionKind
        var phase: Phase = .waiting
        /// Where the last delivered fix was (for the distance filters): a position, not the whole fix,
        /// which keeps a subscription at about half the size.
        var lastDelivered: Position?
        var lastDeliveryTime: EngineInstant?
        var delivered = 0
    }
}

extension SchedulerStateMachine.OneShot: Sendable where OneShotHandler: Sendable {}
extension SchedulerStateMachine.Subscription: Sendable where SubscriptionHandler: Sendable {}

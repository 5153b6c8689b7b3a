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

    /// A pending one-shot: 32 bytes with a closure handler, everything it asked for included.
    struct OneShot {
        var handler: OneShotHandler
        var wish: OneShotWish
        var phase: Phase = .waiting
        /// Whether its timeout waits for access to start (``OneShotWish/delayedTimeout``): it starts
        /// when authorization, or temporary full accuracy, is answered. A timeout that runs has its entry
        /// on the timeline, and one that ran out ended the request.
        var timeoutAwaitsAccess = false

        /// Its handler, the request given up for it: moved out, not copied and then released with the rest.
        @inline(__always)
        consuming func takeHandler() -> OneShotHandler { handler }
    }

    /// A live subscription, or a region monitor.
    struct Subscription {
        var handler: SubscriptionHandler
        var options: SubscriptionOptions
        var phase: Phase = .waiting
        /// Where the last delivered fix was (for the distance filters): a position, not the whole fix,
        /// which keeps a subscription at about half the size.
        var lastDelivered: Position?
        var lastDeliveryTime: EngineInstant?
        var delivered = 0
        /// A region monitor (``SchedulerStateMachine/monitor(_:region:options:madeAt:handler:now:)``):
        /// it gets its region's transitions, never fixes.
        let isRegion: Bool
    }
}

extension SchedulerStateMachine.OneShot: Sendable where OneShotHandler: Sendable {}
extension SchedulerStateMachine.Subscription: Sendable where SubscriptionHandler: Sendable {}

extension SchedulerStateMachine {
    /// Where a pending request stands with access and the source (and, for a one-shot, the accuracy
    /// index). Its place in the waiting lists follows: ``Requests/awaitingAuthorization`` holds the
    /// requests awaiting authorization, ``Requests/awaitingFullAccuracy`` those awaiting full accuracy
    /// and those held (the lists' entries of ended requests aside).
    enum Phase: UInt8 {
        /// Waiting for authorization (not determined yet): not in the power demand, never indexed.
        case awaitingAuthorization
        /// Never admitted, and coarsened fixes cannot serve it: it waits for temporary full accuracy, or
        /// ends in the event that found it so. Not in the power demand, never indexed.
        case awaitingFullAccuracy
        /// In the power demand; a one-shot has its entry in the accuracy index, so a fix can complete it.
        case admitted
        /// Admitted once, now held for temporary full accuracy: out of the power demand again. A
        /// one-shot's index entry stays (no coarsened fix can reach it), so re-admission adds none.
        case held

        /// Whether a one-shot in this phase has an entry in the accuracy index: it was admitted once.
        @inline(__always)
        var isIndexed: Bool {
            switch self {
            case .awaitingAuthorization, .awaitingFullAccuracy: false
            case .admitted, .held: true
            }
        }

        /// Whether a request in this phase waits for full accuracy (never admitted, or held).
        var awaitsFullAccuracy: Bool { self == .awaitingFullAccuracy || self == .held }
    }

    /// A pending one-shot: 32 bytes with a closure handler, everything it asked for included. Its
    /// timeout, if it has one, either runs (its entry is in the deadlines; one that ran out ended the
    /// request) or waits for access to start: then the wish holds it
    /// (``OneShotWish/timeoutAwaitingAccess``) until authorization, or temporary full accuracy, is
    /// answered.
    struct OneShot {
        var handler: OneShotHandler
        var wish: OneShotWish
        /// Set when it is placed (``Requests/place(_:_:timeout:from:delayUntilAuthorized:gate:rules:)``);
        /// a request not placed yet was never admitted.
        var phase: Phase = .awaitingAuthorization

        /// Its handler, the request given up for it: moved out, not copied and then released with the rest.
        @inline(__always)
        consuming func takeHandler() -> OneShotHandler { handler }
    }

    /// A live subscription.
    struct Subscription {
        var handler: SubscriptionHandler
        var options: SubscriptionOptions
        /// Set when it is placed (``Requests/place(_:_:from:gate:rules:)``).
        var phase: Phase = .awaitingAuthorization
        /// The last fix delivered, for the filters; `nil` before the first.
        var lastDelivery: LastDelivery?
        var delivered = 0

        /// What the filters remember of the last fix delivered: where it was (for the distance
        /// filters) — a position, not the whole fix, which keeps a subscription at about half the
        /// size — whether that was a coarsened cell centre, and when it was delivered (for the
        /// minimum interval).
        struct LastDelivery {
            var position: Position
            var time: EngineInstant
            var coarse = false
        }
    }

    /// A live region monitor: its region is the monitored regions' fact (``Geofences``); it takes no
    /// fixes, adds no demand of its own and never needs full accuracy, so it only waits for
    /// authorization or is admitted.
    struct Monitor {
        /// Where a monitor stands with access.
        enum Phase: UInt8 {
            /// Waiting for authorization (not determined yet); its region waits too.
            case awaitingAuthorization
            /// Its region is in the evaluator.
            case admitted
        }

        var handler: MonitorHandler
        var phase: Phase
    }
}

extension SchedulerStateMachine.OneShot: Sendable where OneShotHandler: Sendable {}
extension SchedulerStateMachine.Monitor: Sendable where MonitorHandler: Sendable {}
extension SchedulerStateMachine.Subscription: Sendable where SubscriptionHandler: Sendable {}

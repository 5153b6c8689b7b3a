/// What the ``SchedulerStateMachine`` asks its owner to do, in order, after an event.
///
/// Completions that share one result (every request a fix satisfies, every request that times out at
/// one instant) come as one action carrying all their handlers, so that completing N requests costs
/// N handler slots, not N copies of the result.
public enum SchedulerAction<OneShotHandler, SubscriptionHandler> {
    /// Deliver `result` to each of these one-shot handlers; each request has ended. (Indirect, like the
    /// notification case, so that the frequent small actions stay small.)
    indirect case completeOneShots([Recipient<OneShotHandler>], LocationResult)
    /// This one-shot request was cancelled: deliver nothing (resume an awaiting caller with a cancellation error).
    case cancelOneShot(OneShotHandler)
    /// Deliver `event` to each of these subscription handlers (an ``SubscriptionEvent/ended(_:)`` event ends them).
    indirect case notifySubscriptions([Recipient<SubscriptionHandler>], SubscriptionEvent)
    /// This subscription was cancelled: deliver nothing (finish an async sequence).
    case cancelSubscription(SubscriptionHandler)
    /// Power the source up in this mode.
    case startSource(PowerMode)
    /// Switch the running source to this mode.
    case setSourceMode(PowerMode)
    /// Power the source down.
    case stopSource
    /// Ask the authorization provider for authorization (at most once while not determined).
    case requestAuthorization
    /// Ask the authorization provider for temporary full accuracy with this declared purpose key (at
    /// most once at a time, however many requests wait for it).
    case requestTemporaryFullAccuracy(purposeKey: String)
}

/// A request's handler together with its ID, so a delivery can say which request it is for.
public struct Recipient<Handler> {
    /// The request.
    public let id: RequestID
    /// Its handler.
    public let handler: Handler

    /// Pairs an ID and a handler.
    @inlinable public init(_ id: RequestID, _ handler: Handler) {
        self.id = id
        self.handler = handler
    }
}

extension Recipient: Sendable where Handler: Sendable {}

extension SchedulerAction: Sendable where OneShotHandler: Sendable, SubscriptionHandler: Sendable {}

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
    /// Ask the authorization provider for authorization (at most once while not determined); its
    /// answer names `prompt` (``SchedulerStateMachine/receiveAuthorization(_:due:answering:now:into:)``).
    indirect case requestAuthorization(AuthorizationPrompt, prompt: UInt64)
    /// Ask the authorization provider for temporary full accuracy (at most once at a time, however
    /// many requests wait for it); its answer names `prompt`.
    indirect case requestTemporaryFullAccuracy(FullAccuracyPrompt, prompt: UInt64)
    /// Ask the user to confirm a location-button press; the answer names `prompt`.
    indirect case confirmLocationButton(current: AuthorizationState, prompt: UInt64)
    /// The authorization picture changed: tell whoever observes it. Comes before the deliveries the
    /// change causes.
    indirect case authorizationChanged(from: AuthorizationState, to: AuthorizationState)
    /// The core changed the picture by itself (a one-time grant lapsed at the end of a session, a
    /// confirmed location button granted): tell the authorization provider, so that its picture follows.
    indirect case tellProviderAuthorizationChanged(AuthorizationState)
    /// A request could not proceed because of the application's configuration (the requests concerned
    /// end with it as well): report it to the operator.
    case reportConfigurationError(ConfigurationError)
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

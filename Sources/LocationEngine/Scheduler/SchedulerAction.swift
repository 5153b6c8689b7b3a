/// One thing a ``SchedulerStateMachine`` decided and its owner must carry out. Each event returns its
/// actions, in order, as ``SchedulerEffects``.
///
/// Deliveries that share one result (every request a fix satisfies, every request that times out at
/// one instant) come as one action with their recipients. Handlers run one at a time, and a handler may
/// cancel or force-complete a later recipient of the same delivery: the owner passes the withdrawal on
/// (``SchedulerStateMachine/withdraw(_:_:now:at:)`` at ``Moment/midDelivery``), carries its effects out
/// at once, and asks the core about each later recipient while ``SchedulerStateMachine/hasOvertaken``
/// says a decided delivery may have been overtaken (``EffectsWalk`` keeps the place).
public enum SchedulerAction<OneShotHandler, SubscriptionHandler, MonitorHandler> {
    /// Deliver `result` to each of these one-shots; each of them has ended. (Indirect, like the
    /// notification case, so that the frequent small actions stay small.)
    indirect case completeOneShots([Recipient<OneShotHandler>], LocationResult)
    /// This one-shot request was cancelled: deliver nothing (resume an awaiting caller with a
    /// cancellation error).
    case cancelOneShot(Recipient<OneShotHandler>)
    /// Deliver `event` to each of these subscriptions (an ``SubscriptionEvent/ended(_:)`` event: they
    /// have ended).
    indirect case notifySubscriptions([Recipient<SubscriptionHandler>], SubscriptionEvent)
    /// This subscription was cancelled: deliver nothing (finish an async sequence). (Indirect, as the
    /// monitor's: with them inline, destroying an event's effects cost 17 instructions more a cancel.)
    indirect case cancelSubscription(Recipient<SubscriptionHandler>)
    /// Deliver a transition to the region monitor it belongs to (see <doc:Geofences>).
    indirect case notifyRegion(GeofenceEvent, Recipient<MonitorHandler>)
    /// Deliver `event` — a source error, or the ending of monitors that have ended — to each of these
    /// region monitors (a transition comes as ``notifyRegion(_:_:)``, to its one monitor).
    indirect case notifyMonitors([Recipient<MonitorHandler>], RegionEvent)
    /// This region monitor was cancelled: deliver nothing (finish an async sequence).
    indirect case cancelMonitor(Recipient<MonitorHandler>)
    /// Power this source up in this mode.
    case startSource(SourceID, PowerMode)
    /// Switch this running source to this mode.
    case setSourceMode(SourceID, PowerMode)
    /// Power this source down.
    case stopSource(SourceID)
    /// No request needs the source and its receiver profile says where to wait: power it down into this step's
    /// state (``LocationSource/stop(into:)``), or deeper if it is already down. Comes instead of ``stopSource(_:)``
    /// when the restart-aware policy applies (see ``PowerDownRule``); the step says why.
    case idleSource(SourceID, PowerDownDecider.Step)
    /// The source reported a fix: `accepted` unless it was dropped (invalid, or throttled under
    /// reduced accuracy). For metrics.
    case fixProcessed(accepted: Bool)
    /// Requests timed out; the earliest of their deadlines was `earliestDeadline` (for the lateness
    /// metric: how long after it the owner delivers them).
    case timeoutsExpired(earliestDeadline: EngineInstant)
    /// Ask the authorization provider for authorization (at most once while not determined); its
    /// answer names `prompt` (``SchedulerStateMachine/receiveAuthorization(_:due:answering:now:)``).
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

/// How the owner of a ``SchedulerStateMachine`` ends a request early
/// (``SchedulerStateMachine/withdraw(_:_:now:at:)``).
public enum Withdrawal: Sendable, Hashable {
    /// Cancel it: nothing is delivered but a cancellation notice.
    case cancel
    /// Force-complete it: a one-shot gets ``LocationStatus/forceCompleted`` with the best fix known,
    /// a subscription ``SubscriptionEnd/forceCompleted``.
    case forceComplete
}

extension Recipient: Sendable where Handler: Sendable {}

extension SchedulerAction: Sendable where OneShotHandler: Sendable, SubscriptionHandler: Sendable, MonitorHandler: Sendable {}

extension SchedulerAction {
    /// The action that carries out what the power planner decided for `source`.
    init(_ command: PowerPlanner.Command, for source: SourceID) {
        switch command {
        case .start(let mode): self = .startSource(source, mode)
        case .setMode(let mode): self = .setSourceMode(source, mode)
        case .stop: self = .stopSource(source)
        case .idle(let step): self = .idleSource(source, step)
        }
    }
}

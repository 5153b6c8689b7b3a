/// One thing submitted to the engine from outside its isolation.
///
/// Frequent cases stay small (a one-shot is an ID, an accuracy, a deadline and a handler); rare or
/// large payloads are `indirect`, so moving a command through the inbox copies a few words.
enum EngineCommand: Sendable {
    /// A one-shot. `madeAt` is when the caller made it: its timeout counts from there, not from when
    /// the engine got to it.
    case oneShot(RequestID, LocationAccuracy, timeout: Duration?, madeAt: EngineInstant, OneShotHandler)
    /// A one-shot with options that are rare: a delayed timeout or a purpose key.
    indirect case oneShotWithOptions(
        RequestID, LocationAccuracy, timeout: Duration?, madeAt: EngineInstant, delayUntilAuthorized: Bool, purposeKey: String?,
        OneShotHandler)
    indirect case subscribe(RequestID, SubscriptionOptions, madeAt: EngineInstant, SubscriptionHandler)
    /// A region monitor.
    indirect case monitor(RequestID, GeofenceRegion, GeofenceOptions, madeAt: EngineInstant, MonitorHandler)
    /// An event of the source started as `generation`, reported at `madeAt`.
    indirect case source(SourceID, generation: UInt64, SourceEvent, madeAt: EngineInstant)
    /// A new authorization picture, effective at `due`; `prompt` when it answers one of the engine's prompts.
    indirect case authorization(AuthorizationState, due: EngineInstant, prompt: UInt64?)
    case endSession
    case locationButton
    indirect case observeAuthorization(RequestID, AsyncStream<AuthorizationState>.Continuation)
    case stopObservingAuthorization(RequestID)
    case shutdown
}

extension EngineCommand {
    /// Ends the request this command would have made, as the engine ends every request once it has
    /// shut down: a one-shot gets ``LocationStatus/shutDown``, a subscription
    /// ``SubscriptionEnd/shutDown``, an authorization observer hears the final picture and finishes. The
    /// metrics count the request as submitted and ended, as every other.
    func endAfterShutdown(authorization picture: AuthorizationState, metrics: EngineMetrics) {
        let shutDown = LocationResult(status: .shutDown, location: nil, age: nil, achievedAccuracy: nil)
        switch self {
        case .oneShot(let id, _, _, _, let handler), .oneShotWithOptions(let id, _, _, _, _, _, let handler):
            metrics.submitted(.oneShot)
            metrics.ended(LocationStatus.shutDown, count: 1)
            handler.deliver(shutDown, to: id)
        case .subscribe(let id, _, _, let handler):
            metrics.submitted(.subscription)
            metrics.ended(SubscriptionEnd.shutDown, count: 1)
            handler.deliver(.ended(.shutDown), to: id)
        case .monitor(let id, _, _, _, let handler):
            metrics.submitted(.subscription)
            metrics.ended(SubscriptionEnd.shutDown, count: 1)
            handler.deliver(.ended(.shutDown), to: id)
        case .observeAuthorization(_, let continuation):
            continuation.yield(picture)
            continuation.finish()
        case .source, .authorization, .endSession, .locationButton, .stopObservingAuthorization, .shutdown:
            break
        }
    }
}

extension EngineCommand {
    /// The kind of request this command makes, as the metrics count it (a region monitor as a subscription), or
    /// `nil` for a command that makes none.
    var requestKind: EngineMetrics.Kind? {
        switch self {
        case .oneShot, .oneShotWithOptions: .oneShot
        case .subscribe, .monitor: .subscription
        case .source, .authorization, .endSession, .locationButton, .observeAuthorization, .stopObservingAuthorization, .shutdown: nil
        }
    }

    /// Whether this command can decide how pending requests end, other than by submitting one: a
    /// cancel or force-complete made after it must not reach the core before it (see ``Inbox``).
    var isBarrier: Bool {
        switch self {
        case .authorization, .endSession, .locationButton, .shutdown: true
        case .oneShot, .oneShotWithOptions, .subscribe, .monitor, .source, .observeAuthorization, .stopObservingAuthorization: false
        }
    }
}

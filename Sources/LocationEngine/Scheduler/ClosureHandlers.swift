/// A one-shot handler as a plain closure: the natural handler type when driving the core from your own
/// event loop. The state machine's hot paths are prespecialized for it, ``ClosureSubscriptionHandler``
/// and ``ClosureMonitorHandler`` (`@_specialize(exported:)`), so code in other modules using these
/// types runs specialized code rather than generic code that looks up type metadata at run time.
public typealias ClosureOneShotHandler = @Sendable (LocationResult) -> Void

/// A subscription handler as a plain closure; see ``ClosureOneShotHandler``.
public typealias ClosureSubscriptionHandler = @Sendable (RequestID, SubscriptionEvent) -> Void

/// A region monitor's handler as a plain closure; see ``ClosureOneShotHandler``.
public typealias ClosureMonitorHandler = @Sendable (RequestID, RegionEvent) -> Void

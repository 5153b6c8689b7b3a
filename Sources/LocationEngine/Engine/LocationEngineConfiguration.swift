/// Settings of a ``LocationEngine``.
public struct LocationEngineConfiguration: Sendable {
    /// How long the source keeps running after the last request needing it ends, so that a burst of
    /// short requests does not switch it on and off each time (gpsd itself lingers 60 s). Default 5 s.
    public var linger: Duration
    /// The authorization state the engine starts in. Default ``AuthorizationGate/authorized``: a Linux
    /// deployment whose operator granted access by configuring the engine.
    public var initialAuthorization: AuthorizationGate
    /// Called (outside the engine's isolation) when requests are waiting in
    /// ``AuthorizationGate/notDetermined`` and authorization must be asked for: once per not-determined
    /// period, however many requests wait. Answer with ``LocationEngine/updateAuthorization(_:)``.
    public var onAuthorizationRequest: (@Sendable () -> Void)?

    /// Creates a configuration.
    public init(
        linger: Duration = .seconds(5),
        initialAuthorization: AuthorizationGate = .authorized,
        onAuthorizationRequest: (@Sendable () -> Void)? = nil
    ) {
        self.linger = linger
        self.initialAuthorization = initialAuthorization
        self.onAuthorizationRequest = onAuthorizationRequest
    }
}

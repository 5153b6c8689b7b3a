import CoreMetrics

/// Settings of a ``LocationEngine``.
public struct LocationEngineConfiguration: Sendable {
    /// How long the source keeps running after the last request needing it ends, so that a burst of
    /// short requests does not switch it on and off each time (gpsd itself lingers 60 s). Default 5 s.
    /// Applies when the source describes no receiver (``SourceCapabilities/powerProfile``), or with
    /// ``powerDown`` set to ``PowerDownRule/fixedLinger``.
    public var linger: Duration
    /// How the source is powered down when no request needs it: by default ``PowerDownRule/restartAware``
    /// (stay on, stand by or go off by the energy break-even of a restart, for a source that describes its
    /// receiver); ``PowerDownRule/fixedLinger`` to always use ``linger``. See <doc:PowerPolicy>.
    public var powerDown: PowerDownRule = .restartAware
    /// With several sources: how long the source chosen for the finest request may run without a fix
    /// before the cheapest other one is started beside it, so that requests carry its fix as their best
    /// effort (see <doc:SeveralSources>). Default 30 s; zero runs the other source beside the chosen one
    /// throughout, once the chosen one's first-fix time has passed.
    public var fallbackAfter: Duration = .seconds(30)
    /// Where the authorization picture comes from and who asks the user. Default: a
    /// ``StaticAuthorizationProvider`` granting always with full accuracy — a Linux deployment whose
    /// operator granted access by configuring the engine.
    public var authorizationProvider: any AuthorizationProvider
    /// What the application declares it may ask for (Core Location's usage-description keys and
    /// temporary-full-accuracy purpose keys). Default: nothing, which is fine as long as nothing has to
    /// be asked; a request that would make the engine ask ends with ``ConfigurationError/noUsageDeclared``.
    public var usage: UsageDeclarations
    /// The level the application wants; asked for when declared (see ``UsageDeclarations/level(preferring:)``).
    public var preferredAuthorization: AuthorizationLevel
    /// How fixes are coarsened and throttled under reduced accuracy.
    public var reducedAccuracy: ReducedAccuracyPolicy
    /// Called on the engine's executor with every change of the authorization picture (MapLibre's
    /// `didChangeLocationManagerAuthorization`); see also ``LocationEngine/authorizationUpdates()``.
    public var onAuthorizationChange: (@Sendable (AuthorizationState) -> Void)?
    /// Dimensions added to every metric the engine emits (see ``LocationEngine``'s metrics), to tell
    /// several engines apart. Default: none.
    public var metricsDimensions: [(String, String)] = []
    /// Where the engine's metrics go: `nil` (the default) uses the factory the application bootstrapped
    /// (`MetricsSystem.factory`), which costs nothing until it bootstraps one. Tests pass an in-memory
    /// factory (swift-metrics' `MetricsTestKit`) instead of bootstrapping.
    public var metricsFactory: (any MetricsFactory)?
    /// The rules monitored regions are decided by (see <doc:Geofences>). Default: a 20 m hysteresis
    /// margin, a confidence circle of twice the fix's accuracy, unknown after 2 minutes.
    public var geofences = GeofenceConfiguration()

    /// Creates a configuration.
    public init(
        linger: Duration = .seconds(5),
        authorizationProvider: any AuthorizationProvider = StaticAuthorizationProvider(),
        usage: UsageDeclarations = .none,
        preferredAuthorization: AuthorizationLevel = .whenInUse,
        reducedAccuracy: ReducedAccuracyPolicy = ReducedAccuracyPolicy(),
        onAuthorizationChange: (@Sendable (AuthorizationState) -> Void)? = nil
    ) {
        self.linger = linger
        self.authorizationProvider = authorizationProvider
        self.usage = usage
        self.preferredAuthorization = preferredAuthorization
        self.reducedAccuracy = reducedAccuracy
        self.onAuthorizationChange = onAuthorizationChange
    }
}

extension SchedulerStateMachine {
    /// Settings of the core.
    public struct Configuration: Sendable {
        /// How long the source keeps running after the last request needing it ends, when ``powerDown`` is
        /// ``PowerDownRule/fixedLinger`` or the source describes no receiver profile.
        public var linger: Duration
        /// How the source is powered down when no request needs it. Default ``PowerDownRule/restartAware``
        /// (which needs a ``SourceCapabilities/powerProfile``; without one, the fixed ``linger``).
        public var powerDown: PowerDownRule = .restartAware
        /// What the source can provide (the first source, with several).
        public var sourceCapabilities: SourceCapabilities
        /// What the other sources can provide, in order (``SourceID`` 1, 2, …): with any, the power planner
        /// chooses which run (see <doc:SeveralSources>).
        public var otherSources: [SourceCapabilities] = []
        /// With several sources: how long the source chosen for the finest request may run without a fix
        /// before the cheapest other one is started beside it, so that requests carry its fix as their best
        /// effort (indoors, a GNSS receiver hears no satellite). Default 30 s; zero runs the other source
        /// beside the chosen one throughout, once the chosen one's first-fix time has passed.
        public var fallbackAfter: Duration = .seconds(30)
        /// The authorization picture at start.
        public var authorization: AuthorizationState
        /// What the application declares it may ask for: the level and reason of the authorization
        /// prompt, and the temporary-full-accuracy purpose keys requests may name (any other key is a
        /// ``ConfigurationError``).
        public var usage: UsageDeclarations
        /// The level the application wants (see ``UsageDeclarations/level(preferring:)``).
        public var preferredAuthorization: AuthorizationLevel
        /// How fixes are coarsened under reduced accuracy.
        public var reducedAccuracy: ReducedAccuracyPolicy
        /// The rules regions are decided by (see <doc:Geofences>). When invalid, every region monitor
        /// ends at once with ``SubscriptionEnd/rejected(reason:)`` saying why.
        public var geofences = GeofenceConfiguration()

        /// Creates a configuration.
        public init(
            linger: Duration = .seconds(5),
            sourceCapabilities: SourceCapabilities = SourceCapabilities(providesCourse: true),
            authorization: AuthorizationState = .authorizedAlways,
            usage: UsageDeclarations = .none,
            preferredAuthorization: AuthorizationLevel = .whenInUse,
            reducedAccuracy: ReducedAccuracyPolicy = ReducedAccuracyPolicy()
        ) {
            self.linger = linger
            self.sourceCapabilities = sourceCapabilities
            self.authorization = authorization
            self.usage = usage
            self.preferredAuthorization = preferredAuthorization
            self.reducedAccuracy = reducedAccuracy
        }

        /// Whether requests may name `purposeKey`.
        func declares(purposeKey: String) -> Bool { usage.temporaryFullAccuracyPurposes[purposeKey] != nil }
    }
}

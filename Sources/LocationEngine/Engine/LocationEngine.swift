import Atomics
import CoreMetrics
import DequeModule
import Logging
import NIOConcurrencyHelpers

/// Multiplexes many concurrent location requests — one-shots with their own accuracy and timeout,
/// continuous subscriptions, region monitors — over its sources (``LocationSource``), each of which it
/// runs only while a request needs its fixes and only as hard as the most demanding one needs.
///
/// The engine is an actor around a pure ``SchedulerStateMachine``, which decides everything: the actor
/// holds the public surface and the lifetime, and a driver hands the core its commands and carries out
/// its actions (the sources, the authorization provider, the handlers). Requests enter through a lock-light
/// inbox from any thread and get their ``RequestID`` at once, with their deadline counted from that
/// moment; one loop processes them in batches, runs **one** timer for every deadline, and delivers
/// results after each state transition, never while the state machine is mid-update. Handlers may make
/// or cancel requests re-entrantly: a cancel takes effect before any further delivery.
///
/// The engine's lifetime is ``run()`` (it is a swift-service-lifecycle `Service`): its loop and its
/// timer run inside it, and it returns once the engine has shut down. In a `ServiceGroup` the group
/// runs it; without one, start it yourself — `Task { try await engine.run() }` — and end it with
/// ``shutdown()`` or by cancelling that task. Requests made before `run()` starts wait for it.
///
/// Callback handlers run on the engine's executor: keep them short (hand heavy work to a task).
public actor LocationEngine<C: Clock> where C.Duration == Duration {
    typealias Machine = SchedulerStateMachine<OneShotHandler, SubscriptionHandler, MonitorHandler>

    /// The clock the engine times with.
    public nonisolated let clock: C
    /// The clock, with the instant the engine's timeline counts from.
    nonisolated let time: EngineClock<C>
    nonisolated let inbox: Inbox
    nonisolated let privacy: PrivacyEpochs
    nonisolated let metrics: EngineMetrics

    /// The core and the shell's work around it: commands in, actions carried out (see ``CoreDriver``).
    ///
    /// It opts out of the runtime's exclusivity checks (`@exclusivity(unchecked)`): the actor's
    /// isolation already serialises every access, and no method holds it across a call that could reach
    /// another (handlers run with the core between events and cannot call the actor synchronously).
    /// The checks cost a few hundred instructions per request, a third of what the shell adds to the core.
    @exclusivity(unchecked) var driver: CoreDriver

    // The lifetime, its loop and its timer (LocationEngine+Loop.swift)
    /// Whether ``run()`` is active.
    var isRunning = false
    /// The one timer, armed for the core's next wake-up.
    nonisolated let timer: WakeTimer<C>
    nonisolated let timerWakeups = ManagedAtomic<Int>(0)

    /// Creates an engine over `source`, timing with `clock`.
    public init(
        source: any LocationSource,
        clock: C,
        configuration: LocationEngineConfiguration = LocationEngineConfiguration(),
        logger: Logger = Logger(label: "LocationEngine")
    ) {
        self.init(sources: CollectionOfOne(source), clock: clock, configuration: configuration, logger: logger)
    }

    /// Creates an engine over several `sources` (at least one), timing with `clock`: the engine runs, for
    /// each request, the cheapest source that reaches what it asks, falls back to another while that one
    /// gives no fix, and fails a request only when no source left can serve it (see <doc:SeveralSources>).
    /// ``SourceID`` is a source's place in `sources`.
    public init(
        sources: some Collection<any LocationSource>,
        clock: C,
        configuration: LocationEngineConfiguration = LocationEngineConfiguration(),
        logger: Logger = Logger(label: "LocationEngine")
    ) {
        let sources = Array(sources)
        precondition(!sources.isEmpty, "LocationEngine(sources:): give at least one source")
        let time = EngineClock(clock)
        let inbox = Inbox()
        let privacy = PrivacyEpochs(policy: configuration.reducedAccuracy)
        let metrics = EngineMetrics(
            dimensions: configuration.metricsDimensions, sourceTypes: sources.map { String(describing: type(of: $0)) },
            factory: configuration.metricsFactory ?? MetricsSystem.factory)
        self.clock = clock
        self.time = time
        self.timer = WakeTimer(clock: clock, epoch: time.epoch)
        self.inbox = inbox
        self.privacy = privacy
        self.metrics = metrics
        var core = Machine.Configuration(
            linger: configuration.linger,
            sourceCapabilities: sources[0].capabilities,
            authorization: configuration.authorizationProvider.currentState(),
            usage: configuration.usage,
            preferredAuthorization: configuration.preferredAuthorization,
            reducedAccuracy: configuration.reducedAccuracy)
        core.powerDown = configuration.powerDown
        core.geofences = configuration.geofences
        core.otherSources = sources.dropFirst().map(\.capabilities)
        core.fallbackAfter = configuration.fallbackAfter
        let authorization = AuthorizationBridge(
            provider: configuration.authorizationProvider,
            // Weakly: a provider that outlives its engine answers into nothing.
            submit: { [weak inbox] state, delay, prompt in
                inbox?.send(.authorization(state, due: time.now() + max(.zero, delay), prompt: prompt))
            },
            privacy: privacy, onChange: configuration.onAuthorizationChange, metrics: metrics, logger: logger)
        self.driver = CoreDriver(
            machine: Machine(configuration: core), sources: SourceSessions(sources, metrics: metrics, logger: logger),
            authorization: authorization, inbox: inbox, now: { time.now() }, metrics: metrics, logger: logger)
    }

    /// Reads the core in place. A non-mutating read of the stored `machine` (a computed property, a
    /// method) made the optimizer copy the whole state machine first, retaining and releasing every
    /// reference in it; through `inout` the read borrows it where it is.
    @inline(__always)
    func inspect<Value>(_ read: (inout Machine) -> Value) -> Value { read(&driver.machine) }

    /// The current instant on the engine's timeline.
    nonisolated func now() -> EngineInstant { time.now() }

    // MARK: Entry points (nonisolated, from any thread)

    /// Appends a command for a new request and wakes the loop if it was parked. Once the engine has
    /// shut down, the request ends at once instead, on the caller's thread.
    @inline(__always)
    nonisolated func submit(_ make: (RequestID) -> EngineCommand) -> RequestID {
        let (id, wake, refused) = inbox.append(make)
        if let (command, picture) = refused { endAfterShutdown(command, authorization: picture) } else { wake.carryOut() }
        return id
    }

    /// Ends `command`'s request, refused once the engine had shut down, counted as every request is; out of line,
    /// off every submission's way.
    @inline(never)
    nonisolated func endAfterShutdown(_ command: EngineCommand, authorization picture: AuthorizationState) {
        inbox.countRefused(command)
        command.endAfterShutdown(authorization: picture, metrics: metrics)
    }

    /// Appends a command and wakes the loop if it was parked (dropped once the engine has shut down).
    @inline(__always)
    nonisolated func submit(_ command: EngineCommand) { inbox.send(command) }
}

extension LocationEngine where C == ContinuousClock {
    /// Creates an engine over `source` on the continuous (monotonic, wall) clock.
    public init(
        source: any LocationSource,
        configuration: LocationEngineConfiguration = LocationEngineConfiguration(),
        logger: Logger = Logger(label: "LocationEngine")
    ) {
        self.init(source: source, clock: ContinuousClock(), configuration: configuration, logger: logger)
    }

    /// Creates an engine over several `sources` on the continuous clock (see ``init(sources:clock:configuration:logger:)``).
    public init(
        sources: some Collection<any LocationSource>,
        configuration: LocationEngineConfiguration = LocationEngineConfiguration(),
        logger: Logger = Logger(label: "LocationEngine")
    ) {
        self.init(sources: sources, clock: ContinuousClock(), configuration: configuration, logger: logger)
    }
}

import Atomics
import CoreMetrics
import DequeModule
import Logging
import NIOConcurrencyHelpers

/// Multiplexes many concurrent location requests — one-shots with their own accuracy and timeout,
/// continuous subscriptions — over one ``LocationSource``, which it runs only while a request needs
/// fixes and only as hard as the most demanding one needs.
///
/// The engine is an actor around a pure ``SchedulerStateMachine``. Requests enter through a lock-light
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
    typealias Machine = SchedulerStateMachine<OneShotHandler, SubscriptionHandler>

    /// The sources, in the order given (``SourceID`` is the place in it).
    let sources: [any LocationSource]
    /// The clock the engine times with.
    public nonisolated let clock: C
    let epoch: C.Instant
    let configuration: LocationEngineConfiguration
    let logger: Logger
    nonisolated let inbox = Inbox()
    nonisolated let privacy: PrivacyEpochs
    nonisolated let metrics: EngineMetrics

    // The properties the loop touches for every command opt out of the runtime's exclusivity checks
    // (`@exclusivity(unchecked)`): the actor's isolation already serialises every access to them, and
    // no method holds one of them across a call that could reach another (handlers run with the core
    // between events and cannot call the actor synchronously). The checks cost a few hundred
    // instructions per request, a third of what the shell adds to the core.

    @exclusivity(unchecked) var machine: Machine
    /// The emptied buffer of the last batch, traded with the inbox's for the next one.
    @exclusivity(unchecked) var spareBatch = Deque<EngineCommand>()
    /// The withdrawals taken from the inbox and not yet handed to the core, oldest first (a buffer
    /// traded likewise; see ``takeWithdrawals(now:)``).
    @exclusivity(unchecked) var withdrawalBuffer = Deque<PendingWithdrawal>()
    /// Barrier commands processed so far: a withdrawal waits until this reaches its own count.
    @exclusivity(unchecked) var barriersProcessed: UInt64 = 0
    /// Handlers run so far: every 1,024 the clock is read during a delivery.
    @exclusivity(unchecked) var handlersRun = 0
    /// The source's session, the shell's one record of whether it runs: incremented on every start and
    /// on every stop (or first step down), so it is odd exactly while the source runs, and events
    /// carrying another session's value are dropped.
    /// Each source's session, odd while it runs (see `beginSourceSession`).
    @exclusivity(unchecked) var sourceGenerations: [UInt64]

    // The lifetime, its loop and its timer (LocationEngine+Loop.swift)
    /// Whether ``run()`` is active.
    var isRunning = false
    /// The one timer, armed for the core's next wake-up.
    nonisolated let timer: WakeTimer<C>
    nonisolated let timerWakeups = ManagedAtomic<Int>(0)

    // Authorization (LocationEngine+Authorization.swift): the picture, prompts and scheduled changes
    // live in the core; the shell talks to the provider and the observers.
    let authorizationProvider: any AuthorizationProvider
    /// Where the provider stands in the engine's lifetime: started when the engine first runs (or is
    /// first synced by hand), stopped when it shuts down.
    var providerLifetime = ProviderLifetime.notStarted
    var authorizationObservers: [RequestID: AsyncStream<AuthorizationState>.Continuation] = [:]

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
        self.sources = sources
        self.sourceGenerations = Array(repeating: 0, count: sources.count)
        self.clock = clock
        self.epoch = clock.now
        self.timer = WakeTimer(clock: clock, epoch: epoch)
        self.configuration = configuration
        self.logger = logger
        self.privacy = PrivacyEpochs(policy: configuration.reducedAccuracy)
        self.metrics = EngineMetrics(
            dimensions: configuration.metricsDimensions, sourceTypes: sources.map { String(describing: type(of: $0)) },
            factory: configuration.metricsFactory ?? MetricsSystem.factory)
        self.authorizationProvider = configuration.authorizationProvider
        var core = Machine.Configuration(
            linger: configuration.linger,
            sourceCapabilities: sources[0].capabilities,
            authorization: configuration.authorizationProvider.currentState(),
            usage: configuration.usage,
            preferredAuthorization: configuration.preferredAuthorization,
            reducedAccuracy: configuration.reducedAccuracy)
        // A delivery hands out at most this many recipients before what fell due meanwhile goes first
        // (the loop reads the clock every 1,024 handlers).
        core.deliverySlice = 1024
        core.powerDown = configuration.powerDown
        core.geofences = configuration.geofences
        core.otherSources = sources.dropFirst().map(\.capabilities)
        core.fallbackAfter = configuration.fallbackAfter
        self.machine = Machine(configuration: core)
    }

    /// Reads the core in place. A non-mutating read of the stored `machine` (a computed property, a
    /// method) made the optimizer copy the whole state machine first, retaining and releasing every
    /// reference in it; through `inout` the read borrows it where it is.
    @inline(__always)
    func inspect<Value>(_ read: (inout Machine) -> Value) -> Value { read(&machine) }

    /// The current instant on the engine's timeline.
    nonisolated func now() -> EngineInstant { EngineInstant(epoch.duration(to: clock.now)) }

    // MARK: Entry points (nonisolated, from any thread)

    /// Appends a command for a new request and wakes the loop if it was parked. Once the engine has
    /// shut down, the request ends at once instead, on the caller's thread.
    @inline(__always)
    nonisolated func submit(_ make: (RequestID) -> EngineCommand) -> RequestID {
        let (id, wake, refused) = inbox.append(make)
        if let (command, picture) = refused { command.endAfterShutdown(authorization: picture) } else { perform(wake) }
        return id
    }

    /// Appends a command and wakes the loop if it was parked (dropped once the engine has shut down).
    @inline(__always)
    nonisolated func submit(_ command: EngineCommand) {
        perform(inbox.append(command))
    }

    /// Does what the inbox asked after an append: nothing, or resume the parked loop.
    @inline(__always)
    nonisolated func perform(_ wake: Inbox.Wake) {
        if case .resume(let continuation) = wake { continuation.resume() }
    }

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

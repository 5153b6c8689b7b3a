import Hummingbird
import HummingbirdTesting
import InMemoryLogging
import LocationEngine
import LocationEngineTestKit
import Logging
import NIOConcurrencyHelpers
import NIOCore
import Prometheus
import ServiceLifecycle
import Testing

@testable import LocationServer

/// The server over a scripted source and a manual clock: nothing happens until a test emits a fix or
/// moves time.
struct TestServer {
    let clock = ManualClock()
    let source = ScriptedLocationSource()
    let registry = PrometheusCollectorRegistry()
    let counters: ServerCounters
    let engine: LocationEngine<ManualClock>
    let geofences: GeofenceRegistry
    let clients: ClientDirectory
    let clientRateLimit: RateLimit?
    let clientMaxOpen: Int?
    /// Each client's open requests (counted with `clientMaxOpen`).
    let openRequests = OpenRequests()
    /// What the engine logged (kept, not printed: a passing test prints nothing above `info`).
    let log = InMemoryLogHandler()

    /// A server whose engine's lifetime (`run()`) and fence store run in tasks of their own beside the
    /// router tests, unless `runningEngine` is false: a test of ``serviceGroup(onServerRunning:)`` leaves
    /// that to the group. Its database is `database` (a file restores the fences it keeps), in memory
    /// by default; `wallClock` is the store's time (Unix seconds); its clients those of `clients` (none: the
    /// local client), each limited to `clientRateLimit` and to `clientMaxOpen` requests open at once.
    init(
        runningEngine: Bool = true, maximumFences: Int = 100, maximumFencesPerClient: Int? = nil, database: String = ServerDatabase.inMemory,
        retention: EventStore.Retention = EventStore.Retention(count: 100_000, age: 86_400), recentCapacity: Int = 16_384,
        wallClock: WallClock = WallClock(), clients: ClientDirectory = .open(), clientRateLimit: RateLimit? = nil,
        clientMaxOpen: Int? = nil
    ) throws {
        self.clientMaxOpen = clientMaxOpen
        counters = ServerCounters(registry: registry)
        self.clients = clients
        self.clientRateLimit = clientRateLimit
        var configuration = LocationEngineConfiguration(linger: .zero)
        configuration.metricsFactory = PrometheusMetricsFactory(registry: registry)
        let engine = LocationEngine(source: source, clock: clock, configuration: configuration, logger: Logger(label: "engine") { [log] _ in log })
        self.engine = engine
        geofences = try GeofenceRegistry.open(
            database: database, retention: retention, maximumFences: maximumFences, maximumFencesPerClient: maximumFencesPerClient,
            counters: GeofenceCounters(registry: registry),
            logger: Logger(label: "geofences") { [log] _ in log }, recentCapacity: recentCapacity, now: { wallClock.now },
            restoringInto: engine)
        if runningEngine {
            Task { try await engine.run() }
            Task { [geofences] in try await geofences.run() }
        }
    }

    var serverApplication: LocationServerApplication<ManualClock> {
        LocationServerApplication(
            engine: engine, registry: registry, counters: counters, geofences: geofences, clients: clients, clientRateLimit: clientRateLimit,
            clientMaxOpen: clientMaxOpen, openRequests: openRequests)
    }

    var application: some ApplicationProtocol {
        serverApplication
            .build(configuration: .init(address: .hostname("127.0.0.1", port: 0)), logger: Logger(label: "test") { [log] _ in log })
    }

    /// The application and the engine in one service group, as `location-server` runs them, on a
    /// free port that `onServerRunning` receives; shut down by `triggerGracefulShutdown()` (no signals).
    func serviceGroup(
        address: BindAddress = .hostname("127.0.0.1", port: 0), onServerRunning: @escaping @Sendable (Int) -> Void
    ) -> ServiceGroup {
        serverApplication.serviceGroup(
            configuration: .init(address: address), logger: Logger(label: "test"), gracefulShutdownSignals: []
        ) { channel in
            onServerRunning(channel.localAddress?.port ?? 0)
        }
    }

    /// Runs ``serviceGroup(onServerRunning:)`` and, once it listens, `body` with the group and its port;
    /// returns when the group has returned (`body` triggers its shutdown).
    func withServiceGroup(
        address: BindAddress = .hostname("127.0.0.1", port: 0), _ body: (ServiceGroup, Int) async throws -> Void
    ) async throws {
        let (ports, portContinuation) = AsyncStream<Int>.makeStream()
        let group = serviceGroup(address: address) { portContinuation.yield($0) }
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask {
                // A group that fails before it listens ends the wait for its port too.
                defer { portContinuation.finish() }
                try await group.run()
            }
            var iterator = ports.makeAsyncIterator()
            guard let port = await iterator.next() else {   // the group never listened: its error, if it had one
                try await tasks.next()
                throw ServiceGroupDidNotListen()
            }
            try await body(group, port)
            try await tasks.next()   // the group has returned
        }
    }

    /// Returns once the engine has taken in `count` one-shots and subscriptions that are still pending.
    func waitUntilPending(oneShots: Int = 0, subscriptions: Int = 0) async {
        await waitUntil { $0.pendingOneShots >= oneShots && $0.activeSubscriptions >= subscriptions }
    }

    /// Returns once the engine's statistics satisfy `condition` (see ``yieldUntil(_:_:)``).
    func waitUntil(_ condition: @escaping (SchedulerStatistics) -> Bool) async {
        await Self.yieldUntil("the engine to hold the requests") { [engine] in condition(await engine.statistics()) }
    }

    /// Yields until `condition` holds, or records a failure naming `what` after 30 s on the clock or once the test
    /// is cancelled (its time limit): a request that never reached the engine, a stream that never opened. A guard
    /// against a hang, never an expectation about timing.
    static func yieldUntil(_ what: String, _ condition: () async -> Bool) async {
        let clock = ContinuousClock()
        let end = clock.now + .seconds(30)
        while await !condition() {
            guard clock.now < end, !Task.isCancelled else {
                let why = Task.isCancelled ? "the test's time limit" : "30 s"
                Issue.record("gave up waiting for \(what) (\(why))")
                return
            }
            await Task.yield()
        }
    }

    /// Sends `GET uri`, waits until the engine holds the requests it makes, runs `drive` (emit fixes,
    /// move the clock) and returns the response.
    func get(
        _ uri: String, with client: some TestClientProtocol, oneShots: Int = 0, subscriptions: Int = 0,
        then drive: () async -> Void
    ) async throws -> TestResponse {
        async let response = client.execute(uri: uri, method: .get)
        await waitUntilPending(oneShots: oneShots, subscriptions: subscriptions)
        await drive()
        return try await response
    }

    /// A city `/location` answered by a 100 m fix: the engine then knows a fix.
    func answerACityRequest(with client: some TestClientProtocol) async throws {
        _ = try await get("/location?accuracy=city&timeout=5", with: client, oneShots: 1) {
            source.emit(TestServer.fix(metres: 100))
            await engine.sync()
        }
    }

    /// A fix of `metres` accuracy at a fixed place.
    static func fix(metres: Double, latitude: Double = 48.137) -> Location {
        Location(latitude: latitude, longitude: 11.575, horizontalAccuracy: metres)
    }
}

/// The store's wall clock in a test: Unix seconds that only the test moves.
final class WallClock: Sendable {
    private let seconds: NIOLockedValueBox<Double>

    init(_ seconds: Double = 1_800_000_000) { self.seconds = NIOLockedValueBox(seconds) }

    var now: Double { seconds.withLockedValue { $0 } }

    func advance(by delta: Double) { seconds.withLockedValue { $0 += delta } }
}

/// The service group a test ran returned without listening, and without an error.
struct ServiceGroupDidNotListen: Error {}

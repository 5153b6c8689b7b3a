import Foundation
import LocationEngine
import Logging
import NIOConcurrencyHelpers

/// A client of GeoClue2, the Linux system location service (`org.freedesktop.GeoClue2` on the system bus):
/// positions from Wi-Fi, cell, a modem's GPS or network NMEA, as GeoClue has them.
///
/// Started, it gets GeoClue's client for its connection (`Manager.GetClient`), sets the application's
/// `DesktopId`, the `DistanceThreshold` and `TimeThreshold`, and `RequestedAccuracyLevel` from the mode the
/// engine asks for (``GeoClueAccuracyLevel/init(_:)``: city for the lowest mode, exact for the finest),
/// calls `Start`, and reports each `LocationUpdated` as a fix; stopped, it calls `Stop`
/// and leaves the bus. A change of mode restarts the client at the new level.
///
/// What can go wrong, and what the engine hears:
/// - GeoClue is not on the bus: a transient error (`geoclue.absent`) naming the service, then it waits for
///   the name to appear (`NameOwnerChanged`) and goes on; the same when GeoClue leaves mid-run (restarted,
///   crashed): a new client is made as soon as it is back, and waiting requests keep waiting.
/// - No agent has authorized the application: GeoClue does not answer `GetClient`. After
///   ``GeoClueConfiguration/callTimeout`` a transient error (`geoclue.agent`) says what to run, and it asks again.
/// - GeoClue or its agent refuses: *denied* through ``authorization`` when the engine uses it, else a
///   fatal error (`geoclue.denied`).
/// - The bus fails or is not there: a transient error (`geoclue.bus`), and it connects again with a growing
///   pause (``GeoClueConfiguration/retryDelay``).
/// - A location that is no fix (NaN, infinite, out of range, a negative accuracy): counted
///   (``Statistics/rejectedFixes``) and dropped, never delivered.
///
/// The source's lifetime ends with its ``run()``: one thread, from the first start or the run (whichever comes
/// first) to the run's end, serves each start of the engine on a private bus connection of its own, and sleeps
/// on the connection's socket between messages. An engine runs its sources' `run()` inside its own; a source
/// used without an engine is run by its user (`Task { await source.run() }`). After a run has ended, a start
/// waits for the next.
///
/// ```swift
/// let geoclue = GeoClueLocationSource(GeoClueConfiguration(desktopId: "my-service"))
/// let engine = LocationEngine(source: geoclue, configuration: LocationEngineConfiguration(
///     authorizationProvider: geoclue.authorization))
/// ```
public final class GeoClueLocationSource: LocationSource {
    /// What the source did since it was created.
    public struct Statistics: Sendable, Hashable {
        /// Starts by the engine.
        public var starts = 0
        /// Starts of GeoClue's client (one per start, more when GeoClue came back or the level changed).
        public var clientStarts = 0
        /// Fixes delivered.
        public var fixes = 0
        /// Locations dropped because they were no fix.
        public var rejectedFixes = 0
        /// Positions GeoClue reported at a level the engine had already left (asked before the client restarted
        /// at the new one): dropped, since the engine would take them as the new level's answer.
        public var earlierLevelFixes = 0
        /// Errors reported (transient and fatal).
        public var errors = 0
        /// Times GeoClue left the bus while the source ran.
        public var serviceRestarts = 0
        /// Times the bus started GeoClue for the source (it is started on demand and leaves when idle).
        public var activations = 0
        /// Times `GetClient` went unanswered for a call's timeout (no agent).
        public var agentWaits = 0
        /// Refusals by GeoClue or its agent.
        public var denials = 0
        /// Times the source's thread woke from waiting: for a message from the bus, for something the engine
        /// asked, or at the end of a pause between retries. With nothing happening it sleeps.
        public var wakeups = 0
        /// The accuracy level GeoClue's client was last started at, if it was.
        public var level: GeoClueAccuracyLevel?
        /// How long the source took from reading a `LocationUpdated` signal to handing its fix to the engine
        /// (the `GetAll` round trip included), the latest 4,096, in arrival order.
        public var handOverTimes: [Duration] = []

        mutating func recordFix(handOver: Duration) {
            fixes += 1
            if handOverTimes.count == 4096 { handOverTimes.removeFirst(1024) }
            handOverTimes.append(handOver)
        }
    }

    /// GeoClue gives a heading when it knows one; its reach and cost are the configuration's.
    public let capabilities: SourceCapabilities
    public let configuration: GeoClueConfiguration
    /// The engine's authorization as GeoClue decides it (see ``GeoClueAuthorization``).
    public let authorization = GeoClueAuthorization()

    private let statisticsBox: NIOLockedValueBox<Statistics>
    private let worker: GeoClueWorker
    private let logger: Logger
    private let wallClock: @Sendable () -> Double

    /// A client of GeoClue as `configuration` says.
    public init(_ configuration: GeoClueConfiguration, logger: Logger = Logger(label: "GeoClueLocationSource")) {
        self.configuration = configuration
        capabilities = SourceCapabilities(
            providesCourse: true, reach: configuration.reach, cost: SourceCost(watts: configuration.watts),
            reachByMode: configuration.reachByMode,
            firstFixByMode: Dictionary(uniqueKeysWithValues: PowerMode.allCases.map { ($0, configuration.firstFixTime) }))
        self.logger = logger
        wallClock = { Date().timeIntervalSince1970 }
        statisticsBox = NIOLockedValueBox(Statistics())
        worker = GeoClueWorker(statistics: statisticsBox)
    }

    /// The source's lifetime: serves the engine's starts on a thread of its own until the calling task is
    /// cancelled, then stops GeoClue's client and returns once the thread has ended. The engine calls it
    /// inside its own `run()`. A second `run()` while one is active returns at once.
    public func run() async { await worker.run() }

    /// What the source did so far.
    public var statistics: Statistics { statisticsBox.withLockedValue { $0 } }

    public func start(mode: PowerMode, events: SourceEventSink) {
        statisticsBox.withLockedValue { $0.starts += 1 }
        worker.start(
            GeoClueSession(
                mode: mode, wake: worker.wake, connector: worker.connector, configuration: configuration, events: events, statistics: statisticsBox,
                authorization: authorization, logger: logger, wallClock: wallClock))
    }

    public func setMode(_ mode: PowerMode) { worker.current?.setMode(mode) }

    public func stop() { worker.current?.stop() }
}

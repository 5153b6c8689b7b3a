import LocationEngine
import LocationEngineTestKit
import Logging
import NIOConcurrencyHelpers
import Testing

/// Collects what handlers receive, from whatever thread they run on.
final class Recorder: Sendable {
    private let results = NIOLockedValueBox<[RequestID: [LocationResult]]>([:])
    private let events = NIOLockedValueBox<[RequestID: [SubscriptionEvent]]>([:])

    /// A one-shot handler recording under the request ID the result carries.
    var oneShot: @Sendable (LocationResult) -> Void {
        { result in self.record(result, for: result.requestID) }
    }

    /// A subscription handler recording under the ID it is given.
    var subscription: @Sendable (RequestID, SubscriptionEvent) -> Void {
        { id, event in self.record(event, for: id) }
    }

    func record(_ result: LocationResult, for id: RequestID) {
        results.withLockedValue { $0[id, default: []].append(result) }
    }

    func record(_ event: SubscriptionEvent, for id: RequestID) {
        events.withLockedValue { $0[id, default: []].append(event) }
    }

    func results(_ id: RequestID) -> [LocationResult] { results.withLockedValue { $0[id] ?? [] } }
    func events(_ id: RequestID) -> [SubscriptionEvent] { events.withLockedValue { $0[id] ?? [] } }
    var allResults: [RequestID: [LocationResult]] { results.withLockedValue { $0 } }
    var allEvents: [RequestID: [SubscriptionEvent]] { events.withLockedValue { $0 } }
}

/// Holds an ID that a handler needs but that is only known after the submission returns.
final class IDSlot: Sendable {
    private let value = NIOLockedValueBox<RequestID?>(nil)
    func set(_ id: RequestID) { value.withLockedValue { $0 = id } }
    var id: RequestID? { value.withLockedValue { $0 } }
}

/// Yields until `condition` holds, a bounded number of times: waits on the scheduler (another task
/// must get to run), never on the wall clock. Records an issue if it never holds.
func eventually(
    _ what: String, sourceLocation: SourceLocation = #_sourceLocation, _ condition: () async -> Bool
) async {
    for _ in 0..<100_000 {
        if await condition() { return }
        await Task.yield()
    }
    Issue.record("never happened: \(what)", sourceLocation: sourceLocation)
}

func fix(_ metres: Double, latitude: Double = 48.0, course: Double? = nil) -> Location {
    Location(latitude: latitude, longitude: 11.0, horizontalAccuracy: metres, course: course)
}

/// The engines' logger in tests: a passing test prints nothing (a test that asserts on what the engine
/// logs gives it a handler of its own).
let quietLogger = Logger(label: "LocationEngine") { _ in SwiftLogNoOpLogHandler() }

/// An engine-level test suite: a manual clock, a scripted source and a recorder of what handlers
/// received, fresh for every test.
protocol EngineTestCase {
    var clock: ManualClock { get }
    var source: ScriptedLocationSource { get }
    var recorder: Recorder { get }
}

extension EngineTestCase {
    /// An engine on the suite's clock with this linger (and source); its `run()` started in a task
    /// unless `running` is false, for tests that drive it with `sync()` alone or run it themselves.
    func makeEngine(linger: Duration = .zero, source: ScriptedLocationSource? = nil, running: Bool = true) -> LocationEngine<ManualClock> {
        makeEngine(.init(linger: linger), source: source, running: running)
    }

    /// An engine on the suite's clock with this configuration (and source).
    func makeEngine(
        _ configuration: LocationEngineConfiguration, source: ScriptedLocationSource? = nil, running: Bool = true
    ) -> LocationEngine<ManualClock> {
        let engine = LocationEngine(source: source ?? self.source, clock: clock, configuration: configuration, logger: quietLogger)
        if running { Task { try await engine.run() } }
        return engine
    }
}

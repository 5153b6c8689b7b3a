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

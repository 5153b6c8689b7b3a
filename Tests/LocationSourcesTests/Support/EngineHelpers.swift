import LocationEngine
import NIOConcurrencyHelpers

/// An engine on the continuous clock that stops its source as soon as the last request ends.
func makeEngine(_ source: any LocationSource) -> LocationEngine<ContinuousClock> {
    LocationEngine(source: source, configuration: LocationEngineConfiguration(linger: .zero))
}

/// Reads a subscription's events until `isDone` says the collected ones are enough (then ends the
/// subscription), or until it ends by itself.
func collect(
    _ updates: LocationUpdates, until isDone: @escaping @Sendable ([SubscriptionEvent]) -> Bool
) async throws -> [SubscriptionEvent] {
    var events: [SubscriptionEvent] = []
    for try await event in updates {
        events.append(event)
        if isDone(events) { break }
    }
    return events
}

/// A one-shot through the callback API, so that the test can force-complete it by ID.
func forceCompletedResult(_ engine: LocationEngine<ContinuousClock>, accuracy: LocationAccuracy) async -> LocationResult {
    await withCheckedContinuation { (continuation: CheckedContinuation<LocationResult, Never>) in
        let id = engine.requestLocation(accuracy: accuracy, timeout: .seconds(600)) { continuation.resume(returning: $0) }
        engine.forceComplete(id)
    }
}

/// What a subscription running in the background received so far, for tests that act while it
/// runs; a test awaits a condition on it without polling.
final class LocationLog: Sendable {
    private struct State {
        var events: [SubscriptionEvent] = []
        var waiters: [(predicate: @Sendable ([SubscriptionEvent]) -> Bool, continuation: CheckedContinuation<Void, Never>)] = []
    }

    private let state = NIOLockedValueBox(State())

    func append(_ event: SubscriptionEvent) {
        let due = state.withLockedValue { state -> [CheckedContinuation<Void, Never>] in
            state.events.append(event)
            let events = state.events
            var due: [CheckedContinuation<Void, Never>] = []
            state.waiters.removeAll { waiter in
                guard waiter.predicate(events) else { return false }
                due.append(waiter.continuation)
                return true
            }
            return due
        }
        for continuation in due { continuation.resume() }
    }

    var all: [SubscriptionEvent] { state.withLockedValue { $0.events } }
    var locations: [Location] { all.compactMap(\.location) }

    /// Returns once `predicate` holds for the events received (at once if it already does).
    func waitUntil(_ predicate: @escaping @Sendable ([SubscriptionEvent]) -> Bool) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ready = state.withLockedValue { state in
                if predicate(state.events) { return true }
                state.waiters.append((predicate, continuation))
                return false
            }
            if ready { continuation.resume() }
        }
    }
}

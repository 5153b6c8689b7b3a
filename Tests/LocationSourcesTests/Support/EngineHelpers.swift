import LocationEngine
import LocationSources
import TestSupport
import NIOConcurrencyHelpers

/// An engine on the continuous clock that stops its source as soon as the last request ends,
/// logging into `log` (a source's failure is an `error` there, not on the test's output), its
/// lifetime (`run()`) started as an application without a service group starts it.
func makeEngine(_ source: any LocationSource, log: TestLog = TestLog()) -> LocationEngine<ContinuousClock> {
    let engine = LocationEngine(source: source, configuration: LocationEngineConfiguration(linger: .zero), logger: log.logger)
    Task { try await engine.run() }
    return engine
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
        let id = engine.location(accuracy: accuracy, timeout: .seconds(600)) { continuation.resume(returning: $0) }
        engine.forceComplete(id)
    }
}

/// What a subscription running in the background received so far, for tests that act while it
/// runs; a test awaits a condition on it without polling.
final class LocationLog: Sendable {
    private let events = Observed<[SubscriptionEvent]>([])

    func append(_ event: SubscriptionEvent) {
        events.update { $0.append(event) }
    }

    var all: [SubscriptionEvent] { events.value }
    var locations: [Location] { all.compactMap(\.location) }

    /// Returns once `predicate` holds for the events received (at once if it already does), or when the
    /// task is cancelled.
    func waitUntil(_ predicate: @escaping @Sendable ([SubscriptionEvent]) -> Bool) async {
        await events.waitUntil(predicate)
    }
}

extension ReconnectPolicy {
    /// For a test whose own task brings a link's first bytes (a writer it opens on a pipe, a terminal it writes): an
    /// answer timeout no busy machine reaches. A test task held up by the other suites (under ThreadSanitizer) past
    /// the default five seconds let the source close the link as silent, and retry, before the bytes came: a pipe's
    /// writer then failed with EPIPE, and the source gave up after its attempts. The test's deadline bounds a hang.
    static let waitingForTheTest = ReconnectPolicy(answerTimeout: .seconds(300))
}

@_spi(Internals) import LocationEngine
import LocationEngineTestKit
import NIOConcurrencyHelpers

/// The load test's view of its requests: the test kit's ``RequestLedger`` (the one locbench uses),
/// with what each request asked for recorded as it is made, behind a lock (handlers run on the
/// engine's executor while the test submits).
final class Ledger: Sendable {
    private let state = NIOLockedValueBox(RequestLedger(expectations: ExpectationTable()))

    func submitted(_ id: RequestID, _ expected: ExpectedRequest, at time: Duration) {
        state.withLockedValue { ledger in
            ledger.expectations.record(id, expected)
            ledger.submitted(id, at: time.saturatingNanoseconds)
        }
    }

    /// A cancel issued for `id`, which may not be submitted yet or may name no request at all.
    func issuedCancel(_ id: RequestID, at time: Duration) {
        state.withLockedValue { $0.issued(.cancelIssued, for: id, at: time.saturatingNanoseconds) }
    }

    func issuedForceComplete(_ id: RequestID, at time: Duration) {
        state.withLockedValue { $0.issued(.forceCompleteIssued, for: id, at: time.saturatingNanoseconds) }
    }

    func oneShotEnded(_ result: LocationResult, at time: Duration) {
        state.withLockedValue { _ = $0.oneShotEnded(result, at: time.saturatingNanoseconds) }
    }

    func subscriptionEvent(_ id: RequestID, _ event: SubscriptionEvent, at time: Duration) {
        state.withLockedValue { $0.subscriptionEvent(id, event, at: time.saturatingNanoseconds) }
    }

    /// The final checks, against the engine's own counters.
    func finish(_ statistics: SchedulerStatistics) -> LedgerSummary {
        state.withLockedValue { $0.finish(engineStatistics: statistics) }
    }
}

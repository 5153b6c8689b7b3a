import LocationEngine
import LocationEngineTestKit
import Testing

/// The exactly-once ledger that the load tests and locbench share must notice every broken promise:
/// a ledger that cannot fail would make both meaningless.
@Suite("Request ledger")
struct RequestLedgerTests {
    typealias Ledger = RequestLedger<ExpectationTable>

    static let second: Int64 = 1_000_000_000

    static func result(_ id: UInt64, _ status: LocationStatus, metres: Double? = 40) -> LocationResult {
        let location = metres.map { Location(latitude: 48, longitude: 11, horizontalAccuracy: $0) }
        return LocationResult(status: status, location: location, age: location == nil ? nil : .zero, achievedAccuracy: nil, requestID: RequestID(rawValue: id))
    }

    /// Two one-shots for a block (±100 m) with a 5 s timeout, submitted at 0 s.
    static func twoOneShots() -> Ledger {
        var ledger = Ledger(expectations: ExpectationTable())
        for raw in UInt64(1)...2 {
            ledger.expectations.record(RequestID(rawValue: raw), .oneShot(accuracy: .block, timeout: .seconds(5)))
            ledger.submitted(RequestID(rawValue: raw), at: 0)
        }
        return ledger
    }

    static func statistics(succeeded: Int = 0, timedOut: Int = 0, cancelled: Int = 0) -> SchedulerStatistics {
        var statistics = SchedulerStatistics()
        statistics.oneShotsSucceeded = succeeded
        statistics.oneShotsTimedOut = timedOut
        statistics.oneShotsCancelled = cancelled
        return statistics
    }

    @Test("a history that keeps every promise, counted as the engine counted it, has no violation")
    func clean() {
        var ledger = Self.twoOneShots()
        ledger.oneShotEnded(Self.result(1, .success), at: Self.second)
        ledger.oneShotEnded(Self.result(2, .timedOut, metres: nil), at: 5 * Self.second)
        let summary = ledger.finish(engineStatistics: Self.statistics(succeeded: 1, timedOut: 1))
        #expect(summary.violationCount == 0, "\(summary.violations)")
        #expect(summary.outcomes == [.succeeded: 1, .timedOut: 1])
    }

    @Test("a second ending, a success that fails its accuracy and an early timeout are each a violation")
    func brokenEndings() {
        var ledger = Self.twoOneShots()
        ledger.oneShotEnded(Self.result(1, .success, metres: 500), at: Self.second)
        ledger.oneShotEnded(Self.result(1, .timedOut, metres: nil), at: 5 * Self.second)
        ledger.oneShotEnded(Self.result(2, .timedOut, metres: nil), at: 4 * Self.second)
        #expect(ledger.violationCount == 3)
        #expect(ledger.violations[0].contains("±500.0 m"))
        #expect(ledger.violations[1].contains("ended 2 times"))
        #expect(ledger.violations[2].contains("before its deadline"))
    }

    @Test("a request that never ended and was never cancelled is lost; the engine's cancel count must agree")
    func lostRequest() {
        var ledger = Self.twoOneShots()
        ledger.oneShotEnded(Self.result(1, .success), at: Self.second)
        let summary = ledger.finish(engineStatistics: Self.statistics(succeeded: 1, cancelled: 0))
        #expect(summary.violations.contains { $0.contains("request #2") && $0.contains("never ended and was never cancelled") })
        #expect(summary.violations.contains { $0.contains("0 cancellations, but 1 were delivered") })
    }

    @Test("an engine that counts an ending twice disagrees with what was delivered")
    func doubleCounted() {
        var ledger = Self.twoOneShots()
        ledger.oneShotEnded(Self.result(1, .success), at: Self.second)
        ledger.oneShotEnded(Self.result(2, .success), at: Self.second)
        let summary = ledger.finish(engineStatistics: Self.statistics(succeeded: 3))
        #expect(summary.violationCount == 1)
        #expect(summary.violations.first?.contains("the engine counted 3 successes, but 2 were delivered") == true)
    }

    @Test("an update after the end, one past the maximum and a force-completion nobody asked for are violations")
    func brokenSubscription() {
        var ledger = Ledger(expectations: ExpectationTable())
        let id = RequestID(rawValue: 1)
        ledger.expectations.record(id, .subscription(SubscriptionOptions(maximumUpdates: 1)))
        ledger.submitted(id, at: 0)
        let update = SubscriptionEvent.location(
            LocationUpdate(location: Location(latitude: 48, longitude: 11, horizontalAccuracy: 10), age: .zero, achievedAccuracy: nil))
        ledger.subscriptionEvent(id, update, at: 1)
        ledger.subscriptionEvent(id, update, at: 2)
        ledger.subscriptionEvent(id, .ended(.forceCompleted), at: 3)
        ledger.subscriptionEvent(id, update, at: 4)
        #expect(ledger.violationCount == 3)
        #expect(ledger.violations[0].contains("update 2 of at most 1"))
        #expect(ledger.violations[1].contains("nobody asked"))
        #expect(ledger.violations[2].contains("after it ended"))
    }

    @Test("an ending for an ID nobody submitted, or one no engine could have given, is a violation")
    func unknownIDs() {
        var ledger = Self.twoOneShots()
        ledger.oneShotEnded(Self.result(0, .success), at: 0)
        ledger.oneShotEnded(Self.result(7, .success), at: 0)
        ledger.issued(.cancelIssued, for: RequestID(rawValue: 1), at: 0)
        ledger.issued(.cancelIssued, for: RequestID(rawValue: 2), at: 0)
        let summary = ledger.finish(engineStatistics: nil)
        #expect(summary.violations.contains { $0.contains("an ID no request could have: #0") })
        #expect(summary.violations.contains { $0.contains("never submitted") })
        #expect(summary.cancelled == 2)
    }

    @Test("a ledger follows one engine: an ending under another engine's ID of the same number is a violation, not that request's")
    func anotherEnginesID() {
        var ledger = Ledger(expectations: ExpectationTable())
        let ours = RequestID(engine: 3, sequence: 1)
        ledger.expectations.record(ours, .oneShot(accuracy: .block, timeout: .seconds(5)))
        ledger.submitted(ours, at: 0)
        let theirs = RequestID(engine: 4, sequence: 1)
        ledger.oneShotEnded(
            LocationResult(status: .success, location: Location(latitude: 48, longitude: 11, horizontalAccuracy: 40), age: .zero,
                achievedAccuracy: nil, requestID: theirs), at: 0)
        let summary = ledger.finish(engineStatistics: nil)
        #expect(summary.violations.contains { $0.contains("an ID of another engine: #1 (engine 4)") })
        #expect(summary.violations.contains { $0.contains("#1 (engine 3)") && $0.contains("never ended") }, "ours still waits")
    }
}

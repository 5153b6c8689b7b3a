import LocationEngine
import Testing

@Suite("Outcome names (metrics and machine-readable output)")
struct OutcomeNameTests {
    static let statuses: [LocationStatus] = [
        .success, .timedOut, .forceCompleted, .failed(SourceError(code: "x", message: "y")), .unauthorized(.denied),
        .accuracyReduced, .misconfigured(.noUsageDeclared), .rejected(reason: "r"), .shutDown,
    ]
    static let ends: [SubscriptionEnd] = [
        .maximumUpdatesReached, .durationElapsed, .forceCompleted, .failed(SourceError(code: "x", message: "y")),
        .headingUnavailable, .unauthorized(.denied), .accuracyReduced, .misconfigured(.noUsageDeclared), .rejected(reason: "r"),
        .shutDown,
    ]

    @Test("every status and ending has a distinct snake_case name, the same the metrics use")
    func names() {
        let statusNames = Self.statuses.map(\.outcome)
        let endNames = Self.ends.map(\.outcome)
        #expect(Set(statusNames).count == statusNames.count)
        #expect(Set(endNames).count == endNames.count)
        for name in statusNames + endNames {
            #expect(name.allSatisfy { $0.isLowercase || $0 == "_" }, "\(name)")
        }
        #expect(statusNames == ["success", "timed_out", "force_completed", "failed", "unauthorized", "accuracy_reduced", "misconfigured", "rejected", "shut_down"])
    }
}

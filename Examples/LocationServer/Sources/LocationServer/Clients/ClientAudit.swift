import LocationEngine
import Logging
import NIOConcurrencyHelpers
import Prometheus

/// Who asked and what was answered — the accuracy level, never the position: counted per client in
/// `/metrics` (`locationserver_client_answers{client, route, accuracy}`, and the refusals
/// `locationserver_client_refusals{client, status}`), and logged at `info` at most once per client per
/// minute (``AuditLog``).
final class ClientAudit: Sendable {
    private let registry: PrometheusCollectorRegistry
    private let state: NIOLockedValueBox<State>
    private let logger: Logger

    /// The log's sums and each label set's counter, under one lock. A counter is made once per label set
    /// and kept: the registry's `makeCounter` checks the name and the labels, builds their key and looks
    /// it up under the registry's lock, microseconds that every answer would otherwise pay. The label
    /// sets are bounded: the clients of the token file (or the local users), two routes, the levels.
    private struct State {
        var log: AuditLog<ContinuousClock.Instant>
        var answers: [AnswerLabels: Counter] = [:]
        var refusals: [RefusalLabels: Counter] = [:]
    }

    private struct AnswerLabels: Hashable {
        var client: String
        var route: String
        var level: String
    }

    private struct RefusalLabels: Hashable {
        var client: String
        var status: Int
    }

    init(registry: PrometheusCollectorRegistry, logger: Logger, interval: Duration = .seconds(60)) {
        self.registry = registry
        self.logger = logger
        state = NIOLockedValueBox(State(log: AuditLog(interval: interval)))
    }

    /// `client` was answered on `route` (`location`, `updates`) with a fix of `level` (`nil`: no fix).
    func answered(_ client: Client, route: String, level: AccuracyLevelName) {
        let now = ContinuousClock.now
        let labels = AnswerLabels(client: client.name, route: route, level: level.text)
        let (counter, summary) = state.withLockedValue { state in
            let counter = state.answers.made(labels) {
                registry.makeCounter(descriptor: Self.answers, labels: [("client", labels.client), ("route", labels.route), ("accuracy", labels.level)])
            }
            return (counter, state.log.record(client.name, level: level.text, at: now))
        }
        counter.increment()
        if let summary {
            logger.info("\(summary.text)", metadata: ["client": "\(client.name)", "permission": "\(client.permission.rawValue)"])
        }
    }

    /// `client` was refused with `status` (403 for its permission, 429 for its rate).
    func refused(_ client: Client, status: Int) {
        let labels = RefusalLabels(client: client.name, status: status)
        state.withLockedValue { state in
            state.refusals.made(labels) {
                registry.makeCounter(descriptor: Self.refusals, labels: [("client", labels.client), ("status", "\(labels.status)")])
            }
        }.increment()
    }

    private static var answers: MetricNameDescriptor {
        MetricNameDescriptor(
            namespace: "locationserver", metricName: "client_answers", unitName: "",
            helpText: "Answers and stream updates per client, by route and the accuracy level of the fix sent (none: no fix)")
    }

    private static var refusals: MetricNameDescriptor {
        MetricNameDescriptor(
            namespace: "locationserver", metricName: "client_refusals", unitName: "",
            helpText: "Requests refused per client, by HTTP status (403: beyond its permission, 429: past its rate limit)")
    }
}

/// The accuracy level an answer carried, as the audit names it: the level's name, `coarser` for a fix that
/// reaches none (coarser or older than city), or `none` for an answer without a fix.
struct AccuracyLevelName: Sendable, Equatable {
    let text: String

    /// The name of an answer whose fix reaches `level` (`nil`: no level).
    init(fixReaching level: AccuracyLevel?) {
        text = level?.description ?? "coarser"
    }

    private init(text: String) {
        self.text = text
    }

    /// An answer without a fix.
    static let noFix = AccuracyLevelName(text: "none")
}

extension Dictionary where Value == Counter {
    /// The counter of `key`, made by `make` the first time.
    /// - Complexity: O(1) on average.
    fileprivate mutating func made(_ key: Key, by make: () -> Counter) -> Counter {
        if let counter = self[key] { return counter }
        let counter = make()
        self[key] = counter
        return counter
    }
}

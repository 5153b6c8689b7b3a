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
    private let log: NIOLockedValueBox<AuditLog<ContinuousClock.Instant>>
    private let logger: Logger

    init(registry: PrometheusCollectorRegistry, logger: Logger, interval: Duration = .seconds(60)) {
        self.registry = registry
        self.logger = logger
        log = NIOLockedValueBox(AuditLog(interval: interval))
    }

    /// `client` was answered on `route` (`location`, `updates`) with a fix of `level` (`nil`: no fix).
    func answered(_ client: Client, route: String, level: AccuracyLevelName) {
        registry.makeCounter(
            descriptor: Self.answers, labels: [("client", client.name), ("route", route), ("accuracy", level.text)]
        ).increment()
        let now = ContinuousClock.now
        if let summary = log.withLockedValue({ $0.record(client.name, level: level.text, at: now) }) {
            logger.info("\(summary.text)", metadata: ["client": "\(client.name)", "permission": "\(client.permission.rawValue)"])
        }
    }

    /// `client` was refused with `status` (403 for its permission, 429 for its rate).
    func refused(_ client: Client, status: Int) {
        registry.makeCounter(descriptor: Self.refusals, labels: [("client", client.name), ("status", "\(status)")]).increment()
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

/// The accuracy level an answer carried, as the audit names it: the level's name, or `none`.
struct AccuracyLevelName: Sendable, Equatable {
    let text: String

    init(_ level: AccuracyLevel?) {
        text = level?.description ?? "none"
    }
}

import CoreMetrics
import NMEA

/// A source's swift-metrics, named and labelled like the engine's (`locationsource_…`, snake-case
/// label values, a `source` dimension of `gpsd` or `nmea` plus the application's own dimensions).
/// Nothing is paid until the application bootstraps a metrics backend.
///
/// | metric | type | dimensions |
/// |---|---|---|
/// | `locationsource_connections`, `locationsource_disconnections` | counter | `source` |
/// | `locationsource_fixes` | counter | `source`, `result`: `delivered`, the drops `duplicate`, `invalid`, `stale` (see ``DroppedFixes``), and `no_fix`, `no_position`, `no_accuracy` |
/// | `locationsource_input_skipped` | counter | `source`, `reason`: `oversized_line`, `malformed`, `unexpected_class`, `rejected_sentence` |
/// | `locationsource_receiver_commands` | counter | `source`, `command`: `identify`, `tracking`, `rate`, `power_save`, `standby`, `backup`; `result`: `acknowledged`, `acknowledged_late`, `confirmed_by_silence`, `refused`, `unanswered`, `garbled`, `link_lost`, `superseded` |
/// | `locationsource_receiver_fallbacks` | counter | `source`, `fallback`: `close_port`, `keep_setting`, `plain`, `sleep_on_reconnect` |
struct SourceMetrics: Sendable {
    enum FixResult: String, CaseIterable {
        case delivered, duplicate, invalid, stale
        case noFix = "no_fix"
        case noPosition = "no_position"
        case noAccuracy = "no_accuracy"
    }

    enum SkipReason: String, CaseIterable {
        case oversizedLine = "oversized_line"
        case malformed
        case unexpectedClass = "unexpected_class"
        case rejectedSentence = "rejected_sentence"
    }

    let connections: Counter
    let disconnections: Counter
    private let fixes: [FixResult: Counter]
    private let skipped: [SkipReason: Counter]
    private let makeCounter: @Sendable (String, [(String, String)]) -> Counter

    init(source: String, dimensions: [(String, String)], factory: (any MetricsFactory)?) {
        let factory = factory ?? MetricsSystem.factory
        let base = [("source", source)] + dimensions
        func counter(_ label: String, _ extra: [(String, String)] = []) -> Counter {
            Counter(label: label, dimensions: base + extra, factory: factory)
        }
        connections = counter("locationsource_connections")
        disconnections = counter("locationsource_disconnections")
        fixes = Dictionary(uniqueKeysWithValues: FixResult.allCases.map { ($0, counter("locationsource_fixes", [("result", $0.rawValue)])) })
        skipped = Dictionary(
            uniqueKeysWithValues: SkipReason.allCases.map { ($0, counter("locationsource_input_skipped", [("reason", $0.rawValue)])) })
        makeCounter = { label, extra in Counter(label: label, dimensions: base + extra, factory: factory) }
    }

    /// Counts a receiver command's outcome. The counter is made at each use through the factory, which hands back
    /// the one it made for these labels: commands come a few a minute at most, and most sources never send one.
    func receiverCommand(_ kind: ReceiverCommand.Kind, _ outcome: ReceiverDriverStateMachine.Outcome) {
        makeCounter("locationsource_receiver_commands", [("command", kind.rawValue), ("result", outcome.rawValue)]).increment()
    }

    /// Counts a fallback taken after a failed receiver command.
    func receiverFallback(_ fallback: ReceiverDriverStateMachine.Fallback) {
        makeCounter("locationsource_receiver_fallbacks", [("fallback", fallback.rawValue)]).increment()
    }

    func fix(_ result: FixResult, count: Int = 1) {
        guard count > 0 else { return }
        fixes[result]!.increment(by: count)
    }

    func skipped(_ reason: SkipReason, count: Int = 1) {
        guard count > 0 else { return }
        skipped[reason]!.increment(by: count)
    }
}

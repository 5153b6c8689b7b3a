import CoreMetrics

/// The engine's metrics, through swift-metrics: they cost nothing until the application bootstraps a
/// metrics backend (the engine never does). Every label starts with `locationengine_`; `dimensions`
/// from the configuration are added to each (to tell several engines apart). The labels, their types
/// and dimensions are documented once, in the LocationEngine catalog's Metrics article.
struct EngineMetrics: Sendable {
    enum Kind: Int, CaseIterable {
        case oneShot, subscription
        var label: String { self == .oneShot ? "oneshot" : "subscription" }
    }

    enum PromptKind: String, CaseIterable {
        case authorization, temporaryFullAccuracy = "temporary_full_accuracy", locationButton = "location_button"
    }

    private let submitted: [Counter]
    private let pendingGauges: [Gauge]
    private let oneShotEnded: [Counter]
    private let subscriptionEnded: [Counter]
    let sourceOn: Gauge
    let sourceMode: Gauge
    let sourceStarts: Counter
    let sourceStops: Counter
    let timeoutLateness: Timer
    let fixDeliveryLatency: Timer
    private let prompts: [String: Counter]
    private let fixesAccepted: Counter
    private let fixesDropped: Counter
    let timerWakeups: Counter
    /// Steps down of the restart-aware rule, by idle state and rule.
    private let powerDowns: [String: Counter]
    /// How long the receiver stayed on before its last step down, seconds.
    let powerDownAfter: Gauge
    /// Each source's own, dimensioned by its place (`source`) and its type (`type`).
    let sources: [SourceMetrics]

    /// Fixes dropped because a recent, more accurate fix from another source already said as much.
    let fixesSuperseded: Counter

    /// One source's metrics: starts, stops, fixes reported, errors (transient and fatal), its total time on
    /// (live while it runs), and what it delivered by mode: its first fixes' mean time and its silent runs.
    struct SourceMetrics: Sendable {
        let starts: Counter
        let stops: Counter
        let fixes: Counter
        let transientErrors: Counter
        let fatalErrors: Counter
        let onSeconds: Gauge
        /// By mode (raw value): the mean time of its first fixes, seconds, and how many runs stayed silent.
        let firstFixSeconds: [Gauge]
        let silentRuns: [Gauge]
    }

    init(dimensions: [(String, String)], sourceTypes: [String] = [], factory: any MetricsFactory) {
        func label(_ name: String) -> String { "locationengine_" + name }
        sources = sourceTypes.enumerated().map { index, type in
            let own = dimensions + [("source", "\(index)"), ("type", type)]
            return SourceMetrics(
                starts: Counter(label: label("source_session_starts"), dimensions: own, factory: factory),
                stops: Counter(label: label("source_session_stops"), dimensions: own, factory: factory),
                fixes: Counter(label: label("source_fixes"), dimensions: own, factory: factory),
                transientErrors: Counter(label: label("source_errors"), dimensions: own + [("kind", "transient")], factory: factory),
                fatalErrors: Counter(label: label("source_errors"), dimensions: own + [("kind", "fatal")], factory: factory),
                onSeconds: Gauge(label: label("source_on_seconds"), dimensions: own, factory: factory),
                firstFixSeconds: PowerMode.allCases.map {
                    Gauge(label: label("source_first_fix_seconds"), dimensions: own + [("mode", $0.description)], factory: factory)
                },
                silentRuns: PowerMode.allCases.map {
                    Gauge(label: label("source_silent_runs"), dimensions: own + [("mode", $0.description)], factory: factory)
                })
        }
        fixesSuperseded = Counter(label: label("fixes_superseded"), dimensions: dimensions, factory: factory)
        submitted = Kind.allCases.map { Counter(label: label("requests_submitted"), dimensions: dimensions + [("kind", $0.label)], factory: factory) }
        pendingGauges = Kind.allCases.map { Gauge(label: label("requests_pending"), dimensions: dimensions + [("kind", $0.label)], factory: factory) }
        oneShotEnded = Self.oneShotOutcomes.map {
            Counter(label: label("requests_ended"), dimensions: dimensions + [("kind", "oneshot"), ("outcome", $0)], factory: factory)
        }
        subscriptionEnded = Self.subscriptionOutcomes.map {
            Counter(label: label("requests_ended"), dimensions: dimensions + [("kind", "subscription"), ("outcome", $0)], factory: factory)
        }
        sourceOn = Gauge(label: label("source_on"), dimensions: dimensions, factory: factory)
        sourceMode = Gauge(label: label("source_mode"), dimensions: dimensions, factory: factory)
        sourceStarts = Counter(label: label("source_starts"), dimensions: dimensions, factory: factory)
        sourceStops = Counter(label: label("source_stops"), dimensions: dimensions, factory: factory)
        timeoutLateness = Timer(label: label("timeout_lateness"), dimensions: dimensions, factory: factory)
        fixDeliveryLatency = Timer(label: label("fix_delivery_latency"), dimensions: dimensions, factory: factory)
        prompts = Dictionary(
            uniqueKeysWithValues: PromptKind.allCases.map {
                ($0.rawValue, Counter(label: label("authorization_prompts"), dimensions: dimensions + [("kind", $0.rawValue)], factory: factory))
            })
        fixesAccepted = Counter(label: label("fixes"), dimensions: dimensions + [("result", "accepted")], factory: factory)
        fixesDropped = Counter(label: label("fixes"), dimensions: dimensions + [("result", "dropped")], factory: factory)
        timerWakeups = Counter(label: label("timer_wakeups"), dimensions: dimensions, factory: factory)
        var powerDowns: [String: Counter] = [:]
        for state in ReceiverPowerProfile.IdleState.allCases where state != .on {
            for rule in PowerDownDecider.Step.Rule.allCases where rule != .demandEnded {
                powerDowns[state.rawValue + "/" + rule.rawValue] = Counter(
                    label: label("source_power_downs"), dimensions: dimensions + [("state", state.rawValue), ("rule", rule.rawValue)], factory: factory)
            }
        }
        self.powerDowns = powerDowns
        powerDownAfter = Gauge(label: label("source_power_down_after_seconds"), dimensions: dimensions, factory: factory)
        sourceOn.record(0)
        sourceMode.record(-1)
    }

    static let oneShotOutcomes = [
        "success", "timed_out", "force_completed", "cancelled", "failed", "unauthorized", "accuracy_reduced", "misconfigured",
        "rejected", "shut_down",
    ]
    static let subscriptionOutcomes = [
        "maximum_updates_reached", "duration_elapsed", "force_completed", "cancelled", "failed", "heading_unavailable",
        "unauthorized", "accuracy_reduced", "misconfigured", "rejected", "shut_down",
    ]

    @inline(__always)
    func submitted(_ kind: Kind) { submitted[kind.rawValue].increment() }

    func pending(oneShots: Int, subscriptions: Int) {
        pendingGauges[Kind.oneShot.rawValue].record(oneShots)
        pendingGauges[Kind.subscription.rawValue].record(subscriptions)
    }

    func ended(_ status: LocationStatus, count: Int) {
        oneShotEnded[Self.oneShotOutcomes.firstIndex(of: status.outcome)!].increment(by: count)
    }

    func ended(_ end: SubscriptionEnd, count: Int) {
        subscriptionEnded[Self.subscriptionOutcomes.firstIndex(of: end.outcome)!].increment(by: count)
    }

    func cancelled(_ kind: Kind, count: Int = 1) {
        switch kind {
        case .oneShot: oneShotEnded[3].increment(by: count)
        case .subscription: subscriptionEnded[3].increment(by: count)
        }
    }

    func prompted(_ kind: PromptKind) { prompts[kind.rawValue]?.increment() }

    func fixReceived(dropped: Bool) { (dropped ? fixesDropped : fixesAccepted).increment() }

    func poweredDown(_ step: PowerDownDecider.Step) {
        powerDowns[step.state.rawValue + "/" + step.rule.rawValue]?.increment()
        powerDownAfter.record(Double(step.after.saturatingNanoseconds) / 1e9)
    }

    func source(mode: PowerMode?) {
        sourceOn.record(mode == nil ? 0 : 1)
        sourceMode.record(mode?.rawValue ?? -1)
    }
}

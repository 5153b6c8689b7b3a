import LocationEngine
import NIOConcurrencyHelpers
import Prometheus

/// What the server's fences did, for `/metrics` and the exit report: `locationserver_geofences` (fences
/// monitored now) and `locationserver_geofence_transitions{transition}` (transitions delivered, by the
/// engine's name for each, ``GeofenceTransition/name``).
final class GeofenceCounters: Sendable {
    /// Totals since the server started.
    struct Totals: Sendable, Codable, Equatable {
        /// Fences answered 201.
        var created = 0
        /// Fences ended by the engine (shutdown, denial, failure).
        var ended = 0
        /// Fences ended by `DELETE`.
        var deleted = 0
        /// Transitions delivered to the registry (each was sent to every listener then open).
        var transitions = 0
        /// Events a slow listener's full buffer dropped (its oldest unread).
        var eventsDropped = 0
        /// `GET /geofences/events` streams opened and closed.
        var listenersOpened = 0
        var listenersClosed = 0
    }

    private let state = NIOLockedValueBox(Totals())
    private let monitored: Gauge
    private let transitionCounters: [String: Counter]

    init(registry: PrometheusCollectorRegistry) {
        monitored = registry.makeGauge(
            descriptor: MetricNameDescriptor(
                namespace: "locationserver", metricName: "geofences", unitName: "", helpText: "Fences monitored (POST /geofences)"))
        let descriptor = MetricNameDescriptor(
            namespace: "locationserver", metricName: "geofence_transitions", unitName: "", helpText: "Geofence transitions delivered, by transition")
        transitionCounters = Dictionary(
            uniqueKeysWithValues: GeofenceTransition.names.map { ($0, registry.makeCounter(descriptor: descriptor, labels: [("transition", $0)])) })
    }

    var totals: Totals { state.withLockedValue { $0 } }

    func created() {
        state.withLockedValue { $0.created += 1 }
        monitored.increment()
    }

    /// A monitored fence ended, by the engine or by `DELETE`.
    func ended(deleted: Bool) {
        state.withLockedValue { totals in
            if deleted { totals.deleted += 1 } else { totals.ended += 1 }
        }
        monitored.decrement()
    }

    func delivered(_ transition: GeofenceTransition) {
        state.withLockedValue { $0.transitions += 1 }
        transitionCounters[transition.name]?.increment()
    }

    /// `count` events did not fit a listener's buffer.
    func eventsDropped(_ count: Int) {
        guard count > 0 else { return }
        state.withLockedValue { $0.eventsDropped += count }
    }

    func listenerOpened() { state.withLockedValue { $0.listenersOpened += 1 } }
    func listenerClosed() { state.withLockedValue { $0.listenersClosed += 1 } }
}

extension GeofenceTransition {
    /// The transition's name in events and metrics: the engine's own (``description``), with a
    /// determined transition named `determined` (its state goes beside it).
    var name: String {
        if case .determined = self { return "determined" }
        return description
    }

    /// Every name ``name`` takes.
    static let names = [GeofenceTransition.determined(.unknown), .entered, .exited, .dwelled, .becameUnknown].map(\.name)
}

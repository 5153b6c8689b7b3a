import LocationEngine
import NIOConcurrencyHelpers
import Prometheus

/// What the server's fences did, for `/metrics` and the exit report: `locationserver_geofences` (fences
/// kept now, monitored or waiting to be monitored again), `locationserver_geofence_suspensions` and
/// `locationserver_geofence_remonitors` (ends outside a fence that kept it, and its monitorings again) and
/// `locationserver_geofence_transitions{transition}` (transitions delivered, by the
/// engine's name for each, ``GeofenceTransition/name``), the store's work
/// (`locationserver_geofence_events_stored`, `locationserver_geofence_store_seconds`,
/// `locationserver_geofence_store_failures`, `locationserver_geofence_events_expired_unstored`) and how long an
/// event took from the engine to a stream (`locationserver_geofence_event_delivery_seconds`).
final class GeofenceCounters: Sendable {
    /// Totals since the server started.
    struct Totals: Sendable, Codable, Equatable {
        /// Fences answered 201.
        var created = 0
        /// Fences restored from the database at start.
        var restored = 0
        /// Fences ended by the engine and removed (a refused body), or kept by its shutdown for the next start.
        var ended = 0
        /// Ends outside a fence (the source failed, access was refused) that kept it to monitor it again.
        var suspensions = 0
        /// Kept fences monitored again.
        var remonitored = 0
        /// Fences ended by `DELETE`.
        var deleted = 0
        /// Transitions delivered to the registry (each was sent to every listener then open).
        var transitions = 0
        /// Events stored, in how many transactions (batches), and the time spent in them.
        var eventsStored = 0
        var storeBatches = 0
        var storeSeconds = 0.0
        /// The largest batch, in writes (events and fence rows).
        var largestBatch = 0
        /// Transactions that failed (each is tried again).
        var storeFailures = 0
        /// Events that the retention by count removed before the database, refusing writes, took them:
        /// never stored nor sent (``StoreBacklog``).
        var eventsExpiredUnstored = 0
        /// `GET /geofences/events` streams opened and closed.
        var listenersOpened = 0
        var listenersClosed = 0
    }

    private let state = NIOLockedValueBox(Totals())
    private let monitored: Gauge
    private let suspensionCounter: Counter
    private let remonitorCounter: Counter
    private let transitionCounters: [String: Counter]
    private let storedCounter: Counter
    private let failureCounter: Counter
    private let expiredUnstoredCounter: Counter
    private let storeSecondsCounter: Counter
    private let delivery: DurationHistogram

    init(registry: PrometheusCollectorRegistry) {
        monitored = registry.makeGauge(descriptor: .server("geofences", "Fences kept (POST /geofences), monitored or waiting to be monitored again"))
        suspensionCounter = registry.makeCounter(
            descriptor: .server(
                "geofence_suspensions",
                "Fences the engine ended for a reason outside them (the source failed, access was refused), kept to monitor again"))
        remonitorCounter = registry.makeCounter(descriptor: .server("geofence_remonitors", "Kept fences monitored again"))
        let descriptor = MetricNameDescriptor.server("geofence_transitions", "Geofence transitions delivered, by transition")
        transitionCounters = Dictionary(
            uniqueKeysWithValues: GeofenceTransition.names.map { ($0, registry.makeCounter(descriptor: descriptor, labels: [("transition", $0)])) })
        storedCounter = registry.makeCounter(descriptor: .server("geofence_events_stored", "Geofence events committed to the database"))
        storeSecondsCounter = registry.makeCounter(
            descriptor: .server("geofence_store", unit: "seconds", "Time spent in the database transactions of geofence writes"))
        failureCounter = registry.makeCounter(
            descriptor: .server("geofence_store_failures", "Database transactions of geofence writes that failed (each is retried)"))
        expiredUnstoredCounter = registry.makeCounter(
            descriptor: .server(
                "geofence_events_expired_unstored",
                "Geofence events past the retention by count before a database refusing writes took them (never sent)"))
        delivery = registry.makeDurationHistogram(
            descriptor: .server(
                "geofence_event_delivery", unit: "seconds",
                "From the engine's transition to its write on a /geofences/events stream (events sent from memory)"),
            buckets: Self.deliveryBuckets)
    }

    /// 100 µs to 10 s, about six to a decade from 10 to 200 ms, where a fix deciding thousands of fences lands.
    static let deliveryBuckets: [Duration] = [
        .microseconds(100), .microseconds(200), .microseconds(500), .milliseconds(1), .milliseconds(2), .milliseconds(5),
        .milliseconds(10), .milliseconds(15), .milliseconds(20), .milliseconds(30), .milliseconds(50), .milliseconds(75),
        .milliseconds(100), .milliseconds(150), .milliseconds(200), .milliseconds(300), .milliseconds(500),
        .seconds(1), .seconds(2), .seconds(5), .seconds(10),
    ]

    var totals: Totals { state.withLockedValue { $0 } }

    func created() {
        state.withLockedValue { $0.created += 1 }
        monitored.increment()
    }

    /// A fence was kept after an end outside it.
    func suspended() {
        state.withLockedValue { $0.suspensions += 1 }
        suspensionCounter.increment()
    }

    /// A kept fence was monitored again.
    func remonitored() {
        state.withLockedValue { $0.remonitored += 1 }
        remonitorCounter.increment()
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

    /// A batch of `writes` holding `events` events was committed in `seconds`.
    func stored(events: Int, writes: Int, seconds: Double) {
        state.withLockedValue { totals in
            totals.eventsStored += events
            totals.storeBatches += 1
            totals.storeSeconds += seconds
            totals.largestBatch = max(totals.largestBatch, writes)
        }
        storedCounter.increment(by: Int64(events))
        storeSecondsCounter.increment(by: seconds)
    }

    func storeFailed() {
        state.withLockedValue { $0.storeFailures += 1 }
        failureCounter.increment()
    }

    /// `count` events waiting for a database that refused writes went past the retention meanwhile.
    func expiredUnstored(_ count: Int) {
        state.withLockedValue { $0.eventsExpiredUnstored += count }
        expiredUnstoredCounter.increment(by: Int64(count))
    }

    /// A stream sent an event `latency` after the engine decided it.
    func delivered(after latency: Duration) { delivery.record(latency) }

    func restored(_ count: Int) {
        state.withLockedValue { $0.restored += count }
        monitored.increment(by: Double(count))
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

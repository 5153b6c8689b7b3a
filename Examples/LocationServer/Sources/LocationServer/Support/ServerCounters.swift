import CHeapUsage
import Prometheus
import NIOConcurrencyHelpers

/// What the HTTP side did, for `/metrics` and the exit report: one-shot requests and event streams
/// started and ended, and the heap in use.
final class ServerCounters: Sendable {
    /// Totals since the server started.
    struct Totals: Sendable, Codable, Equatable {
        var locationRequestsStarted = 0
        var locationRequestsEnded = 0
        var streamsOpened = 0
        var streamsClosed = 0
    }

    private struct State {
        var totals = Totals()
    }

    private let state = NIOLockedValueBox(State())
    private let locationInFlight: Gauge
    private let locationTotal: Counter
    private let streamsOpen: Gauge
    private let streamsTotal: Counter
    private let heapInUse: Gauge
    /// Time to a result, for successes and for every other ending (mostly timeouts, which wait by design).
    private let locationDuration: (success: DurationHistogram, other: DurationHistogram)

    init(registry: PrometheusCollectorRegistry) {
        locationInFlight = registry.makeGauge(descriptor: .server("location_in_flight", "GET /location requests waiting for their result"))
        locationTotal = registry.makeCounter(descriptor: .server("location_requests", "GET /location requests answered"))
        streamsOpen = registry.makeGauge(descriptor: .server("streams_open", "GET /updates event streams open"))
        streamsTotal = registry.makeCounter(descriptor: .server("streams_closed", "GET /updates event streams closed"))
        let durationName = MetricNameDescriptor.server(
            "location_duration", unit: "seconds", "GET /location: from the handler's start to the engine's result")
        let buckets = [1, 5, 10, 25, 50, 100, 250, 500, 1000, 2000, 2500, 5000, 10000].map { Duration.milliseconds($0) }
        locationDuration = (
            registry.makeDurationHistogram(descriptor: durationName, labels: [("outcome", "success")], buckets: buckets),
            registry.makeDurationHistogram(descriptor: durationName, labels: [("outcome", "other")], buckets: buckets)
        )
        heapInUse = registry.makeGauge(
            descriptor: .server("heap_in_use", unit: "bytes", "malloc heap in use (glibc mallinfo2), read at each scrape"))
    }

    var totals: Totals { state.withLockedValue { $0.totals } }

    func locationStarted() {
        state.withLockedValue { $0.totals.locationRequestsStarted += 1 }
        locationInFlight.increment()
    }

    /// A one-shot's handler ended `duration` after it started, successfully or not (its request
    /// timed out, was refused, or the handler threw).
    func locationEnded(after duration: Duration, success: Bool) {
        state.withLockedValue { $0.totals.locationRequestsEnded += 1 }
        locationInFlight.decrement()
        locationTotal.increment()
        (success ? locationDuration.success : locationDuration.other).record(duration)
    }

    func streamOpened() {
        state.withLockedValue { $0.totals.streamsOpened += 1 }
        streamsOpen.increment()
    }

    func streamClosed() {
        state.withLockedValue { $0.totals.streamsClosed += 1 }
        streamsOpen.decrement()
        streamsTotal.increment()
    }

    /// Reads the heap in use into its gauge (at each scrape of `/metrics`) and returns it.
    @discardableResult
    func sampleHeap() -> UInt64 {
        let bytes = HeapUsage.bytesInUse()
        heapInUse.set(to: Double(bytes))
        return bytes
    }
}

/// The process's malloc heap.
enum HeapUsage {
    /// Bytes handed out by malloc and not yet freed, over all arenas (0 where glibc's figures are unavailable).
    static func bytesInUse() -> UInt64 { cheapusage_heap_in_use() }
}

extension MetricNameDescriptor {
    /// The descriptor of the server's metric `locationserver_<metric>` (an empty unit is left out of the name).
    static func server(_ metric: String, unit: String = "", _ help: String) -> MetricNameDescriptor {
        MetricNameDescriptor(namespace: "locationserver", metricName: metric, unitName: unit, helpText: help)
    }
}

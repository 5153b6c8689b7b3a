import CHeapUsage
import Prometheus
import Synchronization

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
        /// Waiters for a number of closed streams (tests).
        var streamWaiters: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []
    }

    private let state = Mutex(State())
    private let locationInFlight: Gauge
    private let locationTotal: Counter
    private let streamsOpen: Gauge
    private let streamsTotal: Counter
    private let heapInUse: Gauge

    init(registry: PrometheusCollectorRegistry) {
        // An empty unit is left out of the name.
        func name(_ metric: String, unit: String = "", _ help: String) -> MetricNameDescriptor {
            MetricNameDescriptor(namespace: "locationserver", metricName: metric, unitName: unit, helpText: help)
        }
        locationInFlight = registry.makeGauge(descriptor: name("location_in_flight", "GET /location requests waiting for their result"))
        locationTotal = registry.makeCounter(descriptor: name("location_requests", "GET /location requests answered"))
        streamsOpen = registry.makeGauge(descriptor: name("streams_open", "GET /updates event streams open"))
        streamsTotal = registry.makeCounter(descriptor: name("streams_closed", "GET /updates event streams closed"))
        heapInUse = registry.makeGauge(
            descriptor: name("heap_in_use", unit: "bytes", "malloc heap in use (glibc mallinfo2), read at each scrape"))
    }

    var totals: Totals { state.withLock { $0.totals } }

    func locationStarted() {
        state.withLock { $0.totals.locationRequestsStarted += 1 }
        locationInFlight.increment()
    }

    func locationEnded() {
        state.withLock { $0.totals.locationRequestsEnded += 1 }
        locationInFlight.decrement()
        locationTotal.increment()
    }

    func streamOpened() {
        state.withLock { $0.totals.streamsOpened += 1 }
        streamsOpen.increment()
    }

    func streamClosed() {
        let due = state.withLock { state in
            state.totals.streamsClosed += 1
            let closed = state.totals.streamsClosed
            let due = state.streamWaiters.filter { $0.count <= closed }.map(\.continuation)
            state.streamWaiters.removeAll { $0.count <= closed }
            return due
        }
        streamsOpen.decrement()
        streamsTotal.increment()
        for continuation in due { continuation.resume() }
    }

    /// Returns once `count` streams have closed since the server started.
    func waitForClosedStreams(_ count: Int) async {
        await withCheckedContinuation { continuation in
            let ready = state.withLock { state in
                guard state.totals.streamsClosed < count else { return true }
                state.streamWaiters.append((count, continuation))
                return false
            }
            if ready { continuation.resume() }
        }
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

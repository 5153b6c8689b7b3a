import Hummingbird
import Prometheus

/// `GET /metrics` (Prometheus text format: the engine's swift-metrics and the server's own) and
/// `GET /health`.
///
/// `/metrics` answers precise clients only: its counts carry no position, but the fences' transition counts
/// move when the device crosses a fence's boundary (to the metre, as the fence's own events would say), which
/// an approximate client may not learn and a client with permission `none` may learn nothing of.
struct ServiceRoutes {
    let registry: PrometheusCollectorRegistry
    let counters: ServerCounters
    let audit: ClientAudit

    func register(on router: Router<ServerRequestContext>) {
        router.get("metrics") { _, context in
            try ClientView(try context.requireIdentity(), audit: audit).requirePrecise("metrics")
            counters.sampleHeap()
            var buffer: [UInt8] = []
            buffer.reserveCapacity(16_384)
            registry.emit(into: &buffer)
            return Response(
                status: .ok,
                headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                body: ResponseBody(byteBuffer: ByteBuffer(bytes: buffer)))
        }
        router.get("health") { _, _ in "ok\n" }
    }
}

import Hummingbird
import Prometheus

/// `GET /metrics` (Prometheus text format: the engine's swift-metrics and the server's own) and
/// `GET /health`.
struct ServiceRoutes {
    let registry: PrometheusCollectorRegistry
    let counters: ServerCounters

    func register(on router: Router<ServerRequestContext>) {
        router.get("metrics") { _, _ in
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

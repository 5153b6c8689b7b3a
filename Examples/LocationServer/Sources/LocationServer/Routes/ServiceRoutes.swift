import Hummingbird
import Prometheus

/// `GET /metrics` (Prometheus text format: the engine's swift-metrics and the server's own) and
/// `GET /health`.
///
/// `/metrics` answers precise clients only: its counts carry no position, but the fences' transition counts
/// move when the device crosses a fence's boundary (to the metre, as the fence's own events would say), which
/// an approximate client may not learn and a client with permission `none` may learn nothing of. A precise
/// client that is not an admin gets them without the series of the fences (every client's) and of the other
/// clients' activity (``withoutOtherClients(_:keeping:)``): when another's fence is crossed, and which clients
/// ask what, are not its own.
struct ServiceRoutes {
    let registry: PrometheusCollectorRegistry
    let counters: ServerCounters
    let audit: ClientAudit

    func register(on router: Router<ServerRequestContext>) {
        router.get("metrics") { _, context in
            let client = try context.requireIdentity()
            try ClientView(client, audit: audit).requirePrecise("metrics")
            counters.sampleHeap()
            var buffer: [UInt8] = []
            buffer.reserveCapacity(16_384)
            registry.emit(into: &buffer)
            if !client.isAdmin { buffer = Self.withoutOtherClients(buffer, keeping: client.name) }
            return Response(
                status: .ok,
                headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                body: ResponseBody(byteBuffer: ByteBuffer(bytes: buffer)))
        }
        router.get("health") { _, _ in "ok\n" }
    }

    /// Prometheus text without the fences' families (`locationserver_geofence…`: lines of samples, `# HELP` and
    /// `# TYPE`) and without the samples of the clients' families (`locationserver_client_…`) labelled with
    /// another client than `name`.
    static func withoutOtherClients(_ text: [UInt8], keeping name: String) -> [UInt8] {
        let own = Array("client=\"\(name)\"".utf8)
        var kept: [UInt8] = []
        kept.reserveCapacity(text.count)
        for line in text.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).dropLast(text.last == UInt8(ascii: "\n") ? 1 : 0) {
            // `# HELP family …`, `# TYPE family …`, or `family{labels} value`.
            let isComment = line.first == UInt8(ascii: "#")
            let fields = line.split(separator: UInt8(ascii: " "), maxSplits: 3)
            let family = isComment ? (fields.count > 2 ? fields[2] : line[line.endIndex...]) : line.prefix { $0 != UInt8(ascii: "{") && $0 != UInt8(ascii: " ") }
            if family.starts(with: "locationserver_geofence".utf8) { continue }
            if !isComment, family.starts(with: "locationserver_client_".utf8) {
                let labels = line.drop { $0 != UInt8(ascii: "{") }.prefix { $0 != UInt8(ascii: "}") }
                guard labels.firstRange(of: own) != nil else { continue }
            }
            kept += line
            kept.append(UInt8(ascii: "\n"))
        }
        return kept
    }
}

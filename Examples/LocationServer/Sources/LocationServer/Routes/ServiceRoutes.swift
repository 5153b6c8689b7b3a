import Hummingbird
import Prometheus

/// `GET /metrics` (Prometheus text format: the engine's swift-metrics and the server's own) and
/// `GET /health`.
///
/// `/metrics` answers precise clients only: its counts carry no position, but the fences' transition counts
/// move when the device crosses a fence's boundary (to the metre, as the fence's own events would say), which
/// an approximate client may not learn and a client with permission `none` may learn nothing of. A precise
/// client that is not an admin gets its own samples of the clients' families and nothing else
/// (``ownSamples(_:of:)``): every other series moves with what the other clients do — the engine's requests
/// with their fences and their `/location` calls, its fix deliveries when their fence is crossed, the source's
/// mode with how near the device is to their boundaries.
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
            if !client.isAdmin { buffer = Self.ownSamples(buffer, of: client.name) }
            return Response(
                status: .ok,
                headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                body: ResponseBody(byteBuffer: ByteBuffer(bytes: buffer)))
        }
        router.get("health") { _, _ in "ok\n" }
    }

    /// Prometheus text with only the samples of the clients' families (`locationserver_client_…`) labelled with
    /// client `name`, each family's `# HELP` and `# TYPE` lines before its first: a family appears once its first
    /// counter exists, whichever client's, so a header alone would say that another client was answered or
    /// refused. An allow-list, not a deny-list: a series the engine or the server adds later is the admin's
    /// until it is judged to say nothing of the other clients.
    ///
    /// Written by hand: no library filters Prometheus text by family and label.
    static func ownSamples(_ text: [UInt8], of name: String) -> [UInt8] {
        let own = Array("client=\"\(name)\"".utf8)
        let clients = Array("locationserver_client_".utf8)
        var kept: [UInt8] = []
        // The current family's comment lines, until a sample of it is kept.
        var header: [UInt8] = []
        var headerFamily: ArraySlice<UInt8> = []
        for line in text.split(separator: UInt8(ascii: "\n")) {
            // `# HELP family …`, `# TYPE family …`, or `family{labels} value`.
            if line.first == UInt8(ascii: "#") {
                let fields = line.split(separator: UInt8(ascii: " "), maxSplits: 3)
                guard fields.count > 2 else { continue }
                // The text gives each family's lines together: another family's comment starts another header.
                if fields[2] != headerFamily {
                    header.removeAll(keepingCapacity: true)
                    headerFamily = fields[2]
                }
                if fields[2].starts(with: clients) { header += line + [UInt8(ascii: "\n")] }
                continue
            }
            let family = line.prefix { $0 != UInt8(ascii: "{") && $0 != UInt8(ascii: " ") }
            guard family.starts(with: clients) else { continue }
            let labels = line.drop { $0 != UInt8(ascii: "{") }.prefix { $0 != UInt8(ascii: "}") }
            guard labels.firstRange(of: own) != nil else { continue }
            kept += header
            header.removeAll(keepingCapacity: true)
            kept += line
            kept.append(UInt8(ascii: "\n"))
        }
        return kept
    }
}

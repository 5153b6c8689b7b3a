import Hummingbird
import HummingbirdTesting
import Testing

@testable import LocationServer

@Suite("GET /metrics and /health")
struct ServiceRoutesTests {
    @Test("health answers ok")
    func health() async throws {
        try await TestServer().application.test(.router) { client in
            let answer = try await client.execute(uri: "/health", method: .get)
            #expect(answer.status == .ok)
            #expect(String(buffer: answer.body) == "ok\n")
        }
    }

    @Test("metrics carry the engine's counters and the server's, in Prometheus text format")
    func metrics() async throws {
        let server = try TestServer()
        try await server.application.test(.router) { client in
            try await server.answerACityRequest(with: client)

            let answer = try await client.execute(uri: "/metrics", method: .get)
            #expect(answer.status == .ok)
            let text = String(buffer: answer.body)
            #expect(text.contains(#"locationengine_requests_submitted{kind="oneshot"} 1"#))
            #expect(text.contains(#"locationengine_requests_ended{kind="oneshot",outcome="success"} 1"#))
            #expect(text.contains("locationserver_location_requests 1"))
            #expect(text.contains("locationserver_location_in_flight 0"))
            #expect(text.contains("locationserver_heap_in_use_bytes "))
        }
    }
}

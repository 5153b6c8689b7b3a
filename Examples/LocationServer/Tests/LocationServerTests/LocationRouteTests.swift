import Foundation
import Hummingbird
import HummingbirdTesting
import LocationEngine
import Testing

@testable import LocationServer

@Suite("GET /location")
struct LocationRouteTests {
    @Test("a fix meeting the accuracy answers success with the fix and its achieved level")
    func success() async throws {
        let server = TestServer()
        try await server.application.test(.router) { client in
            let answer = try await server.get("/location?accuracy=block&timeout=10s", with: client, oneShots: 1) {
                server.source.emit(TestServer.fix(metres: 40))
                await server.engine.sync()
            }
            #expect(answer.status == .ok)
            let body = try JSONDecoder().decode(LocationResponse.self, from: answer.body)
            #expect(body.status == "success")
            #expect(body.fix?.horizontalAccuracy == 40)
            #expect(body.achievedAccuracy == "block")
        }
        #expect(server.counters.totals.locationRequestsStarted == 1)
        #expect(server.counters.totals.locationRequestsEnded == 1)
    }

    @Test("the timeout passing first answers timed_out with the best fix so far")
    func timedOut() async throws {
        let server = TestServer()
        try await server.application.test(.router) { client in
            let answer = try await server.get("/location?accuracy=room&timeout=2s", with: client, oneShots: 1) {
                server.source.emit(TestServer.fix(metres: 40))
                await server.engine.sync(advancingBy: .seconds(2))
            }
            #expect(answer.status == .ok)
            let body = try JSONDecoder().decode(LocationResponse.self, from: answer.body)
            #expect(body.status == "timed_out")
            #expect(body.fix?.horizontalAccuracy == 40)
        }
    }

    @Test("custom metres with a maximum age")
    func customAccuracy() async throws {
        let server = TestServer()
        try await server.application.test(.router) { client in
            let answer = try await server.get("/location?accuracy=30&maxAge=20s&timeout=1", with: client, oneShots: 1) {
                server.source.emit(TestServer.fix(metres: 25))
                await server.engine.sync()
            }
            let body = try JSONDecoder().decode(LocationResponse.self, from: answer.body)
            #expect(body.status == "success")
        }
    }

    @Test("maxAge holds for a named level: a cached fix older than it does not answer")
    func maxAgeWithALevel() async throws {
        let server = TestServer()
        try await server.application.test(.router) { client in
            _ = try await server.get("/location?accuracy=city&timeout=5", with: client, oneShots: 1) {
                server.source.emit(TestServer.fix(metres: 40))
                await server.engine.sync()
            }
            await server.engine.sync(advancingBy: .seconds(2))
            // Without maxAge the 2 s old fix is recent enough for city (600 s): served from the cache.
            let cached = try await client.execute(uri: "/location?accuracy=city&timeout=1", method: .get)
            #expect(try JSONDecoder().decode(LocationResponse.self, from: cached.body).status == "success")
            let fresh = try await server.get("/location?accuracy=city&maxAge=1&timeout=1", with: client, oneShots: 1) {
                await server.engine.sync(advancingBy: .seconds(1))
            }
            let body = try JSONDecoder().decode(LocationResponse.self, from: fresh.body)
            #expect(body.status == "timed_out", "the only fix is 2 s old, maxAge is 1 s")
        }
    }

    @Test(
        "bad parameters answer 400 with a message naming them",
        arguments: [
            ("/location?accuracy=street", "accuracy=street"),
            ("/location?accuracy=-5", "accuracy=-5"),
            ("/location?accuracy=NaN", "accuracy=NaN"),
            ("/location?timeout=-1s", "timeout=-1s"),
            ("/location?timeout=soon", "timeout=soon"),
            ("/location?acuracy=block", "unknown parameter 'acuracy'"),
            ("/location?maxAge=abc", "maxAge=abc"),
            ("/location?accuracy=city&maxAge=-1", "maxAge=-1"),
            ("/location?timeout=2s&timeout=3s", "'timeout' is given more than once"),
        ])
    func badParameters(uri: String, message: String) async throws {
        let server = TestServer()
        try await server.application.test(.router) { client in
            let answer = try await client.execute(uri: uri, method: .get)
            #expect(answer.status == .badRequest)
            #expect(String(buffer: answer.body).contains(message))
        }
        #expect(await server.engine.statistics().oneShotsSubmitted == 0)
    }
}

import Foundation
import Hummingbird
import HummingbirdTesting
import LocationEngine
import NIOCore
import Testing

@testable import LocationServer

@Suite("GET /location")
struct LocationRouteTests {
    /// The message of an error answer's JSON body (`{"error": {"message": …}}`).
    static func errorMessage(_ body: ByteBuffer) throws -> String {
        struct Answer: Decodable {
            struct Error: Decodable { var message: String }
            var error: Error
        }
        return try JSONDecoder().decode(Answer.self, from: Data(String(buffer: body).utf8)).error.message
    }

    @Test("a fix meeting the accuracy answers success with the fix and its achieved level")
    func success() async throws {
        let server = try TestServer()
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
            #expect(body.achievedAccuracyLimitedBy == "radius")
        }
        #expect(server.counters.totals.locationRequestsStarted == 1)
        #expect(server.counters.totals.locationRequestsEnded == 1)
    }

    @Test("a precise fix grown old says that its age, not its radius, set the achieved level")
    func achievedLevelLimitedByAge() async throws {
        let server = try TestServer()
        try await server.application.test(.router) { client in
            _ = try await server.get("/location?accuracy=room&timeout=10s", with: client, oneShots: 1) {
                server.source.emit(TestServer.fix(metres: 2.9))
                await server.engine.sync()
            }
            await server.engine.sync(advancingBy: .seconds(69))
            // From the cache: 2.9 m meets room, but at 69 s old only neighborhood's age limit (5 min).
            let answer = try await client.execute(uri: "/location?accuracy=city&timeout=10s", method: .get)
            let body = try JSONDecoder().decode(LocationResponse.self, from: answer.body)
            #expect(body.status == "success")
            #expect(body.fix?.horizontalAccuracy == 2.9)
            #expect(body.achievedAccuracy == "neighborhood")
            #expect(body.achievedAccuracyLimitedBy == "age")
        }
    }

    @Test("an unknown route answers 404 with a JSON error naming the routes, its slashes as they are; a known path with another method 405 with Allow")
    func unknownRoute() async throws {
        let server = try TestServer()
        try await server.application.test(.router) { client in
            let answer = try await client.execute(uri: "/nowhere", method: .get)
            #expect(answer.status == .notFound)
            #expect(answer.headers[.contentType]?.hasPrefix("application/json") == true)
            #expect(String(buffer: answer.body).contains("no route GET /nowhere; the server answers GET /location, GET /updates"))
            for (method, uri, allowed) in [
                (HTTPRequest.Method.post, "/location", "GET"), (.delete, "/updates", "GET"), (.put, "/geofences", "GET, POST"),
                (.post, "/geofences/7", "GET, DELETE"), (.delete, "/geofences/events", "GET"), (.post, "/metrics", "GET"),
            ] {
                let answer = try await client.execute(uri: uri, method: method)
                #expect(answer.status == .methodNotAllowed, "\(method) \(uri)")
                #expect(answer.headers[.allow] == allowed, "\(method) \(uri)")
                #expect(try Self.errorMessage(answer.body) == "\(uri) answers \(allowed), not \(method)")
            }
            // A route's own 404 keeps its message.
            let fence = try Self.errorMessage(try await client.execute(uri: "/geofences/9", method: .get).body)
            #expect(fence.hasPrefix("no fence 9"), "\(fence)")
        }
    }

    @Test("the timeout passing first answers timed_out with the best fix so far")
    func timedOut() async throws {
        let server = try TestServer()
        try await server.application.test(.router) { client in
            let answer = try await server.get("/location?accuracy=room&timeout=2s", with: client, oneShots: 1) {
                server.source.emit(TestServer.fix(metres: 40))
                await server.engine.sync(advancingBy: .seconds(2))
            }
            #expect(answer.status == .ok)
            let body = try JSONDecoder().decode(LocationResponse.self, from: answer.body)
            #expect(body.status == "timed_out")
            #expect(body.fix?.horizontalAccuracy == 40)
            #expect(body.reason?.code == "accuracy_not_reached" && body.reason?.message.contains("±40 m") == true, "\(body)")
        }
    }

    @Test("custom metres with a maximum age")
    func customAccuracy() async throws {
        let server = try TestServer()
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
        let server = try TestServer()
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
        let server = try TestServer()
        try await server.application.test(.router) { client in
            let answer = try await client.execute(uri: uri, method: .get)
            #expect(answer.status == .badRequest)
            #expect(String(buffer: answer.body).contains(message))
        }
        #expect(await server.engine.statistics().oneShotsSubmitted == 0)
    }
}

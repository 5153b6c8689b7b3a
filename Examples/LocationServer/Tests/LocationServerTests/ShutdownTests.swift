import Foundation
import Hummingbird
import HummingbirdTesting
import LocationEngine
import Testing

@testable import LocationServer

@Suite("Graceful shutdown")
struct ShutdownTests {
    @Test(
        "pending one-shots are answered 503 shut_down at once, streams end with shut_down, the source stops",
        .timeLimit(.minutes(1)))
    func shutdownEndsEverythingPending() async throws {
        let server = try TestServer(runningEngine: false)
        try await server.withServiceGroup { group, port in
            // Requests that nothing but the shutdown can end: a day's timeout on a clock that never moves.
            let oneShots = Task {
                try await withThrowingTaskGroup(of: TestClient.Response.self) { requests in
                    for _ in 0..<3 {
                        requests.addTask {
                            try await TestClient.withClient(host: "127.0.0.1", port: port) { try await $0.get("/location?accuracy=1&timeout=1d") }
                        }
                    }
                    return try await requests.reduce(into: [TestClient.Response]()) { $0.append($1) }
                }
            }
            let stream = Task {
                try await TestClient.withClient(host: "127.0.0.1", port: port) { try await $0.get("/updates?accuracy=city") }
            }
            await server.waitUntilPending(oneShots: 3, subscriptions: 1)
            server.source.emit(TestServer.fix(metres: 10))   // too coarse for 1 m; the stream gets it
            await server.waitUntil { $0.subscriptionUpdates >= 1 }

            await group.triggerGracefulShutdown()

            for answer in try await oneShots.value {
                #expect(answer.status == .serviceUnavailable)
                #expect(answer.headers[.retryAfter] == "5")
                let body = try JSONDecoder().decode(LocationResponse.self, from: answer.body ?? ByteBuffer())
                #expect(body.status == "shut_down")
            }
            let events = String(buffer: try await stream.value.body ?? ByteBuffer())
            #expect(events.hasSuffix("event: end\ndata: {\"reason\":\"shut_down\",\"updates\":1}\n\n"), "\(events)")
        }
        let statistics = await server.engine.statistics()
        #expect(statistics.pendingOneShots == 0 && statistics.activeSubscriptions == 0)
        #expect(statistics.oneShotsFailed == 3, "ended by the shutdown, not cancelled")
        #expect(statistics.subscriptionsEnded == 1)
        #expect(!server.source.isRunning)
        #expect(server.counters.totals.locationRequestsEnded == 3 && server.counters.totals.streamsClosed == 1)
    }

    @Test("once the engine has shut down, the fence routes answer 503 shut_down, not an empty list or 404: the fences are kept", .timeLimit(.minutes(1)))
    func fenceRoutesAfterShutdown() async throws {
        try await StorageTestSupport.withDatabaseFile { path in
            let server = try TestServer(database: path)
            try await server.application.test(.router) { client in
                #expect(try await GeofenceRoutesTests.post(GeofenceRoutesTests.depot, with: client).status == .created)
                await server.waitUntilPending(subscriptions: 1)
                await server.engine.shutdown()
                #expect(server.geofences.isShutDown)
                let routes = [("/geofences", HTTPRequest.Method.get), ("/geofences/1", .get), ("/geofences/1", .delete), ("/geofences/events", .get)]
                for (uri, method) in routes {
                    let answer = try await client.execute(uri: uri, method: method)
                    #expect(answer.status == .serviceUnavailable, "\(method) \(uri)")
                    #expect(answer.headers[.retryAfter] == "5")
                    #expect(String(buffer: answer.body).contains("shut_down"))
                }
                try await server.geofences.journal.flush()
                let kept = try await server.geofences.journal.database.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM fence") }
                #expect(kept == 1, "kept for the next start, and no DELETE went through")
                await server.geofences.close()
            }
        }
    }

    @Test("a stream asked for once the engine has shut down is answered 503 shut_down, not 200 with an end alone", .timeLimit(.minutes(1)))
    func updatesAfterShutdown() async throws {
        let server = try TestServer(runningEngine: false)
        try await server.application.test(.router) { client in
            await server.engine.shutdown()
            let answer = try await client.execute(uri: "/updates?accuracy=city", method: .get)
            #expect(answer.status == .serviceUnavailable)
            #expect(answer.headers[.retryAfter] == "5")
            #expect(answer.headers[.contentType] != "text/event-stream")
            #expect(String(buffer: answer.body).contains("shut_down: the server is stopping"), "\(String(buffer: answer.body))")
        }
        #expect(server.counters.totals.streamsOpened == 0)
    }

    @Test("a fence the engine ends as it is created (here: shut down) is never written to the database: a crash before its removal could have brought it back to a creator told 503", .timeLimit(.minutes(1)))
    func fenceEndedAtCreationIsNotStored() async throws {
        try await StorageTestSupport.withDatabaseFile { path in
            // The fence store's writer is not running: what the creation appended stays pending, to be read.
            let server = try TestServer(runningEngine: false, database: path)
            await server.engine.shutdown()
            // The route's path for a creation the shutdown overtook after its check: reserved, ended by the engine at once.
            let registry = server.geofences
            let body = try GeofenceBody(json: Data(GeofenceRoutesTests.depot.utf8))
            let id = try registry.reserve(body, owner: Client.local.name)
            let monitor = server.engine.monitor(body.region, options: body.options) { _, event in registry.deliver(event, toFence: id) }
            await server.engine.sync()
            #expect(registry.claim(id, request: monitor) == .ended(.shutDown))
            let pending = server.geofences.journal.state.withLockedValue { $0.pending }
            #expect(!pending.contains { if case .fence = $0 { true } else { false } }, "\(pending)")
            #expect(!pending.contains { if case .event = $0 { true } else { false } }, "no listener hears of a fence never created: \(pending)")
            #expect(pending.contains { if case .lastFenceID(1) = $0 { true } else { false } }, "its id is never handed out again: \(pending)")
        }
    }

    @Test("a POST once the engine has shut down is answered 503 shut_down, even at the cap (not 409), and reserves nothing", .timeLimit(.minutes(1)))
    func createAfterShutdown() async throws {
        try await StorageTestSupport.withDatabaseFile { path in
            let server = try TestServer(maximumFences: 1, database: path)
            try await server.application.test(.router) { client in
                #expect(try await GeofenceRoutesTests.post(GeofenceRoutesTests.depot, with: client).status == .created)
                await server.waitUntilPending(subscriptions: 1)
                await server.engine.shutdown()
                let answer = try await GeofenceRoutesTests.post(GeofenceRoutesTests.depot, with: client)
                #expect(answer.status == .serviceUnavailable, "\(String(buffer: answer.body))")
                #expect(answer.headers[.retryAfter] == "5")
                #expect(String(buffer: answer.body).contains("shut_down"))
                let pending = server.geofences.journal.state.withLockedValue { $0.pending }
                #expect(!pending.contains { if case .lastFenceID(2) = $0 { true } else { false } }, "no id reserved: \(pending)")
                await server.geofences.close()
            }
        }
    }
}

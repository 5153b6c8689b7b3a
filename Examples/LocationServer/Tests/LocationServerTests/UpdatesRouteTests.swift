import Foundation
import Hummingbird
import HummingbirdCore
import HummingbirdTesting
import LocationEngine
import LocationEngineTestKit
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import Testing

@testable import LocationServer

@Suite("GET /updates")
struct UpdatesRouteTests {
    @Test("fixes passing the filters stream as events, then the end with its reason")
    func streamsUntilMaximumUpdates() async throws {
        let server = try TestServer()
        try await server.application.test(.router) { client in
            let answer = try await server.get("/updates?maxUpdates=2&distance=100", with: client, subscriptions: 1) {
                server.source.emit(TestServer.fix(metres: 10, latitude: 48.000))
                server.source.emit(TestServer.fix(metres: 10, latitude: 48.0001))   // 11 m away: filtered out
                server.source.emit(TestServer.fix(metres: 10, latitude: 48.010))    // 1.1 km away
                await server.engine.sync()
            }
            #expect(answer.status == .ok)
            #expect(answer.headers[.contentType] == "text/event-stream")
            let events = String(buffer: answer.body).components(separatedBy: "\n\n").filter { !$0.isEmpty }
            #expect(events.count == 3)
            #expect(events.prefix(2).allSatisfy { $0.hasPrefix("event: location\ndata: {") })
            #expect(events.last == #"event: end"# + "\n" + #"data: {"reason":"maximum_updates_reached","updates":2}"#)
        }
        #expect(server.counters.totals.streamsClosed == 1)
    }

    @Test(
        "a request for a stream that carries a body is refused: behind a body it never reads, the stream would not see its client go",
        .timeLimit(.minutes(1)),
        arguments: [("/updates?accuracy=city", "GET /updates"), ("/geofences/events", "GET /geofences/events")],
        [true, false])
    func streamWithABody(uri: (path: String, name: String), chunked: Bool) async throws {
        let server = try TestServer()
        try await server.application.test(.router) { client in
            // The router's test client gives any body a Content-Length: the chunked case sends the header alone.
            let answer = chunked
                ? try await client.execute(uri: uri.path, method: .get, headers: [.transferEncoding: "chunked"])
                : try await client.execute(uri: uri.path, method: .get, headers: [.contentLength: "5"], body: ByteBuffer(string: "hello"))
            #expect(answer.status == .badRequest)
            #expect(String(buffer: answer.body).contains("\(uri.name): a stream takes no request body"), "\(String(buffer: answer.body))")
        }
        #expect(server.counters.totals.streamsOpened == 0 && server.geofences.counters.totals.listenersOpened == 0)
    }

    /// Collects what a route writes.
    struct CollectingWriter: ResponseBodyWriter {
        let written = NIOLockedValueBox<[String]>([])
        mutating func write(_ buffer: ByteBuffer) async throws { written.withLockedValue { $0.append(String(buffer: buffer)) } }
        consuming func finish(_ trailingHeaders: HTTPFields?) async throws {}
    }

    @Test("a reader slower than the fixes gets the newest waiting, and its end says how many it missed", .timeLimit(.minutes(1)))
    func aSlowReaderIsToldWhatItSkipped() async throws {
        let server = try TestServer(runningEngine: false)
        let events = SubscriptionEvents(server.engine, options: SubscriptionOptions(maximumUpdates: 10), bufferingNewest: 4)
        await server.engine.sync()
        // Ten fixes and the end reach the sequence before the route's loop reads it: the newest four wait.
        for metres in 1...10 {
            server.source.emit(TestServer.fix(metres: Double(metres)))
            await server.engine.sync(advancingBy: .seconds(1))
        }
        let authenticator = ClientAuthenticator(clients: server.clients)
        let client = try authenticator.client(.local)
        let query = try UpdatesQuery(QueryParameters(pairs: [(name: "maxUpdates", value: "10")], accepted: UpdatesQuery.accepted))
        let collecting = CollectingWriter()
        var writer: any ResponseBodyWriter = collecting
        let sent = try await UpdatesRoute<ManualClock>.stream(
            events, query: query, view: try ClientView(client, audit: ClientAudit(registry: server.registry, logger: Logger(label: "test"))),
            check: ClientCheck(authenticator, credential: .local, client: client), engine: server.engine, shuttingDown: ShutdownFlag(),
            to: &writer)
        #expect(sent == (wroteEnd: true, updates: 3))
        let written = collecting.written.withLockedValue { $0 }
        #expect(written.count == 4 && written.first?.contains(#""horizontalAccuracy":8"#) == true, "the newest three fixes, then the end")
        // Before, nothing counted them: the end said 3 updates of a maximum of 10 reached, and no more.
        #expect(written.last == "event: end\ndata: {\"reason\":\"maximum_updates_reached\",\"skipped\":7,\"updates\":3}\n\n")
    }

    @Test("a subscription ending abnormally sends its reason")
    func endsWithReason() async throws {
        let server = try TestServer()
        try await server.application.test(.router) { client in
            let answer = try await server.get("/updates?kind=heading", with: client, subscriptions: 1) {
                server.source.emitFatalError(SourceError(code: "test.gone", message: "receiver unplugged"))
                await server.engine.sync()
            }
            let events = String(buffer: answer.body)
            #expect(events.hasSuffix(#"data: {"code":"test.gone","detail":"receiver unplugged","reason":"failed","updates":0}"# + "\n\n"))
        }
        #expect(server.log.entries.contains { $0.level == .error && $0.message.description == "location source failed" })
    }

    @Test(
        "an odd count says what is wrong with it: not a whole number of 1 or more, or past the largest one",
        arguments: [
            ("maxUpdates=0", "a whole number from 1 to \(Int.max)"), ("maxUpdates=99999999999999999999", "a whole number from 1 to \(Int.max)"),
            ("maxUpdates=two", "a whole number of 1 or more"), ("maxUpdates=", "a whole number of 1 or more"),
        ])
    func oddCounts(query: String, expected: String) async throws {
        let server = try TestServer()
        try await server.application.test(.router) { client in
            let answer = try await client.execute(uri: "/updates?" + query, method: .get)
            #expect(answer.status == .badRequest)
            let message = try LocationRouteTests.errorMessage(answer.body)
            #expect(message.contains(expected), "\(message)")
        }
    }

    @Test(
        "bad parameters answer 400",
        arguments: [
            "/updates?kind=sometimes", "/updates?distance=-1", "/updates?maxUpdates=0", "/updates?interval=x", "/updates?maxAge=5s",
            "/updates?kind=heading&kind=standard", "/updates?accuracy=city&maxAge=-1", "/updates?interval=2s&duration=3s&maxUpdates=3",
        ])
    func badParameters(uri: String) async throws {
        let server = try TestServer()
        try await server.application.test(.router) { client in
            let answer = try await client.execute(uri: uri, method: .get)
            #expect(answer.status == .badRequest)
        }
        #expect(await server.engine.statistics().subscriptionsSubmitted == 0)
    }

    @Test("a stream whose duration elapses without a fix says so in its end")
    func durationWithoutAFix() async throws {
        let server = try TestServer()
        try await server.application.test(.router) { client in
            let answer = try await server.get("/updates?duration=3s&accuracy=city&interval=2s", with: client, subscriptions: 1) {
                await server.engine.sync(advancingBy: .seconds(3))
            }
            let events = String(buffer: answer.body).components(separatedBy: "\n\n").filter { !$0.isEmpty }
            #expect(events.count == 1)
            let data = try #require(events.last?.components(separatedBy: "data: ").last)
            let end = try JSONDecoder().decode(EndJSON.self, from: Data(data.utf8))
            #expect(end.reason == "duration_elapsed" && end.updates == 0)
            // The engine's own reason: its source (scripted here, stopped with the stream) never gave a fix.
            #expect(end.detail?.hasPrefix("no fix arrived before the end (no source has given a fix yet)") == true, "\(end)")
        }
    }

    @Test("a stream that got nothing, with only a fix from before it known, is told no fix arrived and why")
    func anOldFixIsNotOneThatArrived() async throws {
        let server = try TestServer()
        try await server.application.test(.router) { client in
            try await server.answerACityRequest(with: client)
            await server.engine.sync(advancingBy: .seconds(60))
            let answer = try await server.get("/updates?duration=3s&accuracy=city", with: client, subscriptions: 1) {
                await server.engine.sync(advancingBy: .seconds(3))
            }
            let data = try #require(String(buffer: answer.body).components(separatedBy: "data: ").last)
            let end = try JSONDecoder().decode(EndJSON.self, from: Data(data.utf8))
            #expect(end.detail?.hasPrefix("no fix arrived before the end (") == true, "\(end)")
        }
    }

    @Test("why a stream got nothing: the engine's words for a precise client; for an approximate one, never the best fix's radius")
    func whyNothingKeepsTheRadiusFromApproximateClients() throws {
        let query = try UpdatesQuery(QueryParameters(uri: URI("/updates?duration=5s&accuracy=city"), accepted: UpdatesQuery.accepted))
        let measured = EndingReason.accuracyNotReached(best: Location(latitude: 48, longitude: 11, horizontalAccuracy: 4), age: .milliseconds(200), finestReach: 3)
        for approximate in [false, true] {
            let detail = UpdatesRoute<ManualClock>.whyNothing(query, known: true, reason: measured, approximate: approximate)
            #expect(detail == "no fix passing accuracy city arrived while the subscription ran")
        }
        // A fix read between the two reads: the engine's words name its radius, which only a precise client hears.
        #expect(!UpdatesRoute<ManualClock>.whyNothing(query, known: false, reason: measured, approximate: true).contains("±"))
        #expect(UpdatesRoute<ManualClock>.whyNothing(query, known: false, reason: .noFix, approximate: false).contains("(no source has given a fix yet)"))
        // A fix refused by the filters, then a source's error: the error is the engine's reason, but a fix was known.
        let failing = EndingReason(code: "gpsd.disconnected", message: "gpsd closed the connection")
        #expect(UpdatesRoute<ManualClock>.whyNothing(query, known: true, reason: failing, approximate: false) == "no fix passing accuracy city arrived while the subscription ran")
        let coarse = UpdatesRoute<ManualClock>.whyNothing(query, known: false, reason: .noFix, approximate: true)
        #expect(coarse.hasPrefix("no fix arrived before the end;") && !coarse.contains("("))
    }

    @Test("the end's reason is the engine's outcome name, as in the metrics")
    func endReasonMatchesTheMetrics() async throws {
        let server = try TestServer()
        try await server.application.test(.router) { client in
            let answer = try await server.get("/updates?duration=3s", with: client, subscriptions: 1) {
                server.source.emit(TestServer.fix(metres: 10))
                await server.engine.sync(advancingBy: .seconds(3))
            }
            #expect(String(buffer: answer.body).hasSuffix(#"data: {"reason":"duration_elapsed","updates":1}"# + "\n\n"))
            let metrics = try await client.execute(uri: "/metrics", method: .get)
            #expect(String(buffer: metrics.body).contains(#"locationengine_requests_ended{kind="subscription",outcome="duration_elapsed"} 1"#))
        }
    }

    @Test("a client that disconnects ends its subscription", .timeLimit(.minutes(1)))
    func disconnectCancels() async throws {
        let server = try TestServer()
        try await server.application.test(.live) { client in
            let port = try #require(client.port)
            let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .connect(host: "127.0.0.1", port: port).get()
            let request = "GET /updates HTTP/1.1\r\nHost: localhost\r\n\r\n"
            try await channel.writeAndFlush(ByteBuffer(string: request)).get()
            await server.waitUntilPending(subscriptions: 1)

            try await channel.close().get()
            await TestServer.yieldUntil("the stream to close") { server.counters.totals.streamsClosed >= 1 }
            await server.engine.sync()
            let statistics = await server.engine.statistics()
            #expect(statistics.activeSubscriptions == 0)
            #expect(statistics.subscriptionsCancelled == 1)
            #expect(!server.source.isRunning)
        }
    }
}

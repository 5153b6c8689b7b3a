import Hummingbird
import HummingbirdTesting
import LocationEngine
import NIOCore
import NIOPosix
import Testing

@testable import LocationServer

@Suite("GET /updates")
struct UpdatesRouteTests {
    @Test("fixes passing the filters stream as events, then the end with its reason")
    func streamsUntilMaximumUpdates() async throws {
        let server = TestServer()
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
            #expect(events.last == #"event: end"# + "\n" + #"data: {"reason":"finished"}"#)
        }
        #expect(server.counters.totals.streamsClosed == 1)
    }

    @Test("a subscription ending abnormally sends its reason")
    func endsWithReason() async throws {
        let server = TestServer()
        try await server.application.test(.router) { client in
            let answer = try await server.get("/updates?kind=heading", with: client, subscriptions: 1) {
                server.source.emitFatalError(SourceError(code: "test.gone", message: "receiver unplugged"))
                await server.engine.sync()
            }
            let events = String(buffer: answer.body)
            #expect(events.hasSuffix("event: end\ndata: {\"reason\":\"failed\"}\n\n"))
        }
    }

    @Test(
        "bad parameters answer 400",
        arguments: ["/updates?kind=sometimes", "/updates?distance=-1", "/updates?maxUpdates=0", "/updates?interval=x"])
    func badParameters(uri: String) async throws {
        let server = TestServer()
        try await server.application.test(.router) { client in
            let answer = try await client.execute(uri: uri, method: .get)
            #expect(answer.status == .badRequest)
        }
        #expect(await server.engine.statistics().subscriptionsSubmitted == 0)
    }

    @Test("a client that disconnects ends its subscription", .timeLimit(.minutes(1)))
    func disconnectCancels() async throws {
        let server = TestServer()
        try await server.application.test(.live) { client in
            let port = try #require(client.port)
            let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .connect(host: "127.0.0.1", port: port).get()
            let request = "GET /updates HTTP/1.1\r\nHost: localhost\r\n\r\n"
            try await channel.writeAndFlush(ByteBuffer(string: request)).get()
            await server.waitUntilPending(subscriptions: 1)

            try await channel.close().get()
            await server.counters.waitForClosedStreams(1)
            await server.engine.sync()
            let statistics = await server.engine.statistics()
            #expect(statistics.activeSubscriptions == 0)
            #expect(statistics.subscriptionsCancelled == 1)
            #expect(!server.source.isRunning)
        }
    }
}

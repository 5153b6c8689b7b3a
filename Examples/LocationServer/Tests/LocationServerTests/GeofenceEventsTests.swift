import Foundation
import Hummingbird
import HummingbirdTesting
import LocationEngine
import NIOCore
import NIOPosix
import Testing

@testable import LocationServer

@Suite("GET /geofences/events")
struct GeofenceEventsTests {
    /// The events of a stream's body: their ids (`nil` for the stream's own last `end`), names and data.
    /// The events a browser's `EventSource` fires from `body`: a record without data (an id alone) fires none.
    static func events(_ body: ByteBuffer) -> [(id: Int64?, name: String, data: String)] {
        records(body).filter { !$0.data.isEmpty }
    }

    /// Every record of `body`, with or without data.
    static func records(_ body: ByteBuffer) -> [(id: Int64?, name: String, data: String)] {
        String(buffer: body).components(separatedBy: "\n\n").filter { !$0.isEmpty }.map { event in
            var fields: [String: String] = [:]
            for line in event.components(separatedBy: "\n") {
                guard let colon = line.firstIndex(of: ":") else { continue }
                fields[String(line[..<colon])] = String(line[line.index(colon, offsetBy: 2)...])
            }
            return (fields["id"].flatMap { Int64($0) }, fields["event"] ?? "", fields["data"] ?? "")
        }
    }

    static func waitForListeners(_ count: Int, on server: TestServer) async {
        await TestServer.yieldUntil("\(count) listeners of /geofences/events") { server.geofences.counters.totals.listenersOpened >= count }
    }

    @Test("a fix outside, inside, then outside again streams determined, entered and exited", .timeLimit(.minutes(1)))
    func enteredThenExited() async throws {
        let server = try TestServer()
        try await server.application.test(.router) { client in
            #expect(try await GeofenceRoutesTests.post(GeofenceRoutesTests.depot, with: client).status == .created)
            await server.waitUntilPending(subscriptions: 1)
            async let stream = client.execute(uri: "/geofences/events", method: .get)
            await Self.waitForListeners(1, on: server)

            for latitude in [48.150, 48.137, 48.150] {   // 1.4 km north, the centre, 1.4 km north
                server.source.emit(TestServer.fix(metres: 5, latitude: latitude))
                await server.engine.sync(advancingBy: .seconds(1))
            }
            #expect(server.geofences.fence(1)?.state == .outside)
            await server.geofences.close()

            let answer = try await stream
            #expect(answer.headers[.contentType] == "text/event-stream")
            let events = Self.events(answer.body)
            let transitions = try events.filter { $0.name == "transition" }.map {
                try JSONDecoder().decode(GeofenceTransitionJSON.self, from: Data($0.data.utf8))
            }
            #expect(transitions.map(\.transition) == ["determined", "entered", "exited"])
            #expect(transitions.map(\.state) == ["outside", "inside", "outside"])
            #expect(transitions.allSatisfy { $0.fence == 1 })
            #expect(transitions.map(\.at) == transitions.map(\.at).sorted() && transitions[0].at < transitions[2].at)
            // The engine's estimate of each crossing goes out with it: not after the deciding fix, and
            // none for the first determination.
            #expect(transitions[0].estimatedCrossing == nil)
            for transition in transitions.dropFirst() {
                let crossing = try #require(transition.estimatedCrossing)
                #expect(crossing <= transition.at)
            }
            #expect(events.last?.name == "end" && events.last?.data == #"{"reason":"shut_down"}"#)

            let metrics = String(buffer: try await client.execute(uri: "/metrics", method: .get).body)
            #expect(metrics.contains(#"locationserver_geofence_transitions{transition="entered"} 1"#))
            #expect(metrics.contains(#"locationserver_geofence_transitions{transition="exited"} 1"#))
        }
    }

    @Test("a deleted fence ends on the stream with cancelled", .timeLimit(.minutes(1)))
    func deletedFenceEnds() async throws {
        let server = try TestServer()
        try await server.application.test(.router) { client in
            #expect(try await GeofenceRoutesTests.post(GeofenceRoutesTests.depot, with: client).status == .created)
            async let stream = client.execute(uri: "/geofences/events", method: .get)
            await Self.waitForListeners(1, on: server)
            #expect(try await client.execute(uri: "/geofences/1", method: .delete).status == .noContent)
            await server.geofences.close()
            let events = Self.events(try await stream.body)
            #expect(events.map(\.data) == [#"{"fence":1,"reason":"cancelled"}"#, #"{"reason":"shut_down"}"#])
        }
    }

    @Test("graceful shutdown ends every fence, then the stream, with shut_down", .timeLimit(.minutes(1)))
    func shutdownEndsTheStream() async throws {
        let server = try TestServer(runningEngine: false)
        try await server.withServiceGroup { group, port in
            let created = try await TestClient.withClient(host: "127.0.0.1", port: port) {
                try await $0.post("/geofences", body: ByteBuffer(string: GeofenceRoutesTests.depot))
            }
            #expect(created.status == .created)
            let stream = Task { try await TestClient.withClient(host: "127.0.0.1", port: port) { try await $0.get("/geofences/events") } }
            await server.waitUntilPending(subscriptions: 1)
            await Self.waitForListeners(1, on: server)

            await group.triggerGracefulShutdown()
            let events = Self.events(try await stream.value.body ?? ByteBuffer())
            #expect(events.map(\.name) == ["end", "end"])
            #expect(events.map(\.data) == [#"{"fence":1,"reason":"shut_down"}"#, #"{"reason":"shut_down"}"#])
        }
        #expect(await server.engine.statistics().activeSubscriptions == 0)
        #expect(server.geofences.fences.isEmpty && server.geofences.counters.totals.ended == 1)
    }

    @Test("a listener that disconnects stops listening; its fences stay monitored", .timeLimit(.minutes(1)))
    func disconnectUnsubscribesOnly() async throws {
        let server = try TestServer()
        try await server.application.test(.live) { client in
            let port = try #require(client.port)
            #expect(try await GeofenceRoutesTests.post(GeofenceRoutesTests.depot, with: client).status == .created)
            let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton).connect(host: "127.0.0.1", port: port).get()
            try await channel.writeAndFlush(ByteBuffer(string: "GET /geofences/events HTTP/1.1\r\nHost: localhost\r\n\r\n")).get()
            await Self.waitForListeners(1, on: server)

            try await channel.close().get()
            await TestServer.yieldUntil("the event stream to close") { server.geofences.counters.totals.listenersClosed >= 1 }
            await server.engine.sync()
            #expect(await server.engine.statistics().activeSubscriptions == 1)
            #expect(server.geofences.fences.count == 1)
        }
    }
}

import Foundation
import Hummingbird
import HummingbirdTesting
import LocationEngine
import Testing

@testable import LocationServer

@Suite("POST, GET and DELETE /geofences")
struct GeofenceRoutesTests {
    static let depot = #"{"circle": {"latitude": 48.137, "longitude": 11.575, "radius": 200}, "name": "depot"}"#

    static func post(_ body: String, with client: some TestClientProtocol) async throws -> TestResponse {
        try await client.execute(uri: "/geofences", method: .post, body: ByteBuffer(string: body))
    }

    @Test("a fence is created, listed, read and deleted; its monitor is cancelled")
    func lifecycle() async throws {
        let server = try TestServer()
        try await server.application.test(.router) { client in
            let created = try await Self.post(Self.depot, with: client)
            #expect(created.status == .created)
            #expect(created.headers[.location] == "/geofences/1")
            let fence = try JSONDecoder().decode(GeofenceJSON.self, from: created.body)
            #expect(fence.id == 1 && fence.name == "depot" && fence.state == "unknown")
            #expect(fence.circle == GeofenceJSON.Circle(latitude: 48.137, longitude: 11.575, radius: 200))
            await server.waitUntilPending(subscriptions: 1)

            let list = try JSONDecoder().decode(GeofenceListJSON.self, from: try await client.execute(uri: "/geofences", method: .get).body)
            #expect(list.geofences == [fence] && list.maximum == 100)
            let one = try await client.execute(uri: "/geofences/1", method: .get)
            #expect(try JSONDecoder().decode(GeofenceJSON.self, from: one.body) == fence)
            #expect(String(buffer: try await client.execute(uri: "/metrics", method: .get).body).contains("\nlocationserver_geofences 1"))

            #expect(try await client.execute(uri: "/geofences/1", method: .delete).status == .noContent)
            await server.engine.sync()
            let statistics = await server.engine.statistics()
            #expect(statistics.activeSubscriptions == 0 && statistics.subscriptionsCancelled == 1)
            #expect(try await client.execute(uri: "/geofences/1", method: .delete).status == .notFound)
            #expect(try await client.execute(uri: "/geofences/1", method: .get).status == .notFound)
            #expect(try await client.execute(uri: "/geofences/one", method: .delete).status == .badRequest)
            #expect(try await client.execute(uri: "/geofences/-1", method: .get).status == .badRequest)
            // All digits, but past any id (UInt64's largest + 1): an unknown fence, not a malformed one.
            for method in [HTTPRequest.Method.get, .delete] {
                let past = try await client.execute(uri: "/geofences/18446744073709551616", method: method)
                #expect(past.status == .notFound, "\(method)")
                #expect(String(buffer: past.body).contains("no fence 18446744073709551616"))
            }
            #expect(String(buffer: try await client.execute(uri: "/geofences", method: .get).body).contains(#""geofences":[]"#))
            #expect(String(buffer: try await client.execute(uri: "/metrics", method: .get).body).contains("\nlocationserver_geofences 0"))
        }
        #expect(server.geofences.counters.totals.created == 1 && server.geofences.counters.totals.deleted == 1)
    }

    @Test(
        "a bad body answers 400 naming the field, and nothing is monitored",
        arguments: [
            (#"{"circle": {"latitude": "NaN", "longitude": 11, "radius": 10}}"#, "circle.latitude"),
            (#"{"circle": {"latitude": 48, "longitude": 11, "radius": -5}}"#, "circle.radius"),
            (#"{"polygon": [[48, 11], [48.001, 11]]}"#, "polygon"),
            (#"{"circle": {"latitude": 48, "longitude": 11, "radius": 10}, "shape": "circle"}"#, "shape"),
            (#"{"circle": {"latitude": 48, "longitude": 11, "radius": 10}, "loiteringDelay": "x"}"#, "loiteringDelay"),
            ("{" + String(repeating: " ", count: GeofenceBody.maximumBytes) + "}", "body"),
        ])
    func badBody(body: String, field: String) async throws {
        let server = try TestServer()
        let before = await server.engine.statistics()
        try await server.application.test(.router) { client in
            let answer = try await Self.post(body, with: client)
            #expect(answer.status == .badRequest)
            #expect(String(buffer: answer.body).contains("\"message\":\"\(field): "), "\(String(buffer: answer.body))")
        }
        await server.engine.sync()
        var after = await server.engine.statistics()
        // The engine's loop parks and wakes on its own time: what the request did is everything else.
        after.loopWakeups = before.loopWakeups
        #expect(after == before)
        #expect(server.geofences.fences.isEmpty && server.geofences.counters.totals.created == 0)
    }

    @Test("past the per-server cap a fence is refused with 409 until one is deleted")
    func cap() async throws {
        let server = try TestServer(maximumFences: 2)
        try await server.application.test(.router) { client in
            #expect(try await Self.post(Self.depot, with: client).status == .created)
            #expect(try await Self.post(Self.depot, with: client).status == .created)
            let refused = try await Self.post(Self.depot, with: client)
            #expect(refused.status == .conflict)
            #expect(String(buffer: refused.body).contains("maximum of 2 fences"))
            await server.waitUntilPending(subscriptions: 2)
            #expect(await server.engine.statistics().subscriptionsSubmitted == 2)

            #expect(try await client.execute(uri: "/geofences/2", method: .delete).status == .noContent)
            let again = try await Self.post(Self.depot, with: client)
            #expect(again.status == .created && again.headers[.location] == "/geofences/3")
        }
    }

    @Test("past its own share a client's fence is refused with 409 naming its cap, while another client still creates its own")
    func capPerClient() async throws {
        let server = try TestServer(maximumFences: 3, maximumFencesPerClient: 2, clients: try ClientTestSupport.directory())
        try await server.application.test(.router) { client in
            for _ in 0..<2 {
                #expect(try await ClientTestSupport.execute("/geofences", as: "fleet", method: .post, body: Self.depot, with: client).status == .created)
            }
            let refused = try await ClientTestSupport.execute("/geofences", as: "fleet", method: .post, body: Self.depot, with: client)
            #expect(refused.status == .conflict)
            #expect(String(buffer: refused.body).contains("client 'fleet' has its maximum of 2 fences (--max-geofences-per-client)"))
            let list = try JSONDecoder().decode(
                GeofenceListJSON.self, from: Data(buffer: try await ClientTestSupport.execute("/geofences", as: "fleet", with: client).body))
            #expect(list.geofences.count == 2 && list.maximum == 3 && list.maximumPerClient == 2)
            #expect(try await ClientTestSupport.execute("/geofences", as: "courier", method: .post, body: Self.depot, with: client).status == .created)
            // The server's own cap still holds: 3 in all.
            let full = try await ClientTestSupport.execute("/geofences", as: "courier", method: .post, body: Self.depot, with: client)
            #expect(full.status == .conflict && String(buffer: full.body).contains("the server monitors its maximum of 3 fences"))
            // A deletion frees the client's place.
            #expect(try await ClientTestSupport.execute("/geofences/1", as: "fleet", method: .delete, with: client).status == .noContent)
            #expect(try await ClientTestSupport.execute("/geofences", as: "fleet", method: .post, body: Self.depot, with: client).status == .created)
        }
    }
}

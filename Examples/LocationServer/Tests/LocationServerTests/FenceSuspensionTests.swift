import Foundation
import GRDB
import Hummingbird
import HummingbirdTesting
import LocationEngine
import Testing

@testable import LocationServer

/// Fences the engine ends for a reason outside them — the source gone for good, access refused — are
/// kept, in memory and in the database, and monitored again after a pause; before, every such end
/// deleted the fence, so a gpsd restarted for a minute emptied the database.
@Suite("Fences kept through a failed source or a refusal")
struct FenceSuspensionTests {
    typealias Support = StorageTestSupport

    /// Moves the engine's clock a second at a time until `condition` holds (the retry rounds sleep on it).
    static func advance(_ server: TestServer, until what: String, _ condition: @escaping () -> Bool) async {
        await TestServer.yieldUntil(what) {
            if condition() { return true }
            await server.engine.sync(advancingBy: .seconds(1))
            return condition()
        }
    }

    /// How long until the next waiting fence is monitored again (`nil`: none waits).
    static func pauseLeft(_ server: TestServer) -> Duration? {
        server.geofences.nextDue.map { $0 - server.engine.currentInstant() }
    }

    static func storedFences(_ server: TestServer) async throws -> Int {
        try await server.geofences.journal.flush()
        return try await server.geofences.journal.database.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM fence") } ?? -1
    }

    static func fence(_ id: Int, with client: some TestClientProtocol) async throws -> GeofenceJSON {
        try JSONDecoder().decode(GeofenceJSON.self, from: try await client.execute(uri: "/geofences/\(id)", method: .get).body)
    }

    @Test("a source that fails for good suspends the fences: listed, stored, monitored again after 5 s with their state, and a restart still has them", .timeLimit(.minutes(1)))
    func aFailedSourceKeepsTheFences() async throws {
        try await Support.withDatabaseFile { path in
            let server = try TestServer(database: path)
            try await server.application.test(.router) { client async throws -> Void in
                #expect(try await Support.createDepot(on: server, with: client).status == .created)
                async let stream = client.execute(uri: "/geofences/events", method: .get)
                await GeofenceEventsTests.waitForListeners(1, on: server)
                await Support.fix(server)
                _ = server.source.emitFatalError(SourceError(code: "gps.gone", message: "the receiver was unplugged"))
                await server.engine.sync()

                let suspended = try await Self.fence(1, with: client)
                #expect(suspended.state == "inside" && suspended.suspended?.reason == "failed")
                #expect(try await Self.storedFences(server) == 1, "before, the fence was deleted")
                #expect(Self.pauseLeft(server) == .seconds(5))

                await Self.advance(server, until: "the fence monitored again") { server.geofences.counters.totals.remonitored == 1 }
                await server.waitUntil { $0.activeSubscriptions == 1 }
                #expect(try await Self.fence(1, with: client).suspended == nil)
                // Monitored with the state it had: the same state says nothing, leaving it is heard.
                await Support.fix(server)
                await Support.fix(server, latitude: 48.150)
                await server.geofences.close()
                let events = Support.stored(try await stream.body)
                #expect(events.map(\.name) == ["transition", "suspended", "transition"])
                let notice = try JSONDecoder().decode(GeofenceEndJSON.self, from: Data(events[1].data.utf8))
                #expect(notice == GeofenceEndJSON(fence: 1, reason: "failed", detail: "the receiver was unplugged"))
                #expect(try Support.transition(events[2].data).transition == "exited")
            }
            let restarted = try TestServer(database: path)
            #expect(restarted.geofences.fences.map(\.id) == [1])
        }
    }

    @Test("access refused suspends the fences once, retried with a pause that doubles; granted again, they are monitored at once", .timeLimit(.minutes(1)))
    func aRefusalKeepsTheFencesUntilAccessComesBack() async throws {
        let server = try TestServer()
        try await server.application.test(.router) { client async throws -> Void in
            #expect(try await Support.createDepot(on: server, with: client).status == .created)
            async let stream = client.execute(uri: "/geofences/events", method: .get)
            await GeofenceEventsTests.waitForListeners(1, on: server)
            server.engine.updateAuthorization(.denied)
            await server.engine.sync()
            #expect(try await Self.fence(1, with: client).suspended?.reason == "unauthorized")

            // Each round is refused at once: the pause doubles, and no event is written again.
            let pauses: [(round: Int, pause: Duration)] = [(1, .seconds(10)), (2, .seconds(20))]
            for (round, pause) in pauses {
                await Self.advance(server, until: "round \(round)") { server.geofences.counters.totals.remonitored == round }
                await server.engine.sync()
                #expect(Self.pauseLeft(server) == pause)
            }
            // The grant monitors it again without waiting out the 40 s pause: the clock does not move.
            let before = server.engine.currentInstant()
            server.engine.updateAuthorization(.authorizedWhenInUse())
            await TestServer.yieldUntil("the fence monitored again when access came back") { server.geofences.counters.totals.remonitored == 3 }
            await server.waitUntil { $0.activeSubscriptions == 1 }
            #expect(server.engine.currentInstant() == before)
            await server.engine.sync()
            #expect(Self.pauseLeft(server) == nil)
            #expect(server.geofences.counters.totals.suspensions == 3)
            await server.geofences.close()
            #expect(Support.stored(try await stream.body).map(\.name) == ["suspended"])
        }
    }

    @Test("each kept fence has its own pause: one kept during a long outage of another is monitored again after 5 s", .timeLimit(.minutes(1)))
    func eachFenceKeepsItsOwnPause() async throws {
        let server = try TestServer()
        try await server.application.test(.router) { client async throws -> Void in
            #expect(try await Support.createDepot(on: server, with: client).status == .created)
            server.engine.updateAuthorization(.denied)
            await server.engine.sync()
            for round in 1...3 {
                await Self.advance(server, until: "round \(round)") { server.geofences.counters.totals.remonitored == round }
                await server.engine.sync()
            }
            #expect(Self.pauseLeft(server) == .seconds(40), "the first fence's fourth pause")
            // A second fence, created while access is back for a moment (which monitors the first again at once),
            // then refused: its own first pause.
            server.engine.updateAuthorization(.authorizedWhenInUse())
            await TestServer.yieldUntil("the first fence monitored again") { server.geofences.counters.totals.remonitored == 4 }
            await server.engine.sync()
            #expect(try await GeofenceRoutesTests.post(GeofenceRoutesTests.depot, with: client).status == .created)
            server.engine.updateAuthorization(.denied)
            await server.engine.sync()
            #expect(Self.pauseLeft(server) == .seconds(5), "before, one pause for all: 80 s")
            await Self.advance(server, until: "the second fence monitored again") { server.geofences.counters.totals.remonitored == 5 }
            // The first, refused again within minutes of its last round, still waits out its own longer pause.
            let first = server.geofences.fence(1)?.suspension
            #expect(first?.waiting == true && first?.retries == 4)
        }
    }

    @Test("a suspended fence deleted is gone for good: no round brings it back", .timeLimit(.minutes(1)))
    func aSuspendedFenceCanBeDeleted() async throws {
        try await Support.withDatabaseFile { path in
            let server = try TestServer(database: path)
            try await server.application.test(.router) { client async throws -> Void in
                #expect(try await Support.createDepot(on: server, with: client).status == .created)
                _ = server.source.emitFatalError(SourceError(code: "gps.gone", message: "the receiver was unplugged"))
                await server.engine.sync()
                #expect(try await client.execute(uri: "/geofences/1", method: .delete).status == .noContent)
                #expect(Self.pauseLeft(server) == nil)
                #expect(server.geofences.remonitorWaiting() == 0)
                #expect(try await client.execute(uri: "/geofences/1", method: .get).status == .notFound)
                #expect(try await Self.storedFences(server) == 0)
            }
        }
    }

    @Test("a fence created while access is refused is answered 403 and never stored: the route waits for the engine to take it", .timeLimit(.minutes(1)))
    func aFenceRefusedAtCreationIsNotStored() async throws {
        try await Support.withDatabaseFile { path in
            let server = try TestServer(database: path)
            try await server.application.test(.router) { client async throws -> Void in
                server.engine.updateAuthorization(.denied)
                await server.engine.sync()
                // Before, the engine's refusal came after the route had stored the fence: 201, then gone.
                let created = try await GeofenceRoutesTests.post(GeofenceRoutesTests.depot, with: client)
                #expect(created.status == .forbidden)
                #expect(try await Self.storedFences(server) == 0)
                #expect(server.geofences.fences.isEmpty)
            }
        }
    }
}

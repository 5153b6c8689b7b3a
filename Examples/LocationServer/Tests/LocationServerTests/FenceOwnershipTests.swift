import Foundation
import GRDB
import Hummingbird
import HummingbirdTesting
import LocationEngine
import Testing

@testable import LocationServer

@Suite("Geofences belong to the client that created them")
struct FenceOwnershipTests {
    static let courierFence = #"{"circle": {"latitude": 48.137, "longitude": 11.575, "radius": 500}, "name": "courier"}"#

    @Test("a client lists, reads, deletes and hears only its own fences; an admin all of them", .timeLimit(.minutes(1)))
    func ownFences() async throws {
        let server = try TestServer(clients: try ClientTestSupport.directory())
        try await server.application.test(.router) { client in
            let fleet = try await ClientTestSupport.execute("/geofences", as: "fleet", method: .post, body: GeofenceRoutesTests.depot, with: client)
            let courier = try await ClientTestSupport.execute("/geofences", as: "courier", method: .post, body: Self.courierFence, with: client)
            #expect(fleet.status == .created && courier.status == .created)
            await server.waitUntilPending(subscriptions: 2)

            var lists: [String: [UInt64]] = [:]
            for name in ["fleet", "courier", "ops"] {
                let answer = try await ClientTestSupport.execute("/geofences", as: name, with: client)
                lists[name] = try JSONDecoder().decode(GeofenceListJSON.self, from: answer.body).geofences.map(\.id)
            }
            let (fleetIDs, courierIDs, opsIDs) = (lists["fleet"], lists["courier"], lists["ops"])
            #expect(fleetIDs == [1] && courierIDs == [2] && opsIDs == [1, 2])
            #expect(try await ClientTestSupport.execute("/geofences/2", as: "fleet", with: client).status == .notFound)
            #expect(try await ClientTestSupport.execute("/geofences/2", as: "fleet", method: .delete, with: client).status == .notFound)
            #expect(try await ClientTestSupport.execute("/geofences/2", as: "ops", with: client).status == .ok)

            async let fleetStream = ClientTestSupport.execute("/geofences/events", as: "fleet", with: client)
            async let opsStream = ClientTestSupport.execute("/geofences/events", as: "ops", with: client)
            await GeofenceEventsTests.waitForListeners(2, on: server)
            await StorageTestSupport.fix(server, latitude: 48.150)
            #expect(try await ClientTestSupport.execute("/geofences/2", as: "courier", method: .delete, with: client).status == .noContent)
            await server.geofences.close()

            struct Fence: Decodable { var fence: UInt64? }
            let fenceOf = { (event: (id: Int64?, name: String, data: String)) -> UInt64? in
                try? JSONDecoder().decode(Fence.self, from: Data(event.data.utf8)).fence
            }
            let fleetBody = try await fleetStream.body
            let heardByFleet = GeofenceEventsTests.events(fleetBody).filter { $0.id != nil }
            let heardByOps = GeofenceEventsTests.events(try await opsStream.body).filter { $0.id != nil }
            #expect(heardByFleet.map(fenceOf) == [1])
            // Fleet resumes past courier's events it did not hear: the last id its stream gave is the newest.
            let lastFleetID = GeofenceEventsTests.records(fleetBody).compactMap(\.id).last
            #expect(lastFleetID == heardByOps.compactMap(\.id).max(), "fleet's Last-Event-ID moved past the others' events")
            #expect(Set(heardByOps.map(fenceOf)) == [1, 2] && heardByOps.count == 3)
        }
    }

    @Test("fences stored before clients existed have no owner: after the migration only an admin sees them")
    func migratedFences() async throws {
        try await StorageTestSupport.withDatabaseFile { path in
            // A database as the server before clients left it: the first schema, one fence.
            let old = try DatabaseQueue(path: path)
            try StorageMigrations.migrator.migrate(old, upTo: "v1: fences, events, meta")
            try await old.write { db in
                try db.execute(sql: "INSERT INTO fence (id, body, state) VALUES (1, ?, 'unknown')", arguments: [GeofenceRoutesTests.depot])
            }
            try old.close()
            let server = try TestServer(database: path, clients: try ClientTestSupport.directory())
            try await server.application.test(.router) { client in
                let fleet = try await ClientTestSupport.execute("/geofences", as: "fleet", with: client)
                #expect(try JSONDecoder().decode(GeofenceListJSON.self, from: fleet.body).geofences.isEmpty)
                let ops = try await ClientTestSupport.execute("/geofences", as: "ops", with: client)
                #expect(try JSONDecoder().decode(GeofenceListJSON.self, from: ops.body).geofences.map(\.id) == [1])
            }
        }
    }

    @Test("without a token file every fence is the local client's, who sees them all, as before clients")
    func openServer() async throws {
        try await StorageTestSupport.withDatabaseFile { path in
            let first = try TestServer(database: path)
            try await first.application.test(.router) { client in
                let created = try await GeofenceRoutesTests.post(GeofenceRoutesTests.depot, with: client)
                #expect(created.status == .created)
            }
            await first.geofences.close()
            let owner = try await DatabaseQueue(path: path).read { try String.fetchOne($0, sql: "SELECT owner FROM fence WHERE id = 1") }
            #expect(owner == "local")
        }
    }
}

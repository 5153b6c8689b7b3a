import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

@testable import LocationServer

/// A client that resumes its event stream hears, of the events recorded before, only those it was entitled to
/// when each was recorded: a stretch it was approximate, out of the token file or expired stays unheard once it is
/// precise again.
@Suite("Grants over the events' ids")
struct GrantHistoryTests {
    typealias Support = StorageTestSupport
    static let fleet = "\(ClientTestSupport.tokens["fleet"]!) fleet"

    /// The ids of the events `client` hears resuming after `lastEventID`, once the journal has stored them.
    static func resumed(after lastEventID: Int64, on server: TestServer, with client: some TestClientProtocol) async throws -> [Int64] {
        try await server.geofences.journal.flush()
        async let stream = ClientTestSupport.execute("/geofences/events?lastEventId=\(lastEventID)", as: "fleet", with: client)
        await GeofenceEventsTests.waitForListeners(1, on: server)
        await server.geofences.close()
        return Support.stored(try await stream.body).map(\.id)
    }

    @Test("a client made approximate, then precise again, does not hear the crossing of its fence in between", .timeLimit(.minutes(1)))
    func demotedThenRestored() async throws {
        try await StreamRevocationTests.withTokenFile("\(Self.fleet) precise\n") { directory, rewrite in
            let server = try TestServer(clients: directory)
            try await server.application.test(.router) { client in
                let created = try await ClientTestSupport.execute("/geofences", as: "fleet", method: .post, body: GeofenceRoutesTests.depot, with: client)
                #expect(created.status == .created)
                await server.waitUntilPending(subscriptions: 1)
                await Support.fix(server)  // 1: inside
                try rewrite("\(Self.fleet) approximate\n")
                #expect(directory.reload() == nil)
                await Support.fix(server, latitude: 48.150)  // 2: exited, while approximate
                try rewrite("\(Self.fleet) precise\n")
                #expect(directory.reload() == nil)
                await Support.fix(server)  // 3: entered
                let heard = try await Self.resumed(after: 1, on: server, with: client)
                #expect(heard == [3], "before, it heard event 2 too")
            }
        }
    }

    @Test("a client taken out of the token file while the server was down, and put back, does not hear that stretch after a restart", .timeLimit(.minutes(1)))
    func removedWhileDown() async throws {
        try await Support.withDatabaseFile { path in
            try await StreamRevocationTests.withTokenFile("\(Self.fleet) precise\n") { directory, rewrite in
                // A directory of its own for each run, as each process reads the file itself.
                guard case .tokens(let tokens) = directory.mode else { return }
                func run() throws -> TestServer {
                    try TestServer(database: path, clients: try ClientDirectory.tokens(path: tokens, logger: ClientTestSupport.silent))
                }
                let first = try run()
                try await first.application.test(.router) { client in
                    let created = try await ClientTestSupport.execute("/geofences", as: "fleet", method: .post, body: GeofenceRoutesTests.depot, with: client)
                    #expect(created.status == .created)
                    await first.waitUntilPending(subscriptions: 1)
                    await Support.fix(first)  // 1: inside
                    try await first.geofences.journal.flush()
                }
                try rewrite("\(ClientTestSupport.tokens["ops"]!) ops precise admin\n")
                let second = try run()
                try await second.application.test(.router) { _ in
                    await second.waitUntilPending(subscriptions: 1)
                    await Support.fix(second, latitude: 48.150)  // 2: exited, fleet not a client
                    try await second.geofences.journal.flush()
                }
                try rewrite("\(Self.fleet) precise\n")
                let third = try run()
                try await third.application.test(.router) { client in
                    await third.waitUntilPending(subscriptions: 1)
                    await Support.fix(third)  // 3: entered
                    let heard = try await Self.resumed(after: 1, on: third, with: client)
                    #expect(heard == [3])
                }
                #expect(third.geofences.grants.history(of: "fleet").map(\.grant.scope) == [.own, .nothing, .own])
            }
        }
    }

    @Test("events recorded after a client's tokens expired stay unheard once a later expiry renews it", .timeLimit(.minutes(1)))
    func expiredThenRenewed() async throws {
        // 2099-01-01 is 4,070,908,800 in Unix seconds: the store's clock passes it, the tokens' check (today's
        // clock) does not.
        try await StreamRevocationTests.withTokenFile("\(Self.fleet) precise expires=2099-01-01T00:00:00Z\n") { directory, rewrite in
            let wallClock = WallClock(4_070_908_800 - 600)
            let server = try TestServer(wallClock: wallClock, clients: directory)
            try await server.application.test(.router) { client in
                let created = try await ClientTestSupport.execute("/geofences", as: "fleet", method: .post, body: GeofenceRoutesTests.depot, with: client)
                #expect(created.status == .created)
                await server.waitUntilPending(subscriptions: 1)
                await Support.fix(server)  // 1: inside, before the expiry
                wallClock.advance(by: 600)
                await Support.fix(server, latitude: 48.150)  // 2: exited, at the expiry
                try rewrite("\(Self.fleet) precise expires=2199-01-01T00:00:00Z\n")
                #expect(directory.reload() == nil)
                await Support.fix(server)  // 3: entered, renewed
                let heard = try await Self.resumed(after: 0, on: server, with: client)
                #expect(heard == [1, 3])
            }
        }
    }

    @Test("an admin hears every fence's events, and a client its own, when nothing changed")
    func unchangedGrants() async throws {
        let server = try TestServer(clients: try ClientTestSupport.directory())
        try await server.application.test(.router) { client in
            for owner in ["fleet", "ops"] {
                let created = try await ClientTestSupport.execute("/geofences", as: owner, method: .post, body: GeofenceRoutesTests.depot, with: client)
                #expect(created.status == .created)
            }
            await server.waitUntilPending(subscriptions: 2)
            await Support.fix(server)
            try await server.geofences.journal.flush()
            let through = try server.geofences.journal.resumePoint(after: nil)
            let judge = server.geofences.grants.judge(for: try #require(try Self.client("ops")), through: through)
            #expect(judge.hearsEverything)
            let fleet = server.geofences.grants.judge(for: try #require(try Self.client("fleet")), through: through)
            let events = try await server.geofences.journal.database.read { try EventStore.events(after: 0, through: through, limit: 10, $0) }
            #expect(events.count == 2 && events.filter(fleet.hears).map(\.owner) == ["fleet"])
        }
    }

    @Test("without a token file, the clients of the history get what that mode gives them: local users their own fences, other names nothing", .timeLimit(.minutes(1)))
    func openModeGrants() async throws {
        try await Support.withDatabaseFile { path in
            // A run with a token file: fleet precise, a local user (not the server's own) approximate.
            try await StreamRevocationTests.withTokenFile("\(Self.fleet) precise\nuid:\(Self.user) uid-\(Self.user) approximate\n") { directory, _ in
                let first = try TestServer(database: path, clients: directory)
                try await first.application.test(.router) { client in
                    let created = try await ClientTestSupport.execute("/geofences", as: "fleet", method: .post, body: GeofenceRoutesTests.depot, with: client)
                    #expect(created.status == .created)
                    await first.waitUntilPending(subscriptions: 1)
                    await Support.fix(first)  // 1
                    try await first.geofences.journal.flush()
                }
            }
            // The next without one: the user is a precise client of its own, fleet no client.
            let second = try TestServer(database: path)
            try await second.application.test(.router) { _ in
                let grants = second.geofences.grants
                #expect(grants.history(of: "uid-\(Self.user)").map(\.grant.scope) == [.nothing, .own], "before, the stored nothing judged its resumes")
                #expect(grants.history(of: "fleet").map(\.grant.scope) == [.own, .nothing])
            }
            #expect(GrantHistory.openGrant(of: "local").scope == .every && GrantHistory.openGrant(of: "uid-0").scope == .every)
            #expect(GrantHistory.openGrant(of: "uid-\(Self.user)").scope == .own && GrantHistory.openGrant(of: "fleet") == .nothing)
        }
    }

    @Test("a grant whose successor is in force from an event retention removed is forgotten, in memory and in the file")
    func supersededGrantsArePruned() async throws {
        try await Support.withDatabaseFile { path in
            let server = try TestServer(database: path, retention: EventStore.Retention(count: 2, age: 86_400))
            let grants = server.geofences.grants
            try await server.application.test(.router) { client in
                grants.record(Self.fleet(.precise))  // from event 1
                #expect(try await Support.createDepot(on: server, with: client).status == .created)
                await Support.fix(server)  // 1: inside
                await Support.fix(server, latitude: 48.150)  // 2: exited
                await Support.fix(server)  // 3: entered
                try await server.geofences.journal.flush()
                grants.record(Self.fleet(.approximate))  // from 4; events 2 and 3 kept
                await Support.fix(server, latitude: 48.150)  // 4
                await Support.fix(server)  // 5
                try await server.geofences.journal.flush()
                grants.record(Self.fleet(.precise))  // from 6; events 4 and 5 kept: the first grant judges none
                try await server.geofences.journal.flush()
                #expect(grants.history(of: "fleet").map(\.fromEvent) == [4, 6])
                let stored = try await server.geofences.journal.database.read {
                    try Int64.fetchAll($0, sql: "SELECT from_event FROM client_grant WHERE client = 'fleet' ORDER BY from_event")
                }
                #expect(stored == [4, 6])
            }
        }
    }

    /// A local user that is neither root nor the server's own (which hear every fence without a token file).
    static let user: UInt32 = getuid() == 1000 ? 1001 : 1000

    /// A token file's table of fleet alone, with `permission`.
    static func fleet(_ permission: ClientPermission) -> ClientTable {
        ClientTable(clients: ["fleet-token-0123456789": Client(name: "fleet", permission: permission)])
    }

    /// The client named `name` in the test directory.
    static func client(_ name: String) throws -> Client? {
        try ClientTestSupport.directory().current.clients.values.first { $0.name == name }
    }
}

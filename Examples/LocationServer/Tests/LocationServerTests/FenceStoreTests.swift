import Foundation
import GRDB
import Hummingbird
import HummingbirdTesting
import LocationEngine
import NIOConcurrencyHelpers
import Testing

@testable import LocationServer

/// Fences kept in a real SQLite file across restarts of the server in the process (the kill -9 loop of
/// `Scripts/server-storage/kill_restart.py` restarts it as a process).
@Suite("Fences survive a restart")
struct FenceStoreTests {
    typealias Support = StorageTestSupport

    /// Server one creates the depot fence and decides it inside (then stops without shutting down, as
    /// a killed process does); server two starts on the same file, takes a fix at `latitude`, and
    /// returns its fence list before the fix and the events its stream heard.
    static func restart(firstFixAt latitude: Double) async throws -> (before: GeofenceJSON, events: [(id: Int64, name: String, data: String)]) {
        let result = NIOLockedValueBox<(GeofenceJSON, [(id: Int64, name: String, data: String)])?>(nil)
        try await Support.withDatabaseFile { path in
            let one = try TestServer(database: path)
            try await one.application.test(.router) { client in
                #expect(try await Support.createDepot(on: one, with: client).status == .created)
                await Support.fix(one)
                try await one.geofences.journal.flush()
                #expect(one.geofences.fence(1)?.state == .inside)
            }
            let two = try TestServer(database: path)
            try await two.application.test(.router) { client in
                let before = try JSONDecoder().decode(GeofenceJSON.self, from: try await client.execute(uri: "/geofences/1", method: .get).body)
                await two.waitUntilPending(subscriptions: 1)
                async let stream = client.execute(uri: "/geofences/events", method: .get)
                await GeofenceEventsTests.waitForListeners(1, on: two)
                await Support.fix(two, latitude: latitude)
                // Never reused: the next fence is 2.
                #expect(try await Support.createDepot(on: two, with: client).headers[.location] == "/geofences/2")
                await two.geofences.close()
                let events = Support.stored(try await stream.body)
                result.withLockedValue { $0 = (before, events) }
            }
        }
        return try #require(result.withLockedValue { $0 })
    }

    @Test("a fence comes back with its state; the first fix after the restart reports nothing when the state did not change", .timeLimit(.minutes(1)))
    func unchangedStateIsSilent() async throws {
        let (before, events) = try await Self.restart(firstFixAt: 48.137)
        #expect(before.id == 1 && before.name == "depot" && before.state == "inside" && before.restored == true)
        #expect(events.isEmpty)
    }

    @Test("a state that changed while the server was stopped is reported once, exited, marked whileStopped", .timeLimit(.minutes(1)))
    func changedStateIsMarked() async throws {
        let (_, events) = try await Self.restart(firstFixAt: 48.150)
        let transitions = try events.map { try Support.transition($0.data) }
        #expect(transitions.map(\.transition) == ["exited"])
        #expect(transitions.first?.whileStopped == true && transitions.first?.estimatedCrossing == nil)
        // Event ids go on from the first run's (its determined was 1).
        #expect(events.map(\.id) == [2])
    }

    @Test("a deleted fence, and one that ended otherwise than by shutdown, do not come back; one ended by shutdown does", .timeLimit(.minutes(1)))
    func deletedFencesStayDeleted() async throws {
        try await Support.withDatabaseFile { path in
            let one = try TestServer(database: path)
            try await one.application.test(.router) { client in
                let first = try await Support.createDepot(on: one, with: client)
                let second = try await Support.createDepot(on: one, with: client)
                #expect(first.status == .created && second.status == .created)
                let deleted = try await client.execute(uri: "/geofences/1", method: .delete)
                #expect(deleted.status == .noContent)
                await one.engine.shutdown()
                await one.geofences.close()
            }
            let two = try TestServer(database: path)
            #expect(two.geofences.fences.map(\.id) == [2])
            #expect(two.geofences.counters.totals.restored == 1)
        }
    }

    @Test("a fence that dwelled, went unknown and was found inside again is stored as a stay that dwelled: a restart does not dwell it again", .timeLimit(.minutes(1)))
    func aStayThatDwelledKeepsItAcrossUnknownAndARestart() async throws {
        try await Support.withDatabaseFile { path in
            let one = try TestServer(database: path)
            try await one.application.test(.router) { client in
                let body = #"{"circle": {"latitude": 48.137, "longitude": 11.575, "radius": 200}, "loiteringDelay": "30s", "name": "depot"}"#
                #expect(try await GeofenceRoutesTests.post(body, with: client).status == .created)
                await one.waitUntil { $0.activeSubscriptions >= 1 }
                await Support.fix(one)
                await one.engine.sync(advancingBy: .seconds(30))
                // No fix for the unknown timeout, then inside again: the same stay.
                await one.engine.sync(advancingBy: .seconds(120))
                await Support.fix(one)
                try await one.geofences.journal.flush()
                let state = try await one.geofences.journal.database.read { try String.fetchOne($0, sql: "SELECT state FROM fence WHERE id = 1") }
                let dwelled = try await one.geofences.journal.database.read { try Bool.fetchOne($0, sql: "SELECT dwelled FROM fence WHERE id = 1") }
                #expect(state == "inside" && dwelled == true, "stored \(String(describing: state)), dwelled \(String(describing: dwelled))")
            }
            let two = try TestServer(database: path)
            try await two.application.test(.router) { client in
                await two.waitUntilPending(subscriptions: 1)
                async let stream = client.execute(uri: "/geofences/events", method: .get)
                await GeofenceEventsTests.waitForListeners(1, on: two)
                await Support.fix(two)
                await two.engine.sync(advancingBy: .seconds(60))
                await two.geofences.close()
                let names = try Support.stored(try await stream.body).filter { $0.name == "transition" }.map { try Support.transition($0.data).transition }
                #expect(!names.contains("dwelled"), "\(names)")
            }
        }
    }

    @Test("a database that cannot be used stops the start with an error that names the file and the problem")
    func unusableDatabase() async throws {
        try await Support.withDatabaseFile { path in
            try Data("this is not a database, but it is long enough to have a header of sorts".utf8).write(to: URL(fileURLWithPath: path))
            let error = try #require(throws: DatabaseStartError.self) { try TestServer(database: path) }
            #expect(error.problem == .notADatabase)
            #expect(error.description.contains("--database \(path)") && error.description.contains("Refusing to start"))
        }
        let missing = "/nonexistent-\(UUID().uuidString)/fences.sqlite"
        let error = try #require(throws: DatabaseStartError.self) { try TestServer(database: missing) }
        #expect(error.problem == .cannotOpen)
    }

    /// Another process holding the lock of the database at `path`, as a running server does (a POSIX record lock,
    /// as Python's lockf takes), until its standard input closes; `body` runs while it holds it.
    static func withLockHolder(of path: String, _ body: (Process, FileHandle) async throws -> Void) async throws {
        let holder = Process()
        holder.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        holder.arguments = [
            "python3", "-c",
            "import fcntl, sys; f = open(sys.argv[1], 'w'); fcntl.lockf(f, fcntl.LOCK_EX | fcntl.LOCK_NB); print('locked', flush=True); sys.stdin.read()",
            path + ".lock",
        ]
        let output = Pipe()
        let input = Pipe()
        holder.standardOutput = output
        holder.standardInput = input
        try holder.run()
        defer { if holder.isRunning { holder.terminate() } }
        let said = output.fileHandleForReading.availableData
        #expect(String(decoding: said, as: UTF8.self).hasPrefix("locked"))
        try await body(holder, input.fileHandleForWriting)
    }

    @Test("a server given a symbolic link to a database another server holds is refused too: one file, one lock", .timeLimit(.minutes(1)))
    func databaseInUseThroughALink() async throws {
        try await Support.withDatabaseFile { path in
            let link = path + "-link.sqlite"
            try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: path)
            defer { try? FileManager.default.removeItem(atPath: link) }
            try await Self.withLockHolder(of: path) { _, _ in
                // Before, the lock was the link's own `.lock`: the second server started and wrote beside the first.
                let error = try #require(throws: DatabaseStartError.self) { try TestServer(database: link) }
                #expect(error.problem == .inUse)
            }
            // The link leads to a file not created yet: the lock is the target's all the same.
            #expect(DatabaseFileLock.resolved(link) == path)
            #expect(FileManager.default.createFile(atPath: path, contents: nil))
            #expect(DatabaseFileLock.resolved(link) == path, "and once it exists")
            #expect(DatabaseFileLock.resolved("/nonexistent-dir/f.sqlite") == "/nonexistent-dir/f.sqlite")
        }
    }

    @Test("a second server process on the same database file is refused at start, naming the process that holds it; once that one has ended, the file opens", .timeLimit(.minutes(1)))
    func databaseInUse() async throws {
        try await Support.withDatabaseFile { path in
            try await Self.withLockHolder(of: path) { holder, input in
                let error = try #require(throws: DatabaseStartError.self) { try TestServer(database: path) }
                #expect(error.problem == .inUse)
                #expect(error.description.contains("another server has the database open: held by process \(holder.processIdentifier)"), "\(error)")
                #expect(error.description.contains("stop that server first"), "\(error)")
                #expect(error.description.contains("--database \(path)") && error.description.contains("Refusing to start"))
                // The holder ends (as a killed server does): its lock goes with it.
                try input.close()
                holder.waitUntilExit()
                let server = try TestServer(runningEngine: false, database: path)
                #expect(server.geofences.journal.fileLock?.path == path + ".lock")
            }
        }
    }

    @Test("two claims of one process on a database file share its lock: the first let go, the second still holds the file")
    func claimsOfOneProcessShareTheLock() async throws {
        try await Support.withDatabaseFile { path in
            var first: DatabaseFileLock? = try DatabaseFileLock(database: path)
            var second: DatabaseFileLock? = try DatabaseFileLock(database: path)
            #expect(try first != nil && second != nil && Self.isLockedForOthers(path + ".lock"))
            first = nil
            #expect(try Self.isLockedForOthers(path + ".lock"), "the first claim's going dropped the process's lock")
            second = nil
            #expect(try first == nil && second == nil && !Self.isLockedForOthers(path + ".lock"))
        }
    }

    /// Whether another process would be refused the write lock of `path` (Python's lockf, a POSIX record lock).
    static func isLockedForOthers(_ path: String) throws -> Bool {
        let probe = Process()
        probe.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        probe.arguments = [
            "python3", "-c",
            "import fcntl, sys\nf = open(sys.argv[1], 'a')\ntry:\n    fcntl.lockf(f, fcntl.LOCK_EX | fcntl.LOCK_NB)\n    print('free')\nexcept OSError:\n    print('held')",
            path,
        ]
        let output = Pipe()
        probe.standardOutput = output
        try probe.run()
        probe.waitUntilExit()
        return String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self).hasPrefix("held")
    }

    @Test("a database a newer server migrated is refused at start, naming the migrations this server does not know, and left as it was")
    func databaseOfANewerServer() async throws {
        try await Support.withDatabaseFile { path in
            do {
                let database = try ServerDatabase.open(path: path)
                try await database.write { db in
                    try db.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES ('v9: from the future')")
                    try db.execute(sql: "INSERT INTO fence (id, body, state) VALUES (3, '{\"circle\": {\"latitude\": 48, \"longitude\": 11, \"radius\": 50}}', 'inside')")
                }
                try database.close()
            }
            let error = try #require(throws: DatabaseStartError.self) { try ServerDatabase.open(path: path) }
            #expect(error.problem == .cannotMigrate)
            #expect(error.description.contains("migrated by a newer server (v9: from the future)"), "\(error)")
            #expect(error.description.contains("--database \(path)") && error.description.contains("Refusing to start"))
            let database = try DatabaseQueue(path: path)
            let kept = try await database.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM fence WHERE id = 3") }
            #expect(kept == 1)
        }
    }

    @Test("a fence kept with a name the server now refuses (an earlier one took it) comes back with that name")
    func aNameNowRefusedIsRestored() async throws {
        try await Support.withDatabaseFile { path in
            let name = "depot\u{202E}txt"
            let database = try ServerDatabase.open(path: path)
            try await database.write { db in
                try db.execute(
                    sql: "INSERT INTO fence (id, body, state) VALUES (4, ?, 'inside')",
                    arguments: [#"{"circle": {"latitude": 48, "longitude": 11, "radius": 50}, "name": "\#(name)"}"#])
            }
            try database.close()
            #expect(throws: GeofenceBodyError.self) { try GeofenceBody(json: Data(#"{"circle": {"latitude": 48, "longitude": 11, "radius": 50}, "name": "\#(name)"}"#.utf8)) }
            let server = try TestServer(database: path)
            try await server.application.test(.router) { client in
                let kept = try JSONDecoder().decode(GeofenceJSON.self, from: try await client.execute(uri: "/geofences/4", method: .get).body)
                #expect(kept.name == name)
                await server.geofences.close()
            }
        }
    }

    @Test("a stored fence that no longer reads stops the start, naming the fence")
    func unreadableFence() async throws {
        try await Support.withDatabaseFile { path in
            let database = try ServerDatabase.open(path: path)
            try await database.write { db in
                try db.execute(sql: "INSERT INTO fence (id, body, state) VALUES (7, '{\"circle\": {\"radius\": 5}}', 'inside')")
            }
            let error = try #require(throws: GeofenceRegistry.RestoreError.self) { try TestServer(database: path) }
            #expect(error.fence == 7 && error.description.contains("circle"))
        }
    }

    @Test("a write the disk refuses is not acknowledged: the fence is answered 503 and not monitored, and does not hold back the writes that fit", .timeLimit(.minutes(1)))
    func fullDisk() async throws {
        try await Support.withDatabaseFile { path in
            let server = try TestServer(database: path)
            try await server.application.test(.router) { client in
                #expect(try await Support.createDepot(on: server, with: client).status == .created)
                async let stream = client.execute(uri: "/geofences/events", method: .get)
                await GeofenceEventsTests.waitForListeners(1, on: server)
                // The file may not grow by a page more.
                try await server.geofences.journal.database.write { db in
                    let pages = try Int.fetchOne(db, sql: "PRAGMA page_count") ?? 1
                    try db.execute(sql: "PRAGMA max_page_count = \(pages)")
                }
                let refused = try await GeofenceRoutesTests.post(Self.largePolygon, with: client)
                #expect(refused.status == .serviceUnavailable)
                #expect(String(buffer: refused.body).contains("could not be stored"))
                #expect(try await client.execute(uri: "/geofences/2", method: .get).status == .notFound)
                await Support.fix(server)
                #expect(server.geofences.counters.totals.transitions == 1)
                await server.geofences.close()
                // The refused fence is given up with its 503 (its row and removal leave the backlog), so it no
                // longer holds back the transition, which the full file still has room for.
                let sent = Support.stored(try await stream.body).map(\.id)
                let (kept, fences) = try await server.geofences.journal.database.read { db in
                    (try Int64.fetchAll(db, sql: "SELECT id FROM event ORDER BY id"), try Int64.fetchAll(db, sql: "SELECT id FROM fence"))
                }
                #expect(sent == kept && kept.count == 1, "a stream sends what is stored, and nothing else")
                #expect(fences == [1], "fence 2 never reached the file")
                #expect(server.geofences.counters.totals.storeFailures >= 1)
            }
        }
    }

    @Test("a deletion the database refuses is 503 and retried; a DELETE again answers 204 once it is stored, then 404", .timeLimit(.minutes(1)))
    func deletionRetried() async throws {
        try await Support.withDatabaseFile { path in
            let server = try TestServer(database: path)
            try await server.application.test(.router) { client in
                #expect(try await Support.createDepot(on: server, with: client).status == .created)
                // Every write fails while the connection is read-only.
                try await server.geofences.journal.database.writeWithoutTransaction { try $0.execute(sql: "PRAGMA query_only = 1") }
                let refused = try await client.execute(uri: "/geofences/1", method: .delete)
                #expect(refused.status == .serviceUnavailable)
                #expect(String(buffer: refused.body).contains("DELETE it again"), "\(String(buffer: refused.body))")
                #expect(try await client.execute(uri: "/geofences/1", method: .get).status == .notFound, "no longer monitored")
                let stillStored = try await server.geofences.journal.database.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM fence") }
                #expect(stillStored == 1, "a restart now would bring it back: hence not 404 to a DELETE again")
                let again = try await client.execute(uri: "/geofences/1", method: .delete)
                #expect(again.status == .serviceUnavailable, "still not stored")
                try await server.geofences.journal.database.writeWithoutTransaction { try $0.execute(sql: "PRAGMA query_only = 0") }
                // The next write takes the refused one with it.
                try await server.geofences.journal.flush()
                #expect(try await client.execute(uri: "/geofences/1", method: .delete).status == .noContent)
                #expect(try await client.execute(uri: "/geofences/1", method: .delete).status == .notFound)
                let stored = try await server.geofences.journal.database.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM fence") }
                #expect(stored == 0)
                await server.geofences.close()
            }
        }
    }

    @Test("deletions answered 503 that no DELETE asks about again are forgotten once stored, past the fences' maximum: memory stays bounded", .timeLimit(.minutes(1)))
    func unaskedDeletionsAreForgotten() async throws {
        try await Support.withDatabaseFile { path in
            let server = try TestServer(maximumFences: 2, database: path)
            try await server.application.test(.router) { client in
                for id in 1...5 {
                    #expect(try await Support.createDepot(on: server, with: client).status == .created)
                    try await server.geofences.journal.database.writeWithoutTransaction { try $0.execute(sql: "PRAGMA query_only = 1") }
                    #expect(try await client.execute(uri: "/geofences/\(id)", method: .delete).status == .serviceUnavailable)
                    try await server.geofences.journal.database.writeWithoutTransaction { try $0.execute(sql: "PRAGMA query_only = 0") }
                    try await server.geofences.journal.flush()
                }
                let kept = server.geofences.state.withLockedValue { $0.unstoredDeletions.keys.sorted() }
                #expect(kept.count <= 2, "before, every deletion answered 503 was kept until a DELETE of it again: \(kept)")
                // The newest is still answered as stored: its client may ask again.
                #expect(kept.contains(5))
                #expect(try await client.execute(uri: "/geofences/5", method: .delete).status == .noContent)
                // A forgotten one is what a restart would say of it.
                #expect(try await client.execute(uri: "/geofences/3", method: .delete).status == .notFound)
                await server.geofences.close()
            }
        }
    }

    @Test("a DELETE sent while the first still waits for its write waits for the same write: 204 once stored, never 404", .timeLimit(.minutes(1)))
    func secondDeleteWhileTheFirstWaits() async throws {
        try await Support.withDatabaseFile { path in
            let server = try TestServer(database: path)
            try await server.application.test(.router) { client in
                #expect(try await Support.createDepot(on: server, with: client).status == .created)
                // The first DELETE's first half: the fence leaves memory and its deletion is appended; the answer
                // would now wait for the write (a slow disk, a busy database).
                let removed = try #require(server.geofences.remove(1))
                server.engine.cancel(removed.request)
                #expect(try await client.execute(uri: "/geofences/1", method: .get).status == .notFound, "no longer monitored")
                let again = try await client.execute(uri: "/geofences/1", method: .delete)
                #expect(again.status == .noContent, "a restart before the write would bring the fence back: not 404")
                let stored = try await server.geofences.journal.database.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM fence") }
                #expect(stored == 0)
                #expect(server.geofences.unstoredDeletion(1) == nil, "forgotten once seen stored")
                #expect(try await client.execute(uri: "/geofences/1", method: .delete).status == .notFound)
                await server.geofences.close()
            }
        }
    }

    @Test(
        "listeners that heard a fence whose creation the database then refused hear it end: after a transition, or a suspension (the source failed)",
        .timeLimit(.minutes(1)), arguments: [false, true])
    func abandonedFenceEnds(sourceFails: Bool) async throws {
        try await Support.withDatabaseFile { path in
            let server = try TestServer(database: path)
            try await server.application.test(.router) { client in
                async let stream = client.execute(uri: "/geofences/events", method: .get)
                await GeofenceEventsTests.waitForListeners(1, on: server)
                // The route's path for a creation whose write failed: reserved, monitored, claimed, heard of, abandoned.
                let registry = server.geofences
                let body = try GeofenceBody(json: Data(GeofenceRoutesTests.depot.utf8))
                let id = try registry.reserve(body, owner: Client.local.name)
                let monitor = server.engine.monitor(body.region, options: body.options) { _, event in registry.deliver(event, toFence: id) }
                guard case .monitored = registry.claim(id, request: monitor) else {
                    Issue.record("the engine monitors the fence")
                    return
                }
                await server.waitUntil { $0.activeSubscriptions >= 1 }
                if sourceFails {
                    _ = server.source.emitFatalError(SourceError(code: "gps.gone", message: "the receiver was unplugged"))
                    await server.engine.sync()
                } else {
                    await Support.fix(server)
                }
                #expect(registry.counters.totals.transitions == (sourceFails ? 0 : 1))
                let request = try #require(registry.abandon(id))
                server.engine.cancel(request)
                await server.geofences.close()
                let names = Support.stored(try await stream.body).map(\.name)
                #expect(names == [sourceFails ? "suspended" : "transition", "end"], "\(names)")
                let stored = try await server.geofences.journal.database.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM fence") }
                #expect(stored == 0)
            }
        }
    }

    @Test("what the engine decides of a fence before its POST claims it is heard after the fence's row is stored, and not at all if it ends first", .timeLimit(.minutes(1)))
    func eventsBeforeTheClaimFollowTheRow() async throws {
        try await Support.withDatabaseFile { path in
            let server = try TestServer(database: path)
            let registry = server.geofences
            let body = try GeofenceBody(json: Data(GeofenceRoutesTests.depot.utf8))
            // The names of the stored events, and the number of stored fences.
            let stored = {
                try await registry.journal.database.read { database in
                    (try String.fetchAll(database, sql: "SELECT name FROM event ORDER BY id"), try Int.fetchOne(database, sql: "SELECT COUNT(*) FROM fence") ?? 0)
                }
            }

            // Decided before the claim: nothing is stored of it (a crash now leaves no event of a fence that never existed).
            let kept = try registry.reserve(body, owner: Client.local.name)
            let monitor = server.engine.monitor(body.region, options: body.options) { _, event in registry.deliver(event, toFence: kept) }
            await server.waitUntil { $0.activeSubscriptions >= 1 }
            await Support.fix(server)
            #expect(registry.counters.totals.transitions == 1)
            try await registry.journal.flush()
            var (events, fences) = try await stored()
            #expect(events == [] && fences == 0)
            guard case .monitored(let sequence) = registry.claim(kept, request: monitor) else {
                Issue.record("the engine monitors the fence")
                return
            }
            try await registry.journal.stored(sequence)
            try await registry.journal.flush()
            (events, fences) = try await stored()
            #expect(events == ["transition"] && fences == 1)

            // Decided, then ended, before the claim: its creator alone is told; no listener hears of it.
            let ended = try registry.reserve(body, owner: Client.local.name)
            let other = server.engine.monitor(body.region, options: body.options) { _, event in registry.deliver(event, toFence: ended) }
            await server.waitUntil { $0.activeSubscriptions >= 2 }
            await Support.fix(server)
            server.engine.forceComplete(other)
            await server.engine.sync()
            #expect(registry.claim(ended, request: other) == .ended(.forceCompleted))
            try await registry.journal.flush()
            (events, fences) = try await stored()
            #expect(events == ["transition"] && fences == 1)
            await registry.close()
        }
    }

    /// A polygon of 1,000 vertices: a body of about 40 KB, more than the pages a database has free.
    static var largePolygon: String {
        let ring = (0..<1000).map { index -> String in
            let angle = Double(index) / 1000 * 2 * Double.pi
            return "[\(48.137 + 0.004 * sin(angle)), \(11.575 + 0.006 * cos(angle))]"
        }
        return #"{"polygon": ["# + ring.joined(separator: ", ") + "]}"
    }
}

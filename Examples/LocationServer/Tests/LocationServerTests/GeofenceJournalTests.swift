import Foundation
import GRDB
import Logging
import NIOConcurrencyHelpers
import Prometheus
import Testing

@testable import LocationServer

/// The journal alone, on an in-memory SQLite database: batches, readers behind the retention, a writer
/// that has stopped.
@Suite("Geofence journal")
struct GeofenceJournalTests {
    static func journal(
        retention: EventStore.Retention = EventStore.Retention(count: 100, age: 3600),
        retryDelay: @escaping @Sendable () async -> Void = { try? await Task.sleep(for: .seconds(1)) }
    ) throws -> GeofenceJournal {
        let database = try ServerDatabase.open(path: ServerDatabase.inMemory)
        let contents = try database.read { try EventStore.contents($0) }
        return GeofenceJournal(
            database: database, contents: contents, retention: retention,
            counters: GeofenceCounters(registry: PrometheusCollectorRegistry()), logger: Logger(label: "journal") { _ in SwiftLogNoOpLogHandler() },
            now: { 1_800_000_000 }, retryDelay: retryDelay)
    }

    @Test("while the database refuses writes, each awaited write is tried once and one retry waits, however many writes fail meanwhile; writes no one awaits wait for it", .timeLimit(.minutes(1)))
    func oneRetryAtATime() async throws {
        // Each retry's wait is held until the test lets it go, and counted.
        let held = NIOLockedValueBox<[CheckedContinuation<Void, Never>]>([])
        let journal = try Self.journal(retryDelay: { await withCheckedContinuation { continuation in held.withLockedValue { $0.append(continuation) } } })
        let writer = Task { await journal.run() }
        try await journal.database.writeWithoutTransaction { try $0.execute(sql: "PRAGMA query_only = 1") }
        // Each awaited write is tried once, and fails: its waiter is in before it is appended, so however the
        // writer's wake-ups fall, the count is exact after each.
        for fence in 1...5 as ClosedRange<UInt64> {
            let refused = Task { try await journal.stored(fence) }
            await TestServer.yieldUntil("a reader to wait on the journal") { !journal.state.withLockedValue { $0.waiters.isEmpty } }
            #expect(journal.appendEvent("transition", fence: fence, owner: "fleet", data: "{}") == fence)
            await #expect(throws: GeofenceJournal.StoreFailed.self) { try await refused.value }
            #expect(journal.counters.totals.storeFailures == fence)
        }
        await TestServer.yieldUntil("the retry to be armed") { !held.withLockedValue { $0.isEmpty } }
        #expect(held.withLockedValue { $0.count } == 1 && journal.state.withLockedValue { $0.retryArmed }, "one retry timer, not one per failed attempt")
        // Writes no one awaits (a fix's transitions) wait for the retry: not one attempt each, rerunning the backlog.
        for fence in 6...55 as ClosedRange<UInt64> { journal.appendEvent("transition", fence: fence, owner: "fleet", data: "{}") }
        for _ in 0..<1_000 { await Task.yield() }
        #expect(journal.counters.totals.storeFailures == 5)
        // The retry runs: one more attempt, still refused, which arms the next retry.
        for continuation in held.withLockedValue({ state in defer { state.removeAll() }; return state }) { continuation.resume() }
        await TestServer.yieldUntil("six failed stores") { journal.counters.totals.storeFailures >= 6 }
        await TestServer.yieldUntil("the retry to be armed") { !held.withLockedValue { $0.isEmpty } }
        #expect(held.withLockedValue { $0.count } == 1)
        // The database takes writes again: the next awaited write stores everything waiting.
        try await journal.database.writeWithoutTransaction { try $0.execute(sql: "PRAGMA query_only = 0") }
        try await journal.flush()
        #expect(journal.counters.totals.storeFailures == 6)
        let stored = try await journal.database.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM event") }
        #expect(stored == 55)
        for continuation in held.withLockedValue({ state in defer { state.removeAll() }; return state }) { continuation.resume() }
        journal.finish()
        await writer.value
    }

    @Test("what accumulates while the writer is busy commits in one transaction", .timeLimit(.minutes(1)))
    func oneBatch() async throws {
        let journal = try Self.journal()
        // The writer is not running yet: everything below waits for it, as it would behind a commit.
        for fence in 1...1000 as ClosedRange<UInt64> {
            journal.appendEvent(
                "transition", fence: fence, owner: "fleet", data: "{}",
                then: [.fence(StoredFence(id: fence, body: "{}", owner: "fleet", state: "inside", since: 1, dwelled: false))])
        }
        let writer = Task { await journal.run() }
        try await journal.flush()
        let totals = journal.counters.totals
        #expect(totals.eventsStored == 1000 && totals.storeBatches == 1 && totals.largestBatch == 2000)
        let stored = try await journal.database.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM fence") }
        #expect(stored == 1000)
        journal.finish()
        await writer.value
    }

    @Test("a reader behind the retention is told the oldest id kept; one within it pages in order", .timeLimit(.minutes(1)))
    func behindTheRetention() async throws {
        let journal = try Self.journal(retention: EventStore.Retention(count: 2, age: 3600))
        let writer = Task { await journal.run() }
        for fence in 1...5 as ClosedRange<UInt64> { journal.appendEvent("transition", fence: fence, owner: "fleet", data: "{}") }
        try await journal.flush()
        var bell = journal.doorbell().makeAsyncIterator()
        guard case .behind(let oldest)? = try await journal.page(after: 1, limit: 10, bell: &bell) else {
            Issue.record("a reader at 1 is behind a retention of 2 out of 5")
            return
        }
        #expect(oldest == 4)
        guard case .events(let events)? = try await journal.page(after: 3, limit: 10, bell: &bell) else {
            Issue.record("a reader at 3 reads 4 and 5")
            return
        }
        #expect(events.map(\.id) == [4, 5])
        journal.finish()
        await writer.value
    }

    @Test("age pruning after the wall clock stepped back keeps the ids a prefix: no gap for readers to stall on")
    func agePruningKeepsAPrefix() throws {
        let database = try ServerDatabase.open(path: ServerDatabase.inMemory)
        // Recorded at 50, then 200 (the clock ran on), then 60 (it stepped back): at 1,120 with an age of
        // 1,000 the cutoff is 120, so events 1 and 3 are past it, 2 is not.
        let events = zip(1...3 as ClosedRange<Int64>, [50.0, 200, 60]).map { id, time in
            StoreWrite.event(StoredEvent(id: id, time: time, fence: 1, name: "transition", data: "{}"))
        }
        let oldest = try database.write { db in
            try EventStore.apply(events, retention: EventStore.Retention(count: 100, age: 1_000), now: 1_120, lastEventID: 3, db)
        }
        let kept = try database.read { try Int64.fetchAll($0, sql: "SELECT id FROM event ORDER BY id") }
        #expect(kept == [2, 3], "only the old prefix goes; 3 waits for 2")
        #expect(oldest == 2)
    }

    /// A database holding events 1 to 5, and a journal over it that read them in (its state says 1 is the oldest).
    static func journalOverFiveEvents() async throws -> (any DatabaseWriter, GeofenceJournal) {
        let retention = EventStore.Retention(count: 100, age: 3600)
        let database = try ServerDatabase.open(path: ServerDatabase.inMemory)
        try await database.write { db in
            let events = (1...5 as ClosedRange<Int64>).map { StoreWrite.event(StoredEvent(id: $0, time: 1_800_000_000, fence: 1, name: "transition", data: "{}")) }
            _ = try EventStore.apply(events, retention: retention, now: 1_800_000_000, lastEventID: 5, db)
        }
        let contents = try await database.read { try EventStore.contents($0) }
        let journal = GeofenceJournal(
            database: database, contents: contents, retention: retention,
            counters: GeofenceCounters(registry: PrometheusCollectorRegistry()), logger: Logger(label: "journal") { _ in SwiftLogNoOpLogHandler() },
            now: { 1_800_000_000 })
        return (database, journal)
    }

    @Test("a reader gets past a gap in the stored ids (a database pruned with gaps before) instead of looking again forever", .timeLimit(.minutes(1)))
    func readerSkipsAGap() async throws {
        let (database, journal) = try await Self.journalOverFiveEvents()
        try await database.write { try $0.execute(sql: "DELETE FROM event WHERE id IN (3, 4)") }
        var bell = journal.doorbell().makeAsyncIterator()
        guard case .events(let events)? = try await journal.page(after: 2, limit: 10, bell: &bell) else {
            Issue.record("a reader at 2 reads on past the gap")
            return
        }
        #expect(events.map(\.id) == [5])
    }

    @Test("a reader paging from the database while a commit has pruned past it, before the journal's state says so, is behind, not past a gap", .timeLimit(.minutes(1)))
    func readerMeetsAPruneNotYetInTheState() async throws {
        let (database, journal) = try await Self.journalOverFiveEvents()
        // A commit's pruning by count, its new oldest id not yet in the journal's state.
        try await database.write { try $0.execute(sql: "DELETE FROM event WHERE id <= 3") }
        var bell = journal.doorbell().makeAsyncIterator()
        guard case .behind(let oldest)? = try await journal.page(after: 1, limit: 10, bell: &bell) else {
            Issue.record("events 2 and 3 were pruned: the reader at 1 is behind, not handed 4 and 5")
            return
        }
        #expect(oldest == 4)
    }

    @Test("a reader paging from the database after a commit pruned every event, before the journal's state says so, is behind the next event", .timeLimit(.minutes(1)))
    func readerMeetsAFullPruneNotYetInTheState() async throws {
        let (database, journal) = try await Self.journalOverFiveEvents()
        // A commit's pruning by age took every event; the journal's state still says 1 is the oldest.
        try await database.write { try $0.execute(sql: "DELETE FROM event") }
        // Closed: a reader that took the empty table for a gap would end quietly here, past events it never had.
        journal.close()
        var bell = journal.doorbell().makeAsyncIterator()
        guard case .behind(let oldest)? = try await journal.page(after: 1, limit: 10, bell: &bell) else {
            Issue.record("events 2 to 5 were pruned: the reader at 1 is behind, not past a gap")
            return
        }
        #expect(oldest == 6)
    }

    @Test("while the database refuses every write, the backlog is cut to what it would keep; it is all stored once it takes writes", .timeLimit(.minutes(1)))
    func backlogWhileRefused() async throws {
        let journal = try Self.journal(retention: EventStore.Retention(count: 10, age: 3600))
        let writer = Task { await journal.run() }
        let fence = { (id: UInt64) in StoredFence(id: id, body: "{}", owner: "fleet", state: "unknown", since: nil, dwelled: false) }
        journal.append([.fence(fence(1)), .lastFenceID(1)])
        try await journal.flush()
        try await journal.database.writeWithoutTransaction { try $0.execute(sql: "PRAGMA query_only = 1") }
        // The first write refused (whenever the writer runs): every batch after it is cut.
        journal.appendEvent("transition", fence: 1, owner: "fleet", data: "{}")
        await #expect(throws: GeofenceJournal.StoreFailed.self) { try await journal.flush() }
        // Hours of a refusing disk, in short: fence 1 goes in and out 50 times, fence 2 comes and goes,
        // fence 1 is deleted after all, 3 stays; 100 events more.
        for round in 1...50 {
            journal.appendEvent(
                "transition", fence: 1, owner: "fleet", data: "{}",
                then: [.fenceState(1, state: round.isMultiple(of: 2) ? "inside" : "outside", since: Double(round), dwelled: false)])
            journal.appendEvent(
                "transition", fence: 3, owner: "fleet", data: "{}",
                then: [.fenceState(3, state: round.isMultiple(of: 2) ? "outside" : "inside", since: Double(round), dwelled: false)])
            if round == 10 { journal.append([.fence(fence(2)), .lastFenceID(2), .fenceState(2, state: "inside", since: 1, dwelled: false)]) }
            if round == 20 { journal.append([.fenceRemoved(2)]) }
            if round == 30 { journal.append([.fence(fence(3)), .lastFenceID(3)]) }
        }
        journal.append([.fenceRemoved(1)])
        await #expect(throws: GeofenceJournal.StoreFailed.self) { try await journal.flush() }
        #expect(journal.counters.totals.eventsExpiredUnstored == 91)
        try await journal.database.writeWithoutTransaction { try $0.execute(sql: "PRAGMA query_only = 0") }
        try await journal.flush()
        // All in one commit: the retention's 10 events, fence 3's row and latest state, fence 1's removal,
        // the last fence ID — 14 writes rather than 101 events, 100 states and 8 other writes.
        #expect(journal.counters.totals.largestBatch == 14)
        let (fences, lastFenceID, events) = try await journal.database.read { db in
            (
                try Row.fetchAll(db, sql: "SELECT id, state, since FROM fence ORDER BY id").map { "\($0["id"] as Int64) \($0["state"] as String) \($0["since"] as Double)" },
                try Int64.fetchOne(db, sql: "SELECT value FROM meta WHERE key = 'last_fence_id'"),
                try Int64.fetchAll(db, sql: "SELECT id FROM event ORDER BY id")
            )
        }
        #expect(fences == ["3 outside 50.0"], "what the uncut writes would have left")
        #expect(lastFenceID == 3)
        #expect(events == Array(92...101))
        var bell = journal.doorbell().makeAsyncIterator()
        guard case .behind(let oldest)? = try await journal.page(after: 1, limit: 20, bell: &bell) else {
            Issue.record("a reader from before the refusal is behind the retention")
            return
        }
        #expect(oldest == 92)
        guard case .events(let recent)? = try await journal.page(after: 96, limit: 20, bell: &bell) else {
            Issue.record("a reader at 96 reads on from memory")
            return
        }
        #expect(recent.map(\.id) == [97, 98, 99, 100, 101])
        journal.finish()
        await writer.value
    }

    @Test("a write its waiter withdraws on failure is never stored, even by a retry that runs before the waiter undoes it", .timeLimit(.minutes(1)))
    func withdrawnOnFailure() async throws {
        let journal = try Self.journal()
        try await journal.database.writeWithoutTransaction { try $0.execute(sql: "PRAGMA query_only = 1") }
        let fence = StoredFence(id: 1, body: "{}", owner: "fleet", state: "unknown", since: nil, dwelled: false)
        let sequence = journal.append([.fence(fence), .lastFenceID(1)])
        // The waiter is in before the writer runs, so the first (refused) commit is the one that tells it.
        let refused = Task { try await journal.stored(sequence, withdrawingOnFailure: [.fenceRemoved(1)]) }
        await TestServer.yieldUntil("a reader to wait on the journal") { !journal.state.withLockedValue { $0.waiters.isEmpty } }
        let writer = Task { await journal.run() }
        // A creation answered 503: told so, its removal is in the backlog before anything can retry it.
        await #expect(throws: GeofenceJournal.StoreFailed.self) { try await refused.value }
        // The database takes writes again and another write commits the backlog before the caller has
        // undone anything: the moment a crash would keep whatever that commit stored.
        try await journal.database.writeWithoutTransaction { try $0.execute(sql: "PRAGMA query_only = 0") }
        journal.appendEvent("transition", fence: 7, owner: "fleet", data: "{}")
        try await journal.flush()
        let (fences, lastFenceID, events) = try await journal.database.read { db in
            (
                try Int64.fetchAll(db, sql: "SELECT id FROM fence"),
                try Int64.fetchOne(db, sql: "SELECT value FROM meta WHERE key = 'last_fence_id'"),
                try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM event")
            )
        }
        #expect(fences.isEmpty, "the refused fence would come back after a restart")
        #expect(lastFenceID == 1, "its id is not handed out again")
        #expect(events == 1, "the writes behind it are stored")
        journal.finish()
        await writer.value
    }

    @Test("once the writer has stopped, a write is refused at once rather than waited for", .timeLimit(.minutes(1)))
    func stoppedWriter() async throws {
        let journal = try Self.journal()
        let writer = Task { await journal.run() }
        journal.finish()
        await writer.value
        let sequence = journal.appendEvent("end", fence: 1, owner: "fleet", data: "{}")
        await #expect(throws: GeofenceJournal.StoreFailed.self) { try await journal.stored(sequence) }
    }
}

import Foundation
import Logging
import Prometheus
import Testing

@testable import LocationServer

/// The journal alone, on an in-memory SQLite database: batches, readers behind the retention, a writer
/// that has stopped.
@Suite("Geofence journal")
struct GeofenceJournalTests {
    static func journal(retention: EventStore.Retention = EventStore.Retention(count: 100, age: 3600)) throws -> GeofenceJournal {
        let database = try ServerDatabase.open(path: ServerDatabase.inMemory)
        let contents = try database.read { try EventStore.contents($0) }
        return GeofenceJournal(
            database: database, contents: contents, retention: retention,
            counters: GeofenceCounters(registry: PrometheusCollectorRegistry()), logger: Logger(label: "journal") { _ in SwiftLogNoOpLogHandler() },
            now: { 1_800_000_000 })
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

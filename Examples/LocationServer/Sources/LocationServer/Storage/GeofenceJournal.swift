import Foundation
import GRDB
import Logging
import NIOConcurrencyHelpers

/// The writes of the server's fences and events, in the order they happened, to the database: batched
/// (whatever accumulated while the last transaction ran commits in the next, so a fix that decides
/// 10,000 fences commits them together), acknowledged only once committed, and the events read back by
/// every `GET /geofences/events` stream from their id on (``GeofenceEventReader``).
///
/// Event ids are handed out when an event is appended, one after another, and an event is visible to
/// readers only once stored, so a reader that follows the ids never sees a gap or a duplicate. The newest
/// ``recentCapacity`` stored events are also kept in memory, so that readers that keep up never touch
/// the database; one that falls behind is paged from it.
final class GeofenceJournal: Sendable {
    /// A write that could not be committed (a full disk, a failing device): what was waiting for it is
    /// told, and the write is tried again with the next batch (cut by ``StoreBacklog`` to what the
    /// database would keep).
    struct StoreFailed: Error, CustomStringConvertible {
        var description: String
    }

    struct Waiter {
        var sequence: UInt64
        /// Writes that undo the awaited one, appended in the same step that tells the waiter its write failed.
        var withdrawal: [StoreWrite]
        var continuation: CheckedContinuation<Void, any Error>
    }

    struct State {
        var pending: [StoreWrite] = []
        /// Writes appended, and stored, so far (a write's sequence number is its place in that count).
        var appended: UInt64 = 0
        var stored: UInt64 = 0
        /// The newest event id handed out, and the newest stored.
        var lastEventID: Int64
        var storedEventID: Int64
        /// The oldest event the database keeps (`storedEventID + 1` when it keeps none).
        var oldestEventID: Int64
        /// The newest stored events, oldest first, ids consecutive.
        var recent: [StoredEvent] = []
        var waiters: [Waiter] = []
        var bells: [Int: AsyncStream<Void>.Continuation] = [:]
        var lastBell = 0
        /// No more writes come: the writer stops once it has stored what is pending.
        var finishing = false
        /// The last write failed: what is pending is cut before it is tried again (``StoreBacklog``).
        var lastWriteFailed = false
        /// A retry after a failed write is waiting: a failed attempt for an awaited write would otherwise arm one
        /// more timer, the retries growing with the writes.
        var retryArmed = false
        /// The retry timer has fired since the last failed attempt: the writer tries again.
        var retryDue = false
        /// Readers end once they have read every stored event.
        var closed = false
        /// The writer has returned: nothing appended from now on is stored.
        var writerStopped = false
    }

    let database: any DatabaseWriter
    let retention: EventStore.Retention
    /// The wall clock, Unix seconds: when an event is recorded, and how old retention finds it.
    let now: @Sendable () -> Double
    let recentCapacity: Int
    let counters: GeofenceCounters
    let logger: Logger
    /// Waits before a failed batch is tried again on its own (a second; tests pass a wait they end).
    let retryDelay: @Sendable () async -> Void
    /// The server's claim on the database file, held as long as the journal writes to it.
    let fileLock: DatabaseFileLock?
    let state: NIOLockedValueBox<State>
    private let writerBell = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))

    init(
        database: any DatabaseWriter, contents: EventStore.Contents, retention: EventStore.Retention, counters: GeofenceCounters,
        logger: Logger, recentCapacity: Int = 16_384, now: @escaping @Sendable () -> Double = { Date().timeIntervalSince1970 },
        retryDelay: @escaping @Sendable () async -> Void = { try? await Task.sleep(for: .seconds(1)) }, fileLock: DatabaseFileLock? = nil
    ) {
        self.database = database
        self.retryDelay = retryDelay
        self.fileLock = fileLock
        self.retention = retention
        self.counters = counters
        self.logger = logger
        self.recentCapacity = max(1, recentCapacity)
        self.now = now
        state = NIOLockedValueBox(
            State(lastEventID: contents.lastEventID, storedEventID: contents.lastEventID, oldestEventID: contents.oldestEventID))
    }

    // MARK: Appending

    /// Appends `writes`; returns the sequence number to wait for with ``stored(_:)``.
    /// - Complexity: O(w) for w writes.
    @discardableResult
    func append(_ writes: [StoreWrite]) -> UInt64 {
        let sequence = state.withLockedValue { state in
            state.pending += writes
            state.appended += UInt64(writes.count)
            return state.appended
        }
        writerBell.continuation.yield()
        return sequence
    }

    /// Appends an event named `name` about `fence` (owned by `owner`) with `data`, under the next id, and then `writes`;
    /// returns the sequence number to wait for. Called under the caller's lock when the order of events
    /// must follow the order of its changes: it takes only the journal's own.
    @discardableResult
    func appendEvent(_ name: String, fence: UInt64?, owner: String?, data: String, then writes: [StoreWrite] = []) -> UInt64 {
        let time = now()
        let appendedAt = ContinuousClock.now
        let sequence = state.withLockedValue { state in
            state.lastEventID += 1
            state.pending.append(.event(StoredEvent(
                id: state.lastEventID, time: time, fence: fence, owner: owner, name: name, data: data, appendedAt: appendedAt)))
            state.pending += writes
            state.appended += UInt64(1 + writes.count)
            return state.appended
        }
        writerBell.continuation.yield()
        return sequence
    }

    /// Appends `grants` (``GrantHistory``) as in force from the next event id on; returns that id, and the
    /// oldest event the database keeps.
    /// - Complexity: O(g) for g grants.
    func appendGrants(_ grants: [(client: String, grant: EventGrant)]) -> (from: Int64, oldestKept: Int64) {
        let appended = state.withLockedValue { state in
            let from = state.lastEventID + 1
            state.pending += grants.map { StoreWrite.grant(GrantChange(client: $0.client, fromEvent: from, grant: $0.grant)) }
            state.appended += UInt64(grants.count)
            return (from, state.oldestEventID)
        }
        writerBell.continuation.yield()
        return appended
    }

    /// Returns once the write numbered `sequence` (and every one before it) is stored.
    ///
    /// When that batch fails, `withdrawal` is appended behind it in the same step, before the writer can
    /// try it again: a write whose failure the caller reports (a fence answered `503`) can then not be
    /// committed by a retry that runs before the caller undoes it, and come back after a crash.
    /// - Throws: ``StoreFailed`` when the batch holding it could not be committed.
    func stored(_ sequence: UInt64, withdrawingOnFailure withdrawal: [StoreWrite] = []) async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            let done: Bool? = state.withLockedValue { state in
                guard state.stored < sequence else { return true }
                guard !state.writerStopped else { return false }
                state.waiters.append(Waiter(sequence: sequence, withdrawal: withdrawal, continuation: continuation))
                return nil
            }
            switch done {
            case true?: continuation.resume()
            case false?: continuation.resume(throwing: StoreFailed(description: "the server is shutting down"))
            // After a failed write the writer waits for its timer, or for a write someone waits on: this one.
            case nil: writerBell.continuation.yield()
            }
        }
    }

    /// The sequence number of the last write stored: every write numbered up to it is.
    var storedSequence: UInt64 { state.withLockedValue { $0.stored } }

    /// Returns once everything appended so far is stored.
    /// - Throws: ``StoreFailed`` when the batch holding the last write could not be committed.
    func flush() async throws { try await stored(append([])) }

    // MARK: Writing

    /// Stores what is appended, batch after batch, until ``finish()`` and everything is stored. After a batch
    /// fails, the writer tries again a second later (one timer at a time), or at once for a write someone
    /// waits on (a request's answer, a flush) once it is appended — one attempt for each — but not for every
    /// write no one awaits: the events of fixes during an outage would otherwise each rerun the whole
    /// backlog's transaction.
    func run() async {
        defer { stopWriting() }
        for await _ in writerBell.stream {
            while let batch = takeBatch() {
                if await write(batch) { continue }
                if state.withLockedValue({ $0.finishing }) {
                    logger.error("geofence store: giving up at shutdown", metadata: ["unstored": "\(batch.writes.count)"])
                    return
                }
                let arm = state.withLockedValue { state in
                    defer { state.retryArmed = true }
                    return !state.retryArmed
                }
                if arm {
                    Task { [writerBell, retryDelay, state] in
                        await retryDelay()
                        state.withLockedValue { state in
                            state.retryArmed = false
                            state.retryDue = true
                        }
                        writerBell.continuation.yield()
                    }
                }
                break
            }
            if state.withLockedValue({ $0.finishing && $0.pending.isEmpty }) { return }
        }
    }

    /// No more writes come: ``run()`` returns once what is pending is stored.
    func finish() {
        state.withLockedValue { $0.finishing = true }
        writerBell.continuation.yield()
    }

    /// The writer has returned: whoever still waits for a write is told it will not be stored.
    private func stopWriting() {
        let waiters = state.withLockedValue { state in
            state.writerStopped = true
            defer { state.waiters.removeAll() }
            return state.waiters
        }
        for waiter in waiters { waiter.continuation.resume(throwing: StoreFailed(description: "the server is shutting down")) }
    }

    private struct Batch {
        var writes: [StoreWrite]
        var sequence: UInt64
        var lastEventID: Int64
    }

    /// What is pending, as one batch; after a failed write, cut to what the database would keep
    /// (``StoreBacklog``), so that a database refusing writes for hours holds the server's memory to that,
    /// and a fence given up with its 503 no longer holds back the writes that would fit. After a failed
    /// write, `nil` until the retry timer fired, a write someone waits on is appended, or shutdown.
    private func takeBatch() -> Batch? {
        let taken: (batch: Batch, compact: Bool)? = state.withLockedValue { state in
            // A backlog cut to nothing whose commit then failed still has waiters: it is committed again (empty).
            guard !state.pending.isEmpty || (state.lastWriteFailed && state.stored < state.appended) else { return nil }
            if state.lastWriteFailed {
                let awaited = state.waiters.contains { $0.sequence <= state.appended }
                guard state.retryDue || awaited || state.finishing else { return nil }
                state.retryDue = false
            }
            defer { state.pending = [] }
            return (Batch(writes: state.pending, sequence: state.appended, lastEventID: state.lastEventID), state.lastWriteFailed)
        }
        guard var batch = taken?.batch else { return nil }
        var expired = 0
        if taken?.compact == true {
            // Outside the lock: the backlog can be the retention's count of events, and appending (under the
            // fixes' delivery) must not wait for its compaction on every retry.
            let backlog = StoreBacklog.compacted(batch.writes, expiredThrough: batch.lastEventID - Int64(retention.count))
            (batch.writes, expired) = (backlog.writes, backlog.droppedEvents)
        }
        if expired > 0 {
            counters.expiredUnstored(expired)
            logger.error("geofence store: events went past the retention before the database took them", metadata: ["events": "\(expired)"])
        }
        // A batch cut to nothing is still committed (the last event id, the retention): its waiters learn
        // whether the database takes writes again.
        return batch
    }

    /// Commits `batch` in one transaction; returns whether it did. Afterwards, its waiters are resumed (or
    /// told it failed) and the readers woken.
    private func write(_ batch: Batch) async -> Bool {
        let retention = retention
        let time = now()
        let start = ContinuousClock.now
        let result: Result<Int64, any Error>
        do {
            result = .success(try await database.write { db in
                try EventStore.apply(batch.writes, retention: retention, now: time, lastEventID: batch.lastEventID, db)
            })
        } catch {
            result = .failure(error)
        }
        let events = batch.writes.compactMap { write -> StoredEvent? in
            if case .event(let event) = write { return event }
            return nil
        }
        let (waiters, bells): ([Waiter], [AsyncStream<Void>.Continuation]) = state.withLockedValue { state in
            let due = state.waiters.filter { $0.sequence <= batch.sequence }
            state.waiters.removeAll { $0.sequence <= batch.sequence }
            switch result {
            case .success(let oldest):
                state.lastWriteFailed = false
                state.retryDue = false
                state.stored = batch.sequence
                state.storedEventID = batch.lastEventID
                state.oldestEventID = oldest
                state.recent += events
                // Trimmed to the capacity once it holds twice that (amortised O(1) per event), and of
                // whatever retention removed.
                let pruned = state.recent.first.map { $0.id < oldest } ?? false
                if pruned || state.recent.count > 2 * recentCapacity {
                    let keep = state.recent.firstIndex { $0.id >= oldest } ?? state.recent.endIndex
                    state.recent.removeFirst(max(keep, state.recent.count - recentCapacity))
                }
            case .failure:
                // Tried again first, before anything appended since; what the failed waiters withdraw goes
                // with it, so no retry commits their writes alone (``StoreBacklog`` then drops both).
                let withdrawals = due.flatMap(\.withdrawal)
                state.pending = batch.writes + withdrawals + state.pending
                state.appended += UInt64(withdrawals.count)
                state.lastWriteFailed = true
            }
            return (due, Array(state.bells.values))
        }
        switch result {
        case .success:
            counters.stored(events: events.count, writes: batch.writes.count, seconds: (ContinuousClock.now - start).secondsValue)
            for waiter in waiters { waiter.continuation.resume() }
            for bell in bells { bell.yield() }
            return true
        case .failure(let error):
            counters.storeFailed()
            logger.error("geofence store: a write failed; it is retried", metadata: ["writes": "\(batch.writes.count)", "error": "\(error)"])
            for waiter in waiters { waiter.continuation.resume(throwing: StoreFailed(description: "\(error)")) }
            return false
        }
    }
}

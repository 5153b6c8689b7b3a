import GRDB

/// Where a `GET /geofences/events` stream starts, and the pages it reads from there: from the journal's
/// memory while it keeps up, from the database when it is behind, so that a slow reader or one resuming
/// after a disconnection or a restart gets every event after its `Last-Event-ID` exactly once, in order.
extension GeofenceJournal {
    /// A `Last-Event-ID` the server cannot resume from.
    enum ResumeError: Error, Equatable {
        /// Older than the retention: the events after it are gone; `oldest` is the oldest kept (when none is,
        /// the next to be stored: `kept` is false).
        case gone(oldest: Int64, kept: Bool)
        /// Newer than any event the server has recorded.
        case ahead(newest: Int64)
    }

    /// What a reader gets next.
    enum Page: Sendable {
        /// The next events, oldest first.
        case events([StoredEvent])
        /// The reader fell behind the retention: `oldest` is the oldest event kept.
        case behind(oldest: Int64)
        /// The journal is closed and the reader has read everything: the stream ends.
        case closed
    }

    /// The id a stream starts after: `lastEventID` when the journal can resume from it, else the newest
    /// id handed out (a new listener hears what happens from now on).
    func resumePoint(after lastEventID: Int64?) throws(ResumeError) -> Int64 {
        let result: Result<Int64, ResumeError> = state.withLockedValue { state in
            guard let id = lastEventID else { return .success(state.lastEventID) }
            if id > state.lastEventID { return .failure(.ahead(newest: state.lastEventID)) }
            if id < state.oldestEventID - 1 {
                return .failure(.gone(oldest: state.oldestEventID, kept: state.oldestEventID <= state.storedEventID))
            }
            return .success(id)
        }
        return try result.get()
    }

    /// A reader's doorbell: rung whenever events are stored or the journal closes; the reader stops
    /// hearing it when it ends the returned sequence.
    func doorbell() -> AsyncStream<Void> { doorbellWithHandle().bell }

    /// A doorbell, and its handle: finishing it ends a ``page(after:limit:bell:)`` waiting on it (`nil`), as
    /// cancelling the reader would.
    func doorbellWithHandle() -> (bell: AsyncStream<Void>, handle: AsyncStream<Void>.Continuation) {
        let (stream, continuation) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let key: Int = state.withLockedValue { state in
            state.lastBell += 1
            state.bells[state.lastBell] = continuation
            return state.lastBell
        }
        continuation.onTermination = { [weak self] _ in self?.state.withLockedValue { _ = $0.bells.removeValue(forKey: key) } }
        continuation.yield()
        return (stream, continuation)
    }

    /// The next page after `cursor`, at most `limit` events, waiting on `bell` until there is one.
    /// Returns `nil` when the reading task is cancelled.
    func page(after cursor: Int64, limit: Int, bell: inout AsyncStream<Void>.AsyncIterator) async throws -> Page? {
        var cursor = cursor
        while true {
            enum Next {
                case page(Page)
                case read(through: Int64)
                case wait
            }
            let next: Next = state.withLockedValue { state in
                if cursor < state.oldestEventID - 1 { return .page(.behind(oldest: state.oldestEventID)) }
                guard cursor < state.storedEventID else { return state.closed ? .page(.closed) : .wait }
                if let first = state.recent.first, first.id <= cursor + 1 {
                    let start = Int(cursor + 1 - first.id)
                    return .page(.events(Array(state.recent[start..<min(state.recent.count, start + limit)])))
                }
                return .read(through: state.storedEventID)
            }
            switch next {
            case .page(let page):
                return page
            case .read(let through):
                let after = cursor
                // The oldest kept, read in the same transaction: a commit that pruned past the cursor may not have
                // told the journal's state yet, which would then take the hole for a gap and skip the pruned events.
                let (events, oldest) = try await database.read { db in
                    (try EventStore.events(after: after, through: through, limit: limit, db), try Int64.fetchOne(db, sql: "SELECT MIN(id) FROM event"))
                }
                if events.first?.id == cursor + 1 { return .events(events) }
                if let oldest, oldest > cursor + 1 { return .behind(oldest: oldest) }
                // Every event pruned (by age, by a commit that added none): the oldest kept will be the next one.
                if oldest == nil { return .behind(oldest: through + 1) }
                // Pruned between the two looks: the next pass says how far.
                if state.withLockedValue({ cursor < $0.oldestEventID - 1 }) { continue }
                // A gap within what is kept: a database whose age pruning, before it kept to the oldest events
                // in id order, met a clock that had stepped back. Those events are gone; the reader goes on.
                if events.isEmpty {
                    cursor = through
                    continue
                }
                return .events(events)
            case .wait:
                guard await bell.next() != nil, !Task.isCancelled else { return nil }
            }
        }
    }

    /// Readers end once they have read every stored event (``finish()`` first, so that every event is).
    func close() {
        let bells = state.withLockedValue { state in
            state.closed = true
            return Array(state.bells.values)
        }
        for bell in bells { bell.yield() }
    }
}

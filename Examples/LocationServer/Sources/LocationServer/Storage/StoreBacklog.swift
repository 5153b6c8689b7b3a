/// What the journal keeps of writes the database refused, so that a database that refuses every write
/// for hours (a full disk, a failing device) costs the server no more memory than the database itself
/// would hold: the backlog is cut to what the next commit would leave in the database.
///
/// - A fence's state: only its latest (each is a whole `UPDATE` of the row).
/// - A fence created and removed within the backlog: nothing (the database never had it).
/// - A fence removed: no state for it.
/// - The last fence ID: only the latest.
/// - Events: only those the retention by count would keep once stored (the next commit deletes the
///   others at once). No reader has seen an unstored event, so none misses one it was shown; a reader
///   that asks from an earlier id is told the oldest kept, as for any event the retention removed.
///
/// So the backlog holds at most the retention's count of events and, per fence, its row, one state and
/// its removal.
enum StoreBacklog {
    /// `writes` (in the order they were made) cut as above, events with ids up to `expiredThrough`
    /// dropped; returns the writes kept, in order, and how many events were dropped.
    /// - Complexity: O(w) for w writes.
    static func compacted(_ writes: [StoreWrite], expiredThrough: Int64) -> (writes: [StoreWrite], droppedEvents: Int) {
        var created = Set<UInt64>()
        var removed = Set<UInt64>()
        var latestState: [UInt64: Int] = [:]
        var latestFenceID: Int?
        for (index, write) in writes.enumerated() {
            switch write {
            case .fence(let fence): created.insert(fence.id)
            case .fenceRemoved(let id): removed.insert(id)
            case .fenceState(let id, _, _, _): latestState[id] = index
            case .lastFenceID: latestFenceID = index
            case .event, .grant: break
            }
        }
        var kept: [StoreWrite] = []
        kept.reserveCapacity(writes.count)
        var droppedEvents = 0
        for (index, write) in writes.enumerated() {
            switch write {
            case .fence(let fence):
                if removed.contains(fence.id) { continue }
            case .fenceRemoved(let id):
                if created.contains(id) { continue }
            case .fenceState(let id, _, _, _):
                if removed.contains(id) || latestState[id] != index { continue }
            case .lastFenceID:
                if latestFenceID != index { continue }
            case .grant: break
            case .event(let event):
                if event.id <= expiredThrough {
                    droppedEvents += 1
                    continue
                }
            }
            kept.append(write)
        }
        return (kept, droppedEvents)
    }
}

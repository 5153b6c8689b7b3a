import GRDB

/// The server's reads and writes of its database, each on a `Database` the caller has opened (in a
/// transaction for the writes): no state of its own.
enum EventStore {
    /// How long events are kept: the newest `count`, none older than `age` seconds.
    struct Retention: Sendable, Equatable {
        var count: Int
        var age: Double
    }

    /// What the store holds at start.
    struct Contents: Sendable {
        var fences: [StoredFence]
        var lastFenceID: UInt64
        /// The newest event's id (0: none ever).
        var lastEventID: Int64
        /// The oldest event kept (`lastEventID + 1` when none is).
        var oldestEventID: Int64
        /// The clients' grants (``GrantHistory``), each client's oldest first.
        var grants: [GrantChange] = []
    }

    /// Applies `writes` in order, then prunes the events past `retention` as of `now` (Unix seconds), and
    /// returns the oldest event id kept (`lastEventID + 1` when none is). Events past the age are pruned
    /// from the oldest, at most twice as many per call as `writes`: a backlog goes over the next calls.
    /// - Complexity: O(w) statements for the w writes, each O(log n); pruning O(k log n) for k events removed.
    static func apply(_ writes: [StoreWrite], retention: Retention, now: Double, lastEventID: Int64, _ db: Database) throws -> Int64 {
        var grantsWritten = false
        for write in writes {
            switch write {
            case .event(let event):
                try db.cachedStatement(sql: "INSERT INTO event (id, time, fence, owner, name, data) VALUES (?, ?, ?, ?, ?, ?)")
                    .execute(arguments: [event.id, event.time, event.fence.map(Int64.init), event.owner, event.name, event.data])
            case .fence(let fence):
                try db.cachedStatement(sql: "INSERT OR REPLACE INTO fence (id, body, owner, state, since, dwelled) VALUES (?, ?, ?, ?, ?, ?)")
                    .execute(arguments: [Int64(fence.id), fence.body, fence.owner, fence.state, fence.since, fence.dwelled])
            case .fenceState(let id, let state, let since, let dwelled):
                try db.cachedStatement(sql: "UPDATE fence SET state = ?, since = ?, dwelled = ? WHERE id = ?")
                    .execute(arguments: [state, since, dwelled, Int64(id)])
            case .fenceRemoved(let id):
                try db.cachedStatement(sql: "DELETE FROM fence WHERE id = ?").execute(arguments: [Int64(id)])
            case .lastFenceID(let id):
                try db.cachedStatement(sql: "INSERT OR REPLACE INTO meta (key, value) VALUES ('last_fence_id', ?)").execute(arguments: [Int64(id)])
            case .grant(let change):
                grantsWritten = true
                try db.cachedStatement(sql: "INSERT OR REPLACE INTO client_grant (client, from_event, scope, expires) VALUES (?, ?, ?, ?)")
                    .execute(arguments: [change.client, change.fromEvent, change.grant.scope.rawValue, change.grant.expires])
            }
        }
        try db.cachedStatement(sql: "INSERT OR REPLACE INTO meta (key, value) VALUES ('last_event_id', ?)").execute(arguments: [lastEventID])
        try db.cachedStatement(sql: "DELETE FROM event WHERE id <= ?").execute(arguments: [lastEventID - Int64(retention.count)])
        // By age: the oldest events, a prefix in id order, without an index on time (which would cost
        // every insert); at most twice as many as were written, so pruning keeps pace with writing. Only when
        // the oldest is past the age: most commits find nothing to prune, and looking costs one row. Up to the
        // first event of the window that is not past the age, not every one that is: after the wall clock steps
        // back, times are not in id order, and pruning each old one would leave gaps in the ids readers follow.
        let cutoff = now - retention.age
        if let oldest = try Double.fetchOne(db, sql: "SELECT time FROM event ORDER BY id LIMIT 1"), oldest < cutoff {
            let window = max(1_000, 2 * writes.count)
            let young = try Int64.fetchOne(
                db, sql: "SELECT MIN(id) FROM (SELECT id, time FROM event ORDER BY id LIMIT ?) WHERE time >= ?", arguments: [window, cutoff])
            let end = try young ?? Int64.fetchOne(db, sql: "SELECT MAX(id) + 1 FROM (SELECT id FROM event ORDER BY id LIMIT ?)", arguments: [window])
            if let end { try db.cachedStatement(sql: "DELETE FROM event WHERE id < ?").execute(arguments: [end]) }
        }
        let oldest = try Int64.fetchOne(db, sql: "SELECT MIN(id) FROM event") ?? lastEventID + 1
        if grantsWritten {
            // A client's grant whose successor is in force from an event no longer kept judges no event: only a
            // grant change adds rows, so pruning then keeps them to the changes within the retention.
            try db.execute(
                sql: """
                    DELETE FROM client_grant WHERE EXISTS (SELECT 1 FROM client_grant AS later
                    WHERE later.client = client_grant.client AND later.from_event > client_grant.from_event AND later.from_event <= ?)
                    """, arguments: [oldest])
        }
        return oldest
    }

    /// Everything the server restores at start.
    static func contents(_ db: Database) throws -> Contents {
        let fences = try Row.fetchAll(db, sql: "SELECT id, body, owner, state, since, dwelled FROM fence ORDER BY id").map { row in
            StoredFence(
                id: UInt64(row["id"] as Int64), body: row["body"], owner: row["owner"], state: row["state"], since: row["since"],
                dwelled: row["dwelled"])
        }
        let lastFenceID = try Int64.fetchOne(db, sql: "SELECT value FROM meta WHERE key = 'last_fence_id'") ?? 0
        // An event id is never reused, even once retention has removed every event.
        let lastEventID = max(
            try Int64.fetchOne(db, sql: "SELECT value FROM meta WHERE key = 'last_event_id'") ?? 0,
            try Int64.fetchOne(db, sql: "SELECT MAX(id) FROM event") ?? 0)
        let oldestEventID = try Int64.fetchOne(db, sql: "SELECT MIN(id) FROM event") ?? lastEventID + 1
        let grants = try Row.fetchAll(db, sql: "SELECT client, from_event, scope, expires FROM client_grant ORDER BY client, from_event").map { row in
            // A scope this server does not know (none is written but these) grants nothing.
            let scope = EventGrant.Scope(rawValue: row["scope"]) ?? .nothing
            return GrantChange(client: row["client"], fromEvent: row["from_event"], grant: EventGrant(scope: scope, expires: row["expires"]))
        }
        return Contents(
            fences: fences, lastFenceID: max(UInt64(lastFenceID), fences.last?.id ?? 0), lastEventID: lastEventID, oldestEventID: oldestEventID,
            grants: grants)
    }

    /// The events after `id` up to `through`, oldest first, at most `limit`.
    /// - Complexity: O(log n + limit).
    static func events(after id: Int64, through last: Int64, limit: Int, _ db: Database) throws -> [StoredEvent] {
        try Row.fetchAll(
            db, sql: "SELECT id, time, fence, owner, name, data FROM event WHERE id > ? AND id <= ? ORDER BY id LIMIT ?",
            arguments: [id, last, limit]
        ).map { row in
            StoredEvent(
                id: row["id"], time: row["time"], fence: (row["fence"] as Int64?).map(UInt64.init), owner: row["owner"], name: row["name"],
                data: row["data"])
        }
    }
}

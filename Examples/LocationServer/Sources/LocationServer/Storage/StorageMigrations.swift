import GRDB

/// The database's schema, one migration per version: a database of any earlier version is brought up to
/// date at start, and a migration once shipped is never changed.
enum StorageMigrations {
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1: fences, events, meta") { db in
            // A fence as POST /geofences made it: its body (the request's JSON, normalised), and the state
            // its last transition left it in, since when (Unix seconds), and whether it dwelled since.
            try db.create(table: "fence") { table in
                table.primaryKey("id", .integer)
                table.column("body", .text).notNull()
                table.column("state", .text).notNull().defaults(to: "unknown")
                table.column("since", .double)
                table.column("dwelled", .boolean).notNull().defaults(to: false)
            }
            // Every event of GET /geofences/events under its id (the stream's `id:`), when it was
            // recorded (Unix seconds, for retention by age), and its name and data as sent.
            try db.create(table: "event") { table in
                table.primaryKey("id", .integer)
                table.column("time", .double).notNull()
                table.column("fence", .integer)
                table.column("name", .text).notNull()
                table.column("data", .text).notNull()
            }
            // Counters that must never go back: the last fence ID handed out, the last start.
            try db.create(table: "meta") { table in
                table.primaryKey("key", .text)
                table.column("value", .integer).notNull()
            }
        }
        migrator.registerMigration("v2: owners") { db in
            // The client that created a fence (its name in the token file, `local` without one), and so
            // owns its events; rows of v1 have none, and only an admin sees them.
            try db.alter(table: "fence") { table in table.add(column: "owner", .text) }
            try db.alter(table: "event") { table in table.add(column: "owner", .text) }
        }
        migrator.registerMigration("v3: client grants") { db in
            // What each client of the token file was entitled to hear of the events (``GrantHistory``), from
            // an event id on: `nothing`, `own` or `every`, until `expires` (Unix seconds; null: never).
            try db.create(table: "client_grant") { table in
                table.column("client", .text).notNull()
                table.column("from_event", .integer).notNull()
                table.column("scope", .text).notNull()
                table.column("expires", .double)
                table.primaryKey(["client", "from_event"])
            }
        }
        return migrator
    }
}

import Foundation
import GRDB

/// The SQLite database that keeps the server's fences and their events across restarts.
///
/// A file is opened in WAL mode (readers — the event streams paging back — never wait for the writer),
/// with SQLite's `synchronous` as ``DatabaseSync`` says (`NORMAL` by default, as GRDB sets a pool's
/// writer: a commit survives the process killed, not the machine losing power), created with its
/// folder's permissions on first start, and migrated to the current schema (``StorageMigrations``); `:memory:` keeps everything in memory, for tests and throwaway runs. A file
/// that is not a database, is damaged, or cannot be written is refused at start with a
/// ``DatabaseStartError``: the server does not run rather than forget what it was told.
enum ServerDatabase {
    /// The path that names an in-memory database.
    static let inMemory = ":memory:"
    /// The default file, in the working directory.
    static let defaultPath = "location-server.sqlite"

    /// This process's claim on the database file at `path` (``DatabaseFileLock``), to hold while the server
    /// runs; `nil` for an in-memory database, which nothing else can open.
    /// - Throws: ``DatabaseStartError`` when another server holds the file.
    static func claim(path: String) throws(DatabaseStartError) -> DatabaseFileLock? {
        path == inMemory ? nil : try DatabaseFileLock(database: path)
    }

    /// Opens, checks and migrates the database at `path`, its commits reaching the disk as `sync` says.
    /// - Throws: ``DatabaseStartError`` saying what is wrong with the file and what to do.
    static func open(path: String, sync: DatabaseSync = .normal) throws(DatabaseStartError) -> any DatabaseWriter {
        let writer: any DatabaseWriter
        do {
            writer = path == inMemory ? try DatabaseQueue(configuration: configuration) : try DatabasePool(path: path, configuration: configuration)
        } catch {
            throw DatabaseStartError(path: path, problem: isDamage(error) ? .notADatabase : .cannotOpen, underlying: error)
        }
        do {
            let check = try writer.read { try String.fetchAll($0, sql: "PRAGMA quick_check") }
            guard check == ["ok"] else {
                throw DatabaseStartError(path: path, problem: .damaged, underlying: nil, detail: check.prefix(3).joined(separator: "; "))
            }
        } catch let error as DatabaseStartError {
            throw error
        } catch {
            throw DatabaseStartError(path: path, problem: .notADatabase, underlying: error)
        }
        do {
            // A file a newer server migrated holds a schema this one does not know (GRDB's migrator would skip
            // the migrations it has not registered and go on): refused, not written with the wrong shape.
            let migrator = StorageMigrations.migrator
            let unknown = try writer.read { db in
                try migrator.appliedIdentifiers(db).subtracting(migrator.migrations).sorted()
            }
            guard unknown.isEmpty else {
                throw DatabaseStartError(
                    path: path, problem: .cannotMigrate, underlying: nil,
                    detail: "it was migrated by a newer server (\(unknown.joined(separator: ", ")))")
            }
            try migrator.migrate(writer)
        } catch let error as DatabaseStartError {
            throw error
        } catch {
            throw DatabaseStartError(path: path, problem: .cannotMigrate, underlying: error)
        }
        do {
            // On the writer, after GRDB has opened it: a pool sets its writer to NORMAL itself, after any
            // `prepareDatabase`.
            try writer.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA synchronous = \(sync.pragma)") }
            // A real write: a file that opens but cannot be written (read-only, a full disk) fails here.
            try writer.write { db in
                try db.execute(
                    sql: "INSERT OR REPLACE INTO meta (key, value) VALUES ('started_at', ?)", arguments: [Int64(Date().timeIntervalSince1970)])
            }
        } catch {
            throw DatabaseStartError(path: path, problem: .cannotWrite, underlying: error)
        }
        return writer
    }

    /// Whether SQLite found the file not to be a database, or damaged.
    private static func isDamage(_ error: any Error) -> Bool {
        guard let error = error as? DatabaseError else { return false }
        return error.resultCode == .SQLITE_NOTADB || error.resultCode == .SQLITE_CORRUPT
    }

    private static var configuration: Configuration {
        var configuration = Configuration()
        configuration.label = "location-server"
        // A write of another connection (a reader's checkpoint, a tool such as sqlite3 on the file) is waited for
        // a little; a second server is refused before it opens the file (``DatabaseFileLock``).
        configuration.busyMode = .timeout(5)
        return configuration
    }
}

/// How a commit reaches the disk (`--database-sync`): what a fence or event acknowledged survives.
enum DatabaseSync: String, CaseIterable, Sendable {
    /// SQLite's `synchronous = NORMAL` in WAL mode: a commit is in the WAL file (the kernel's page cache)
    /// when it returns, and the WAL is flushed to the disk at each checkpoint. It survives the process
    /// killed (`kill -9`, a crash); a power loss or a kernel crash may lose the commits since the last
    /// checkpoint, never the database's consistency.
    case normal
    /// `synchronous = FULL`: every commit is flushed to the disk before it returns, so it survives a power
    /// loss too, at the cost of a disk flush per commit (per batch of events).
    case full

    var pragma: String { rawValue.uppercased() }
}

/// The database could not be used: the server refuses to start.
struct DatabaseStartError: Error, CustomStringConvertible {
    /// What went wrong.
    enum Problem: Sendable {
        case cannotOpen, notADatabase, damaged, cannotMigrate, cannotWrite, inUse
    }

    var path: String
    var problem: Problem
    var underlying: (any Error)?
    var detail: String?

    var description: String {
        let cause = detail ?? underlying.map { "\($0)" } ?? ""
        let what: String
        switch problem {
        case .cannotOpen:
            what = "cannot open or create the database file (does its folder exist, and may the server write there?)"
        case .notADatabase:
            what = "the file is not a SQLite database, or is damaged"
        case .damaged:
            what = "the database failed its integrity check"
        case .cannotMigrate:
            what = "the database's schema could not be brought up to date (a file of a newer server, or damaged)"
        case .cannotWrite:
            what = "the database cannot be written (a read-only file or folder, or a full disk)"
        case .inUse:
            what = "another server has the database open"
        }
        let advice = problem == .inUse ? "stop that server first" : "move the file aside"
        return "--database \(path): \(what): \(cause). Refusing to start rather than forget the fences: \(advice), "
            + "or name another with --database."
    }
}

import GRDB
import Testing

@testable import LocationServer

@Suite("What a commit survives (--database-sync)")
struct DatabaseSyncTests {
    @Test("the writer of a file commits with synchronous NORMAL (1) by default, FULL (2) when asked")
    func pragma() async throws {
        try await StorageTestSupport.withDatabaseFile { path in
            for (sync, expected) in [(DatabaseSync.full, 2), (.normal, 1)] {
                let database = try ServerDatabase.open(path: path, sync: sync)
                #expect(try database.write { try Int.fetchOne($0, sql: "PRAGMA synchronous") } == expected)
                try database.close()
            }
            #expect(try LocationServerCommand.parse([]).databaseSync == .normal)
            #expect(try LocationServerCommand.parse(["--database-sync", "full"]).databaseSync == .full)
        }
    }
}

import Foundation
import Hummingbird
import HummingbirdTesting
import LocationEngine

@testable import LocationServer

/// What the store tests share: database files of their own, and the event streams' ids and payloads.
enum StorageTestSupport {
    /// A database path no other test uses; `body` runs with it, and the file (with its WAL) is removed after.
    static func withDatabaseFile(_ body: (String) async throws -> Void) async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("location-server-test-\(UUID().uuidString).sqlite").path
        defer {
            for suffix in ["", "-wal", "-shm", ".lock"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        }
        try await body(path)
    }

    /// Creates the test's depot fence and waits until the engine monitors it.
    static func createDepot(on server: TestServer, with client: some TestClientProtocol) async throws -> TestResponse {
        let created = try await GeofenceRoutesTests.post(GeofenceRoutesTests.depot, with: client)
        await server.waitUntil { $0.activeSubscriptions >= server.geofences.fences.count }
        return created
    }

    /// Emits a 5 m fix at `latitude` (the depot's centre by default; 48.150 is 1.4 km north, outside)
    /// and lets the engine take it.
    static func fix(_ server: TestServer, latitude: Double = 48.137) async {
        server.source.emit(TestServer.fix(metres: 5, latitude: latitude))
        await server.engine.sync(advancingBy: .seconds(1))
    }

    /// A stream's events with an id (the fences' own, not the stream's last `end`).
    static func stored(_ body: ByteBuffer) -> [(id: Int64, name: String, data: String)] {
        GeofenceEventsTests.events(body).compactMap { event in event.id.map { ($0, event.name, event.data) } }
    }

    static func transition(_ data: String) throws -> GeofenceTransitionJSON {
        try JSONDecoder().decode(GeofenceTransitionJSON.self, from: Data(data.utf8))
    }
}

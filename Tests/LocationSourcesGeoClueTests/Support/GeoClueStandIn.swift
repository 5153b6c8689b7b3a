import Foundation
import NIOConcurrencyHelpers
import TestSupport
@testable import LocationSourcesGeoClue

/// A process's stand-in for GeoClue on a test bus: a connection that owns `org.freedesktop.GeoClue2`, served by
/// `serve` on a thread of its own until ``stop()``.
final class GeoClueStandIn: Sendable {
    private let stopped = NIOLockedValueBox(false)
    private let done = NIOLockedValueBox(false)

    /// Owns GeoClue's name on the bus at `address` and runs `serve` with the connection and whether the stand-in
    /// was stopped (it returns once it was).
    init(address: String, serve: @escaping @Sendable (DBusConnection, _ isStopped: () -> Bool) -> Void) throws {
        let connection = try DBusConnection(address: address, timeout: .seconds(5))
        let answer = try connection.call(
            "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "RequestName",
            [.string(GeoClueSession.service), .uint32(0)], timeout: .seconds(5))
        // 1: DBUS_REQUEST_NAME_REPLY_PRIMARY_OWNER.
        guard answer.first == .uint32(1) else { throw HarnessError(description: "RequestName answered \(answer)") }
        let box = UnsafeTransfer(connection)
        Thread.detachNewThread { [stopped, done] in
            serve(box.value) { stopped.withLockedValue { $0 } }
            done.withLockedValue { $0 = true }
        }
    }

    /// Stops serving and waits until the thread has let go of its connection.
    func stop() async throws {
        stopped.withLockedValue { $0 = true }
        try await GeoClueTestBed.waitFor("the stand-in's thread to end") { [done] in done.withLockedValue { $0 } }
    }
}

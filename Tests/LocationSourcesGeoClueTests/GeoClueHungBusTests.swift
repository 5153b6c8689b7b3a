import Foundation
import LocationEngine
import TestSupport
import Testing
@testable import LocationSourcesGeoClue

#if canImport(Glibc)
import Glibc
#endif

/// A bus that takes the connection and then says nothing (a stalled dbus-daemon): every step of connecting —
/// the authentication, Hello, the match rules — waits at most the source's call timeout, never libdbus's own
/// 25 s. No daemon needed: a listening socket that is never accepted from.
@Suite("GeoClue on a bus that never answers")
struct GeoClueHungBusTests {
    /// A Unix socket that listens and never accepts: connections complete in its backlog and hear nothing.
    final class SilentSocket: Sendable {
        let path: String
        private let descriptor: Int32

        init() throws {
            path = FileManager.default.temporaryDirectory.appendingPathComponent("silent-bus-\(UUID().uuidString.prefix(8))").path
            descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            withUnsafeMutableBytes(of: &address.sun_path) { bytes in
                for (index, byte) in path.utf8.prefix(bytes.count - 1).enumerated() { bytes[index] = byte }
            }
            let bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
            }
            guard descriptor >= 0, bound == 0, listen(descriptor, 16) == 0 else {
                throw HarnessError(description: "cannot listen on \(path): errno \(errno)")
            }
        }

        var address: String { "unix:path=\(path)" }

        deinit {
            close(descriptor)
            unlink(path)
        }
    }

    @Test("connecting waits the timeout given, then fails with an error saying so")
    func connectingTimesOut() async throws {
        let bus = try SilentSocket()
        let connected = try await withDeadline(seconds: 15, blocking: { () -> Result<Bool, DBusFailure> in
            Result { () throws(DBusFailure) in _ = try DBusConnection(address: bus.address, timeout: .milliseconds(200)); return true }
        })
        #expect(throws: DBusFailure.self) { _ = try connected.get() }
    }

    @Test("the source says the bus is unusable within its call timeout, and its run ends when it is stopped")
    func theSourceReportsAHungBusAndStops() async throws {
        let bus = try SilentSocket()
        let source = GeoClueLocationSource(
            GeoClueConfiguration(desktopId: "locationengine-tests", busAddress: bus.address, callTimeout: .milliseconds(200), retryDelay: .milliseconds(50)),
            logger: silentLogger)
        let events = Observed(RecordedEvents())
        let lifetime = Task { await source.run() }
        source.start(mode: .best, events: RecordedEvents.sink(into: events))
        // Well short of libdbus's default 25 s, generous for a loaded machine.
        try await withDeadline(seconds: 15) {
            await events.waitUntil { $0.transientErrors.contains { $0.code == "geoclue.bus" } }
        }
        source.stop()
        lifetime.cancel()
        try await withDeadline(seconds: 15) { await lifetime.value }
    }
}

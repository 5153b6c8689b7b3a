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
/// 25 s. No daemon needed for those: a listening socket that is never accepted from. (One test freezes a real
/// dbus-daemon, for a bus that stops reading once connected.)
@Suite("GeoClue on a bus that never answers")
struct GeoClueHungBusTests {
    /// A Unix socket that listens and never accepts: connections complete in its backlog and hear nothing.
    final class SilentSocket: Sendable {
        let path: String
        private let descriptor: Int32

        /// Listens with room for `backlog` connections waiting to be accepted.
        init(backlog: Int32 = 16) throws {
            path = FileManager.default.temporaryDirectory.appendingPathComponent("silent-bus-\(UUID().uuidString.prefix(8))").path
            descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
            let bound = Self.withAddress(path) { [descriptor] in bind(descriptor, $0, $1) }
            guard descriptor >= 0, bound == 0, listen(descriptor, backlog) == 0 else {
                throw HarnessError(description: "cannot listen on \(path): errno \(errno)")
            }
        }

        var address: String { "unix:path=\(path)" }

        /// Connects without waiting until the queue of connections waiting to be accepted is full (the next
        /// `connect(2)` would block); returns the connections, for the caller to close.
        func fill() throws -> [Int32] {
            var connections: [Int32] = []
            while connections.count < 1_000 {
                let connection = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
                let connected = Self.withAddress(path) { connect(connection, $0, $1) }
                guard connected == 0 else {
                    let failure = errno
                    close(connection)
                    guard failure == EAGAIN else { throw HarnessError(description: "cannot connect to \(path): errno \(failure)") }
                    return connections
                }
                connections.append(connection)
            }
            throw HarnessError(description: "\(path) took 1,000 connections without its queue filling")
        }

        /// `body` given the Unix socket address of `path`, and its size.
        private static func withAddress(_ path: String, _ body: (UnsafePointer<sockaddr>, socklen_t) -> Int32) -> Int32 {
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            withUnsafeMutableBytes(of: &address.sun_path) { bytes in
                for (index, byte) in path.utf8.prefix(bytes.count - 1).enumerated() { bytes[index] = byte }
            }
            return withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
            }
        }

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

    @Test("a bus whose queue of connections is full: the source says so within its call timeout, and a stop ends its run")
    func aFullQueueOfConnectionsHoldsNoStop() async throws {
        let bus = try SilentSocket(backlog: 0)
        let waiting = try bus.fill()
        defer { for connection in waiting { close(connection) } }
        let (source, events) = Self.source(on: bus)
        // libdbus's connect(2) blocks while the queue is full: the source's thread must not be the one waiting.
        try await Self.runUntil(source, events) {
            $0.transientErrors.contains { $0.code == "geoclue.bus" && $0.message.contains("queue of connections is full") }
        }
        // Run again while the first attempt still waits in the queue: it is waited for, and said the same way.
        try await Self.runUntil(source, events) { $0.transientErrors.filter { $0.code == "geoclue.bus" }.count >= 2 }
    }

    @Test("the source says the bus is unusable within its call timeout, and its run ends when it is stopped")
    func theSourceReportsAHungBusAndStops() async throws {
        let bus = try SilentSocket()
        let (source, events) = Self.source(on: bus)
        try await Self.runUntil(source, events) { $0.transientErrors.contains { $0.code == "geoclue.bus" } }
    }

    @Test(
        "a bus that stops reading: a message sent waits at most the connection's timeout to go out, then fails saying so",
        .enabled(if: Tools.dbusDaemon != nil, "needs dbus-daemon (Scripts/bootstrap.sh installs it)"))
    func aBusThatStopsReadingHoldsASendForItsTimeoutOnly() async throws {
        let bed = try await GeoClueTestBed.start(geoclue: false, agent: false)
        // 5 s for connecting on a loaded machine; the one send refused then waits as long.
        let connection = UnsafeTransfer(try DBusConnection(address: bed.busAddress, timeout: .seconds(5)))
        bed.freezeBus()
        // Messages of 64 KiB until one cannot go out: the socket's buffer holds a few hundred KiB. Before the bound,
        // the send that found it full waited for as long as the bus was frozen, and the deadline failed the test.
        let payload = DBusValue.string(String(repeating: "x", count: 1 << 16))
        let sendUntilRefused = { @Sendable () -> (sent: Int, failure: DBusFailure)? in
            for sent in 0..<4_096 {
                do throws(DBusFailure) {
                    try connection.value.send("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus.Peer", "Ping", [payload])
                } catch {
                    return (sent, error)
                }
            }
            return nil
        }
        // The bus is thawed and stopped however the sending ends (a test that gave up must not leave it frozen).
        let sending: Result<(sent: Int, failure: DBusFailure)?, any Error>
        do {
            sending = .success(try await withDeadline(seconds: 60, blocking: sendUntilRefused))
        } catch {
            sending = .failure(error)
        }
        bed.thawBus()
        await bed.stop()
        let (sent, failure) = try #require(try sending.get(), "256 MiB went out to a frozen bus")
        #expect(sent > 0, "the first messages fit in the socket's buffer")
        #expect(failure.name == DBusFailure.Name.timeout && failure.message.contains("stopped reading"), "\(failure)")
    }

    /// A source on `bus` with a short call timeout and retry delay, and what it will report.
    private static func source(on bus: SilentSocket) -> (GeoClueLocationSource, Observed<RecordedEvents>) {
        let source = GeoClueLocationSource(
            GeoClueConfiguration(desktopId: "locationengine-tests", busAddress: bus.address, callTimeout: .milliseconds(200), retryDelay: .milliseconds(50)),
            logger: silentLogger)
        return (source, Observed(RecordedEvents()))
    }

    /// Runs `source` and starts it until `events` satisfy `reported`, then stops it and waits for its run to end.
    /// The deadlines are well short of libdbus's default 25 s, and generous for a loaded machine.
    private static func runUntil(
        _ source: GeoClueLocationSource, _ events: Observed<RecordedEvents>, reported: @escaping @Sendable (RecordedEvents) -> Bool
    ) async throws {
        let lifetime = Task { await source.run() }
        source.start(mode: .best, events: RecordedEvents.sink(into: events))
        try await withDeadline(seconds: 15) { await events.waitUntil(reported) }
        source.stop()
        lifetime.cancel()
        try await withDeadline(seconds: 15) { await lifetime.value }
    }
}

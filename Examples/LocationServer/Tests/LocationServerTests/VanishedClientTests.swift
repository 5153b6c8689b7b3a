import Foundation
import HummingbirdTesting
import NIOCore
import NIOPosix
import Testing

@testable import LocationServer

#if canImport(Glibc)
import Glibc
#endif

/// A client whose network vanished sends no FIN nor RST, and a quiet stream writes nothing that could fail: the
/// server's side of each TCP connection asks the kernel to find such a peer. Looked at on the accepted socket itself
/// (the server runs in this process), since dropping a client's packets needs more than a test may do.
@Suite("Clients that vanish without closing")
struct VanishedClientTests {
    /// The server's socket whose peer is `clientPort` on loopback, among this process's descriptors.
    static func acceptedSocket(peerPort clientPort: Int) -> Int32? {
        let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        for descriptor in descriptors.compactMap(Int32.init) {
            var address = sockaddr_in()
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let named = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getpeername(descriptor, $0, &length) }
            }
            guard named == 0, address.sin_family == sa_family_t(AF_INET), Int(UInt16(bigEndian: address.sin_port)) == clientPort else { continue }
            return descriptor
        }
        return nil
    }

    static func option(_ descriptor: Int32, _ level: Int32, _ name: Int32) -> Int32? {
        var value: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        return getsockopt(descriptor, level, name, &value, &length) == 0 ? value : nil
    }

    @Test("a stream's connection has TCP keepalive (30 s quiet, then probes 10 s apart) and a 60 s user timeout", .timeLimit(.minutes(1)))
    func aStreamsConnectionFindsAVanishedPeer() async throws {
        let server = try TestServer()
        try await server.application.test(.live) { client async throws -> Void in
            let port = try #require(client.port)
            let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton).connect(host: "127.0.0.1", port: port).get()
            try await channel.writeAndFlush(ByteBuffer(string: "GET /geofences/events HTTP/1.1\r\nHost: localhost\r\n\r\n")).get()
            await GeofenceEventsTests.waitForListeners(1, on: server)
            let clientPort = try #require(channel.localAddress?.port)
            // Before, none was set: a quiet stream to a vanished client held its place until the server stopped.
            let accepted = try #require(Self.acceptedSocket(peerPort: clientPort), "the server's side of the connection")
            #expect(Self.option(accepted, SOL_SOCKET, SO_KEEPALIVE) == 1)
            #expect(Self.option(accepted, Int32(IPPROTO_TCP), TCP_KEEPIDLE) == 30)
            #expect(Self.option(accepted, Int32(IPPROTO_TCP), TCP_KEEPINTVL) == 10)
            #expect(Self.option(accepted, Int32(IPPROTO_TCP), TCP_KEEPCNT) == 3)
            #expect(Self.option(accepted, Int32(IPPROTO_TCP), TCP_USER_TIMEOUT) == 60_000)
            try await channel.close().get()
            await TestServer.yieldUntil("the event stream to close") { server.geofences.counters.totals.listenersClosed >= 1 }
        }
    }
}

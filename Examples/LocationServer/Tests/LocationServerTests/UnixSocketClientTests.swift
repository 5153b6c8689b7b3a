import Foundation
import Glibc
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import NIOEmbedded
import Testing

@testable import LocationServer

/// The server on a Unix-domain socket: a request without a token is its peer's user, as the kernel says
/// (`SO_PEERCRED`), checked end to end over a real socket.
@Suite("Clients over the Unix socket")
struct UnixSocketClientTests {
    /// The user these tests run as.
    static let me = getuid()

    @Test("without a token file each local user is a client of its own, whatever header it sends; the server's own user an admin")
    func openServerNamesThePeersUser() async throws {
        let server = try TestServer(runningEngine: false)
        try await Self.withServer(server) { path in
            let created = try await Self.request(
                "POST", "/geofences", over: path, body: #"{"circle": {"latitude": 48, "longitude": 11, "radius": 100}}"#)
            #expect(created.status == 201, "\(created.body)")
            let listed = try await Self.request("GET", "/geofences", over: path)
            #expect(listed.status == 200 && listed.body.contains("\"id\""), "\(listed.body)")
            #expect(server.geofences.fences.map(\.owner) == ["uid-\(Self.me)"])
            // A header names no one without a token file: the request is still its user's, not the local client's.
            for header in ["Authorization: Bearer someone-else-0123456789", "Authorization: x"] {
                let withHeader = try await Self.request("POST", "/geofences", over: path, headers: [header], body: #"{"circle": {"latitude": 48, "longitude": 12, "radius": 100}}"#)
                #expect(withHeader.status == 201, "\(withHeader.body)")
            }
            #expect(server.geofences.fences.map(\.owner) == Array(repeating: "uid-\(Self.me)", count: 3))
        }
        #expect(try ClientAuthenticator(clients: .open()).user(Self.me).isAdmin)
        #expect(try ClientAuthenticator(clients: .open()).user(Self.me &+ 4242).isAdmin == false)
    }

    @Test("a connection whose peer cannot be read (it closed before its request was) is 401, never the local admin, without a token file")
    func aPeerThatCannotBeNamedIsRefused() async throws {
        let closed = EmbeddedChannel()  // no local address: what a closed connection's channel reports
        #expect(await PeerCredentials.of(closed) == .unknown)
        let tcp = EmbeddedChannel()
        try await tcp.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 8080)).get()
        tcp.localAddress = try SocketAddress(ipAddress: "127.0.0.1", port: 9090)
        #expect(await PeerCredentials.of(tcp) == .notUnixSocket)
        let context = ServerRequestContext(source: .init(channel: closed, logger: Logger(label: "test")))
        let request = Request(head: HTTPRequest(method: .delete, scheme: "http", authority: "x", path: "/geofences/7"), body: .init(buffer: ByteBuffer()))
        let onUnixSocket = ClientAuthenticator(clients: .open())
        let listener = EmbeddedChannel()
        listener.localAddress = try SocketAddress(unixDomainSocketPath: "/tmp/location-server-test.sock")
        onUnixSocket.listener.listening(on: listener)
        await #expect(throws: HTTPError.self) { _ = try await onUnixSocket.credential(request, context: context) }
        // On TCP, without a token file, every request is the local client, a closed connection's too (as before).
        let onTCP = ClientAuthenticator(clients: .open())
        onTCP.listener.listening(on: tcp)
        #expect(try await onTCP.credential(request, context: context) == .local)
        let tcpContext = ServerRequestContext(source: .init(channel: tcp, logger: Logger(label: "test")))
        #expect(try await onTCP.credential(request, context: tcpContext) == .local)
    }

    @Test("with a token file, the user's uid:N line names its client; a user without one is 401 but for /health; a token still works")
    func tokenFileNamesUsers() async throws {
        let token = "socket-token-0123456789abcdef"
        let named = try Self.directory("uid:\(Self.me) alice approximate\n\(token) bob precise")
        let server = try TestServer(runningEngine: false, clients: named)
        try await Self.withServer(server) { path in
            // Approximate: a fence is refused to it, which says the server took it for alice; bob's token, precise, is not.
            let fence = #"{"circle": {"latitude": 48, "longitude": 11, "radius": 100}}"#
            let asAlice = try await Self.request("POST", "/geofences", over: path, body: fence)
            #expect(asAlice.status == 403, "\(asAlice.body)")
            let asBob = try await Self.request("POST", "/geofences", over: path, headers: ["Authorization: Bearer \(token)"], body: fence)
            #expect(asBob.status == 201, "\(asBob.body)")
            #expect(server.geofences.fences.map(\.owner) == ["bob"])
        }
        let stranger = try TestServer(runningEngine: false, clients: try Self.directory("uid:\(Self.me &+ 4242) carol precise"))
        try await Self.withServer(stranger) { path in
            let answer = try await Self.request("GET", "/geofences", over: path)
            #expect(answer.status == 401)
            #expect(answer.body.contains("user id \(Self.me) has no line uid:\(Self.me) in the server's token file"), "\(answer.body)")
            #expect(!answer.body.contains("/"), "the token file's path stays on the server")
            // The one route that needs no token needs no line either.
            let health = try await Self.request("GET", "/health", over: path)
            #expect(health.status == 200, "\(health.body)")
        }
    }

    @Test("over TCP the peer's credentials are not asked: a request without a token is the local client as before")
    func tcpIsUnchanged() async throws {
        let server = try TestServer()
        try await server.application.test(.live) { client in
            let answer = try await client.execute(
                uri: "/geofences", method: .post, body: ByteBuffer(string: #"{"circle": {"latitude": 48, "longitude": 11, "radius": 100}}"#))
            #expect(answer.status == .created)
            #expect(server.geofences.fences.map(\.owner) == [Client.local.name])
        }
    }

    // MARK: Support

    static func directory(_ text: String) throws -> ClientDirectory {
        ClientDirectory(mode: .tokens(path: "tokens"), table: try TokenFile.parse(text, path: "tokens"), logger: ClientTestSupport.silent)
    }

    /// Runs `server`'s service group on a fresh Unix socket and `body` with its path, then shuts it down.
    static func withServer(_ server: TestServer, _ body: (String) async throws -> Void) async throws {
        let path = FileManager.default.temporaryDirectory.path + "/location-server-\(UInt32.random(in: 0...UInt32.max)).sock"
        defer { unlink(path) }
        try await server.withServiceGroup(address: .unixDomainSocket(path: path)) { group, _ in
            try await body(path)
            await group.triggerGracefulShutdown()
        }
    }

    /// `method uri` over the Unix socket at `path` (HTTP/1.1, the connection closed after the answer): its
    /// status and body. Blocking socket calls, on a thread of their own, each bounded by a 10 s timeout.
    static func request(
        _ method: String, _ uri: String, over path: String, headers: [String] = [], body: String = ""
    ) async throws -> (status: Int, body: String) {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Result { try exchange(method, uri, path, headers, body) }) }.start()
        }
    }

    struct SocketError: Error { var what: String }

    private static func exchange(_ method: String, _ uri: String, _ path: String, _ headers: [String], _ body: String) throws -> (Int, String) {
        let socket = Glibc.socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw SocketError(what: "socket: errno \(errno)") }
        defer { close(socket) }
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(socket, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in path.utf8.enumerated() { raw[index] = byte }
        }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(socket, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard connected == 0 else { throw SocketError(what: "connect \(path): errno \(errno)") }
        let head = ([ "\(method) \(uri) HTTP/1.1", "Host: localhost", "Connection: close", "Content-Length: \(body.utf8.count)" ] + headers)
            .joined(separator: "\r\n")
        let request = Array((head + "\r\n\r\n" + body).utf8)
        guard request.withUnsafeBytes({ send(socket, $0.baseAddress, $0.count, 0) }) == request.count else {
            throw SocketError(what: "send: errno \(errno)")
        }
        var response: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
            guard count >= 0 else { throw SocketError(what: "recv: errno \(errno)") }
            if count == 0 { break }
            response += buffer[0..<count]
        }
        let text = String(decoding: response, as: UTF8.self)
        let parts = text.components(separatedBy: "\r\n\r\n")
        guard let status = parts.first?.split(separator: " ").dropFirst().first.flatMap({ Int($0) }) else {
            throw SocketError(what: "no status line in \(text.prefix(200))")
        }
        return (status, parts.dropFirst().joined(separator: "\r\n\r\n"))
    }
}

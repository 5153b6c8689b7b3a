import Foundation
import Hummingbird
import HummingbirdAuth
import NIOConcurrencyHelpers
import NIOCore

/// Names the client of every request (hummingbird-auth's authenticator middleware), or answers `401`
/// with `WWW-Authenticate: Bearer` and what was wrong: no `Authorization` header, one that is not
/// `Bearer TOKEN`, a token that is malformed, unknown or expired. Without a token file every request over
/// TCP is ``Client/local``. With one, `GET /health` needs no token.
///
/// Over the server's Unix socket (`--unix-socket`) a request is its peer's user, as the kernel says
/// (``PeerCredentials``). Without a token file, a client of its own named `uid-N`, precise, an admin when it
/// is the server's own user or root, whatever headers it sends. With one, a request with a token is its
/// token's client, and one without is the client of its user's `uid:N` line (none: `401`).
///
/// Every request pays for this check, so an accepted token costs one read of the header, a comparison
/// of bytes and a hash lookup; the case-insensitive comparisons that name what was wrong run only for
/// a request that is refused.
struct ClientAuthenticator: AuthenticatorMiddleware {
    typealias Context = ServerRequestContext
    let clients: ClientDirectory
    /// What the server listens on, once it does.
    var listener = ListenerKind()
    /// The wall clock, for tokens' `expires`.
    var now: @Sendable () -> Date = { Date() }
    /// How a stream waits for its token's `expires` (``ClientCheck``): a task's sleep.
    var sleep: @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) }

    func authenticate(request: Request, context: Context) async throws -> Client? {
        try await credential(request, context: context).map(client)
    }

    /// Names the request's client, as ``authenticate(request:context:)`` does, and keeps in the context what
    /// named it: a stream asks that credential again before each event (``ClientCheck``) without reading the
    /// request or the socket's peer again.
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let credential = try await credential(request, context: context) else { return try await next(request, context) }
        var context = context
        context.identity = try client(credential)
        context.credential = credential
        return try await next(request, context)
    }

    /// What names the request's client: its token, its peer's user, or nothing (the local client); `nil` for a
    /// request that needs no client (`GET /health`, with a token file).
    /// - Throws: `401` for a request without the token it needs, or with a malformed one.
    func credential(_ request: Request, context: Context) async throws -> ClientCredential? {
        // Read once: each read of a header scans the request's fields.
        let header = request.headers[.authorization]
        let tokens = if case .tokens = clients.mode { true } else { false }
        if tokens, request.uri.path == "/health" { return nil }
        // Over the Unix socket the kernel names the caller: a header only names another client when it is a
        // token of the token file, so without one any header is ignored, never a way to be someone else.
        if header == nil || !tokens {
            switch await PeerCredentials.of(context.channel) {
            case .peer(let peer): return .user(peer.uid)
            case .notUnixSocket: break
            case .unknown where listener.isUnixSocket:
                // On the Unix socket, a connection that closed (or whose peer the kernel would not name) before its
                // request was read: a request still buffered must not pass for the local client, an admin.
                throw Self.unauthorized("the connection's peer could not be named (it closed before the request was read)")
            case .unknown: break
            }
        }
        guard tokens else { return .local }
        guard let header else {
            throw Self.unauthorized("no Authorization header: send Authorization: Bearer TOKEN, a token of the server's token file")
        }
        return .token(try Self.token(header))
    }

    /// The client `credential` names now, in the current token file.
    /// - Throws: `401` for a token or user the token file does not name, or whose `expires` has passed.
    func client(_ credential: ClientCredential) throws -> Client {
        switch credential {
        case .local: return .local
        case .user(let uid): return try user(uid)
        case .token(let token):
            switch clients.lookup(token, at: now()) {
            case .client(let client): return client
            case .expired(let client): throw Self.unauthorized("the token of client '\(client.name)' has expired")
            case .unknown: throw Self.unauthorized("unknown token")
            }
        }
    }

    /// The token of an `Authorization` header `Bearer TOKEN`, as bytes: the scheme in any case (HTTP's schemes
    /// are case-insensitive, and OAuth clients often send `bearer`), then one or more spaces.
    /// - Throws: `401` naming what is wrong with `header`.
    static func token(_ header: String) throws(HTTPError) -> String {
        let bytes = header.utf8
        let scheme = "bearer".utf8
        let space = UInt8(ascii: " ")
        // ASCII letters only: folding with 0x20 is their lower case.
        guard bytes.count > scheme.count, zip(bytes, scheme).allSatisfy({ $0 | 0x20 == $1 }), bytes.dropFirst(scheme.count).first == space else {
            if header.caseInsensitiveCompare("Bearer") == .orderedSame { throw unauthorized("malformed token: none after Bearer") }
            throw unauthorized("the Authorization header is not Bearer TOKEN (it starts '\(header.prefix(6))…')")
        }
        let token = String(decoding: bytes.dropFirst(scheme.count).drop { $0 == space }, as: UTF8.self)
        guard TokenFile.isToken(token) else {
            throw unauthorized("malformed token: 16 to 512 characters of A-Z a-z 0-9 - . _ ~ + / (optionally ending in =)")
        }
        return token
    }

    /// The client the local user `uid` is (see the type's summary).
    func user(_ uid: UInt32) throws -> Client {
        guard case .tokens = clients.mode else {
            return Client(name: "uid-\(uid)", permission: .precise, isAdmin: uid == 0 || uid == PeerCredentials.serverUser)
        }
        switch clients.current.lookup(user: uid, at: now()) {
        case .client(let client): return client
        case .expired(let client): throw Self.unauthorized("the line of user id \(uid) (client '\(client.name)') has expired")
        case .unknown:
            // The token file's path is the server's business, not the caller's.
            throw Self.unauthorized("user id \(uid) has no line uid:\(uid) in the server's token file, and the request no token")
        }
    }

    static func unauthorized(_ message: String) -> HTTPError {
        HTTPError(.unauthorized, headers: [.wwwAuthenticate: "Bearer realm=\"location-server\""], message: message)
    }
}

/// What named a request's client (``ClientAuthenticator``): kept by a stream, which asks again before each event
/// whether it still names the same client (``ClientCheck``).
enum ClientCredential: Sendable, Hashable {
    /// No token file, over TCP: the local client.
    case local
    /// A bearer token.
    case token(String)
    /// The peer's user, over the Unix socket.
    case user(UInt32)
}

/// Whether the server listens on a Unix-domain socket, learnt when it starts listening: a request whose
/// connection can no longer say what it is (closed) is then refused rather than taken for the local client.
final class ListenerKind: Sendable {
    private let unixSocket = NIOLockedValueBox(false)

    /// Whether the listening channel is a Unix-domain socket's.
    var isUnixSocket: Bool { unixSocket.withLockedValue { $0 } }

    /// The server listens on `channel`.
    func listening(on channel: any Channel) {
        let isUnix = if case .unixDomainSocket? = channel.localAddress { true } else { false }
        unixSocket.withLockedValue { $0 = isUnix }
    }
}

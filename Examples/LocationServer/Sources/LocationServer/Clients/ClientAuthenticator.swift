import Foundation
import Hummingbird
import HummingbirdAuth

/// Names the client of every request (hummingbird-auth's authenticator middleware), or answers `401`
/// with `WWW-Authenticate: Bearer` and what was wrong: no `Authorization` header, one that is not
/// `Bearer TOKEN`, a token that is malformed, unknown or expired. Without a token file every request is
/// ``Client/local``. `GET /health` needs no token.
///
/// Over the server's Unix socket (`--unix-socket`) a request without an `Authorization` header is its
/// peer's user, as the kernel says (``PeerCredentials``): with a token file, the client of its `uid:N`
/// line (none: `401`); without one, a client of its own named `uid-N`, precise, an admin when it is the
/// server's own user or root. A request with a token is its token's client there too.
///
/// Every request pays for this check, so an accepted token costs one read of the header, a comparison
/// of bytes and a hash lookup; the case-insensitive comparisons that name what was wrong run only for
/// a request that is refused.
struct ClientAuthenticator: AuthenticatorMiddleware {
    typealias Context = ServerRequestContext
    let clients: ClientDirectory
    /// The wall clock, for tokens' `expires`.
    var now: @Sendable () -> Date = { Date() }

    func authenticate(request: Request, context: Context) async throws -> Client? {
        // Read once: each read of a header scans the request's fields.
        let header = request.headers[.authorization]
        if header == nil, let peer = await PeerCredentials.of(context.channel) {
            return try user(peer.uid)
        }
        guard case .tokens = clients.mode else { return .local }
        if request.uri.path == "/health" { return nil }
        guard let header else {
            throw Self.unauthorized("no Authorization header: send Authorization: Bearer TOKEN, a token of the server's token file")
        }
        switch clients.lookup(try Self.token(header), at: now()) {
        case .client(let client): return client
        case .expired(let client): throw Self.unauthorized("the token of client '\(client.name)' has expired")
        case .unknown: throw Self.unauthorized("unknown token")
        }
    }

    /// The token of an `Authorization` header `Bearer TOKEN`, read as hummingbird-auth's `HTTPFields.bearer`
    /// reads it (the scheme as written, then one space), as bytes.
    /// - Throws: `401` naming what is wrong with `header`.
    static func token(_ header: String) throws(HTTPError) -> String {
        let scheme = "Bearer ".utf8
        guard header.utf8.starts(with: scheme) else {
            if header.caseInsensitiveCompare("Bearer") == .orderedSame { throw unauthorized("malformed token: none after Bearer") }
            throw unauthorized("the Authorization header is not Bearer TOKEN (it starts '\(header.prefix(6))…')")
        }
        let token = String(decoding: header.utf8.dropFirst(scheme.count), as: UTF8.self)
        guard TokenFile.isToken(token) else {
            throw unauthorized("malformed token: 16 to 512 characters of A-Z a-z 0-9 - . _ ~ + / (optionally ending in =)")
        }
        return token
    }

    /// The client the local user `uid` is (see the type's summary).
    func user(_ uid: UInt32) throws -> Client {
        guard case .tokens(let path) = clients.mode else {
            return Client(name: "uid-\(uid)", permission: .precise, isAdmin: uid == 0 || uid == PeerCredentials.serverUser)
        }
        switch clients.current.lookup(user: uid, at: now()) {
        case .client(let client): return client
        case .expired(let client): throw Self.unauthorized("the line of user id \(uid) (client '\(client.name)') has expired")
        case .unknown:
            throw Self.unauthorized("user id \(uid) has no line uid:\(uid) in the token file \(path), and the request no token")
        }
    }

    static func unauthorized(_ message: String) -> HTTPError {
        HTTPError(.unauthorized, headers: [.wwwAuthenticate: "Bearer realm=\"location-server\""], message: message)
    }
}

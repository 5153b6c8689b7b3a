import Foundation
import Hummingbird
import HummingbirdAuth
import NIOCore

/// The server's request context: Hummingbird's basic one, answering JSON with its keys sorted and its slashes
/// as they are — people diff the server's answers and read the paths in its errors — and carrying the
/// request's client (``ClientAuthenticator``).
struct ServerRequestContext: AuthRequestContext {
    var coreContext: CoreRequestContextStorage
    /// The request's client, once ``ClientAuthenticator`` has named it.
    var identity: Client?
    /// What named it (its token, its peer's user), once ``ClientAuthenticator`` has.
    var credential: ClientCredential?
    /// The request's connection (its peer's credentials, on the server's Unix socket).
    let channel: any Channel

    init(source: Source) {
        coreContext = .init(source: source)
        channel = source.channel
    }

    var responseEncoder: JSONEncoder { Self.encoder() }

    /// The server's JSON, for its answers and its streams' events alike: keys sorted, slashes as they are.
    static func encoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }
}

import Hummingbird

/// Whether a stream's client is still the one it opened as. A stream outlives the check at its start: a token
/// taken out of the token file (read again on `SIGHUP`), one whose `expires` has passed, or a client whose
/// permission changed must not go on hearing positions as it was. Streams ask before each event they send,
/// and end with reason `unauthorized` when the answer is no (the client may reconnect as what it is now).
///
/// Asking costs what a request's own check costs, without reading the request again: a hash lookup of the
/// token (or the user) in the current token file.
struct ClientCheck: Sendable {
    let authenticator: ClientAuthenticator
    /// What named the client when the stream opened.
    let credential: ClientCredential
    /// The client the stream opened as.
    let client: Client

    /// The check of a stream whose request ``ClientAuthenticator`` named `context`'s client.
    /// - Throws: `401` when it named none (a route that needs no client has no stream).
    init(_ authenticator: ClientAuthenticator, context: ServerRequestContext) throws {
        guard let credential = context.credential, let client = context.identity else {
            throw ClientAuthenticator.unauthorized("the request names no client")
        }
        self.authenticator = authenticator
        self.credential = credential
        self.client = client
    }

    /// Why the stream must end, or `nil` while its credential names the client it opened as.
    func revoked() -> String? {
        do {
            let now = try authenticator.client(credential)
            // A later `expires` (a rotation) changes nothing the stream was opened with; a passed one throws above.
            if now.name == client.name, now.permission == client.permission, now.isAdmin == client.isAdmin { return nil }
            return "client '\(client.name)' changed in the token file (now \(now.permission.rawValue)\(now.isAdmin ? ", admin" : "")): reconnect"
        } catch let error as HTTPError {
            return error.body ?? "\(error.status)"
        } catch {
            return "\(error)"
        }
    }
}

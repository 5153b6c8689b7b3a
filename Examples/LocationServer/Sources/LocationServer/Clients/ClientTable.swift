import Foundation

/// The clients of a token file, by token.
struct ClientTable: Sendable, Equatable {
    /// What a bearer token is.
    enum Lookup: Equatable {
        case client(Client)
        /// A token of the file whose `expires` has passed.
        case expired(Client)
        case unknown
    }

    /// Each token's client.
    let clients: [String: Client]
    /// Each local user's client, by user id (`uid:N` lines): a request over the server's Unix socket without
    /// a token is its peer's user.
    var users: [UInt32: Client] = [:]

    /// The client `token` names at `now`.
    /// - Complexity: O(t) for a token of t characters (a hash lookup; Swift's string hashing is seeded
    ///   per process, so an attacker cannot steer which tokens share a bucket and time the comparisons).
    func lookup(_ token: String, at now: Date) -> Lookup {
        guard let client = clients[token] else { return .unknown }
        if let expires = client.expires, now >= expires { return .expired(client) }
        return .client(client)
    }

    /// The client the local user `uid` is at `now` (see ``users``).
    func lookup(user uid: UInt32, at now: Date) -> Lookup {
        guard let client = users[uid] else { return .unknown }
        if let expires = client.expires, now >= expires { return .expired(client) }
        return .client(client)
    }

    /// How many clients (not tokens or users) the table names.
    var clientCount: Int { Set(clients.values.map(\.name)).union(users.values.map(\.name)).count }
}

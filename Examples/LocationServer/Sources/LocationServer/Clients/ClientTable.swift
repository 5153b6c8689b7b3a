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

    /// The client `token` names at `now`.
    /// - Complexity: O(t) for a token of t characters (a hash lookup; Swift's string hashing is seeded
    ///   per process, so an attacker cannot steer which tokens share a bucket and time the comparisons).
    func lookup(_ token: String, at now: Date) -> Lookup {
        guard let client = clients[token] else { return .unknown }
        if let expires = client.expires, now >= expires { return .expired(client) }
        return .client(client)
    }

    /// How many clients (not tokens) the table names.
    var clientCount: Int { Set(clients.values.map(\.name)).count }
}

import Foundation

/// What a client may hear of the fences' events, as the token file grants it: its own fences' (a precise
/// client), every fence's (a precise admin) or none (an approximate client, one with permission `none`, one
/// no longer in the file), until its tokens expire.
struct EventGrant: Sendable, Hashable {
    /// Whose fences' events.
    enum Scope: String, Sendable {
        case nothing, own, every
    }

    var scope: Scope
    /// When the last of the client's tokens expires, Unix seconds (`nil`: one never does).
    var expires: Double?

    /// The grant of a client that is not in the token file.
    static let nothing = EventGrant(scope: .nothing, expires: nil)

    /// The grant of the client named by `tokens` (one client's lines of the token file: one permission, each
    /// token its own expiry).
    init(tokens: [Client]) {
        guard let client = tokens.first, client.permission == .precise else {
            self = .nothing
            return
        }
        scope = client.isAdmin ? .every : .own
        let expiries = tokens.map(\.expires)
        expires = expiries.contains(nil) ? nil : expiries.compactMap { $0?.timeIntervalSince1970 }.max()
    }

    init(scope: Scope, expires: Double?) {
        self.scope = scope
        self.expires = expires
    }

    /// Whether client `name` was entitled to `event` under this grant, when the event was recorded.
    func allows(_ event: StoredEvent, to name: String) -> Bool {
        if let expires, event.time >= expires { return false }
        switch scope {
        case .nothing: return false
        case .own: return event.owner == name
        case .every: return true
        }
    }

    /// Each client's grant in `table`, by name.
    static func grants(of table: ClientTable) -> [String: EventGrant] {
        let clients = Array(table.clients.values) + Array(table.users.values)
        return Dictionary(grouping: clients, by: \.name).mapValues { EventGrant(tokens: $0) }
    }
}

/// A client's grant, in force from an event id on (until the client's next change).
struct GrantChange: Sendable, Equatable {
    var client: String
    /// The first event the grant judges: the one after the newest when the token file said so.
    var fromEvent: Int64
    var grant: EventGrant
}

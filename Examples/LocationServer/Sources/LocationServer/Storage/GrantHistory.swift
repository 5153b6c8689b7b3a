import NIOConcurrencyHelpers

/// Each client's grants over the events' ids, as the token file changed them, kept with the events: a client
/// that resumes its stream hears, of the events recorded before it opened, only those it was entitled to when
/// each was recorded — not the crossings of a stretch it was approximate, out of the file or expired, even
/// once it is precise again. (While a stream is open, ``ClientCheck`` ends it at such a change.)
///
/// A change is in force from the event after the newest one when the token file said so; it is recorded at
/// start (what changed while the server was down) and each time the file is read again, before the new file
/// is in force. Events recorded before a client's first change are judged by that change: the server knows
/// nothing older. Without a token file, the clients of the history get what that mode gives them (``openGrant(of:)``).
/// A change is forgotten once the next one of its client is in force from an event retention has removed.
final class GrantHistory: Sendable {
    private let journal: GeofenceJournal
    /// Each client's changes, oldest first.
    private let changes: NIOLockedValueBox<[String: [GrantChange]]>

    init(journal: GeofenceJournal, stored: [GrantChange]) {
        self.journal = journal
        changes = NIOLockedValueBox(Dictionary(grouping: stored, by: \.client))
    }

    /// Records each client whose grant in `table` is not its last one (a client gone from the file: no grant),
    /// in force from the next event on, and stores it in order with the events.
    /// - Complexity: O(c log c) for the c clients of the table and the history.
    func record(_ table: ClientTable) {
        record(EventGrant.grants(of: table)) { _ in .nothing }
    }

    /// Records what the server without a token file gives each client of the history (``openGrant(of:)``).
    func recordOpen() {
        record([:], others: Self.openGrant(of:))
    }

    /// The grant a client named `name` has without a token file: `local` (every request over TCP) and the
    /// local users root and the server's own hear every fence, other local users (`uid-N`) their own, and
    /// the names of a token file nothing (no request is them).
    static func openGrant(of name: String) -> EventGrant {
        switch TokenFile.reservation(of: name) {
        case .some(nil): EventGrant(scope: .every, expires: nil)
        case .some(let uid?): EventGrant(scope: uid == 0 || uid == PeerCredentials.serverUser ? .every : .own, expires: nil)
        case nil: .nothing
        }
    }

    /// Records `grants`, and for each client of the history without one, what `others` gives it.
    private func record(_ grants: [String: EventGrant], others: (String) -> EventGrant) {
        changes.withLockedValue { changes in
            var changed = grants.filter { name, grant in changes[name]?.last?.grant != grant }
            for (name, history) in changes where grants[name] == nil {
                let grant = others(name)
                if history.last?.grant != grant { changed[name] = grant }
            }
            guard !changed.isEmpty else { return }
            // Under this lock: two readings of the file record their changes in the order they were read.
            let (from, oldest) = journal.appendGrants(changed.sorted { $0.key < $1.key }.map { (client: $0.key, grant: $0.value) })
            for (name, grant) in changed {
                var history = changes[name] ?? []
                // Nothing was recorded under the one before: it judged no event.
                if history.last?.fromEvent == from { history.removeLast() }
                if history.last?.grant != grant { history.append(GrantChange(client: name, fromEvent: from, grant: grant)) }
                // A change whose successor is in force from an event retention removed judges no event kept.
                let superseded = zip(history, history.dropFirst()).prefix { $1.fromEvent <= oldest }.count
                changes[name] = Array(history.dropFirst(superseded))
            }
        }
    }

    /// Follows `directory`: the grants of its token file now, and again each time it is read, before the new
    /// file is in force; without a token file, what that mode gives the clients of the history.
    func follow(_ directory: ClientDirectory) {
        guard case .tokens = directory.mode else { return recordOpen() }
        directory.beforeTaking { [weak self] table in self?.record(table) }
        record(directory.current)
    }

    /// What `client` (as its stream opened) hears of the events, those up to `through` (recorded before the
    /// stream opened) judged by its grants then.
    func judge(for client: Client, through: Int64) -> GrantJudge {
        GrantJudge(client: client, through: through, history: changes.withLockedValue { $0[client.name] ?? [] })
    }

    /// Client `name`'s changes, oldest first.
    func history(of name: String) -> [GrantChange] {
        changes.withLockedValue { $0[name] ?? [] }
    }
}

/// Which events one stream's client hears: those of the fences it sees now, and of the events recorded before
/// its stream opened, those its grant allowed when each was recorded.
struct GrantJudge: Sendable {
    let client: Client
    /// The newest event when the stream opened.
    let through: Int64
    /// The client's changes, oldest first.
    let history: [GrantChange]

    /// Whether every event the client sees now it also heard then: a page is sent as it is, not filtered.
    var hearsEverything: Bool {
        client.isAdmin && history.allSatisfy { $0.grant == EventGrant(scope: .every, expires: nil) }
    }

    /// Whether the client hears `event`.
    /// - Complexity: O(h) for the h changes of the client: a handful, as changes the retention has passed are
    ///   forgotten.
    func hears(_ event: StoredEvent) -> Bool {
        guard client.sees(owner: event.owner) else { return false }
        guard event.id <= through, let first = history.first else { return true }
        // The last change in force at the event (before the first, the first).
        let change = history.last { $0.fromEvent <= event.id } ?? first
        return change.grant.allows(event, to: client.name)
    }
}

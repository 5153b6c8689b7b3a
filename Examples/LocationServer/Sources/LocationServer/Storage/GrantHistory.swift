import NIOConcurrencyHelpers

/// Each client's grants over the events' ids, as the token file changed them, kept with the events: a client
/// that resumes its stream hears, of the events recorded before it opened, only those it was entitled to when
/// each was recorded — not the crossings of a stretch it was approximate, out of the file or expired, even
/// once it is precise again. (While a stream is open, ``ClientCheck`` ends it at such a change.)
///
/// A change is in force from the event after the newest one when the token file said so; it is recorded at
/// start (what changed while the server was down) and each time the file is read again. Events recorded
/// before a client's first change are judged by that change: the server knows nothing older.
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
        changes.withLockedValue { changes in
            let grants = EventGrant.grants(of: table)
            var changed = grants.filter { name, grant in changes[name]?.last?.grant != grant }
            for (name, history) in changes where grants[name] == nil && history.last?.grant != .nothing {
                changed[name] = .nothing
            }
            guard !changed.isEmpty else { return }
            // Under this lock: two readings of the file record their changes in the order they were read.
            let from = journal.appendGrants(changed.sorted { $0.key < $1.key }.map { (client: $0.key, grant: $0.value) })
            for (name, grant) in changed {
                var history = changes[name] ?? []
                // Nothing was recorded under the one before: it judged no event.
                if history.last?.fromEvent == from { history.removeLast() }
                history.append(GrantChange(client: name, fromEvent: from, grant: grant))
                changes[name] = history
            }
        }
    }

    /// Follows `directory`'s token file: its clients now, and again each time it is read again. Without a token
    /// file nothing is recorded: every request is the local client, which hears every fence.
    func follow(_ directory: ClientDirectory) {
        guard case .tokens = directory.mode else { return }
        record(directory.current)
        _ = directory.watch { [weak self] in self?.record(directory.current) }
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
    /// - Complexity: O(log h) for the h changes of the client.
    func hears(_ event: StoredEvent) -> Bool {
        guard client.sees(owner: event.owner) else { return false }
        guard event.id <= through, !history.isEmpty else { return true }
        // The last change in force at the event (before the first, the first).
        var low = 0, high = history.count - 1
        while low < high {
            let middle = (low + high + 1) / 2
            if history[middle].fromEvent <= event.id { low = middle } else { high = middle - 1 }
        }
        return history[low].grant.allows(event, to: client.name)
    }
}

/// What each client was answered, summed for the log at most once a minute per client. Pure: `now` is
/// an argument, and the caller writes the summary this returns.
///
/// A client's first answer is logged at once; later ones are summed until a minute has passed since its
/// last line, and the answer that finds the minute over logs the sum, itself included. A client that
/// stops asking leaves its last sum unlogged until it asks again (the counters in `/metrics` have it).
struct AuditLog<Instant: InstantProtocol>: Sendable where Instant.Duration == Duration {
    /// One log line's worth: a client's answers since its last line, by what each carried.
    struct Summary: Equatable {
        var client: String
        /// Answers by the accuracy level they carried (`none`: no position), in the order first seen.
        var answers: [(level: String, count: Int)]

        static func == (left: Summary, right: Summary) -> Bool {
            left.client == right.client && left.answers.elementsEqual(right.answers) { $0 == $1 }
        }

        /// The line's text: `client fleet: 12 answers (block 10, none 2)`.
        var text: String {
            let total = answers.reduce(0) { $0 + $1.count }
            let parts = answers.map { "\($0.level) \($0.count)" }.joined(separator: ", ")
            return "client \(client): \(total) answer\(total == 1 ? "" : "s") (\(parts))"
        }
    }

    private struct Account {
        var lastLogged: Instant?
        var answers: [(level: String, count: Int)] = []

        /// Counts an answer of `level` at `now`; when a line is due (the first, or `interval` after the
        /// last), returns the answers to log, itself included, and starts a new sum.
        mutating func count(_ level: String, at now: Instant, interval: Duration) -> [(level: String, count: Int)]? {
            if let index = answers.firstIndex(where: { $0.level == level }) {
                answers[index].count += 1
            } else {
                answers.append((level, 1))
            }
            if let last = lastLogged, last.duration(to: now) < interval { return nil }
            let due = answers
            self = Account(lastLogged: now)
            return due
        }
    }

    /// The least time between two lines for one client.
    let interval: Duration
    private var accounts: [String: Account] = [:]

    init(interval: Duration = .seconds(60)) {
        self.interval = interval
    }

    /// Records that `client` was answered with `level` at `now`; returns the summary to log, if one is due.
    /// - Complexity: O(l) for the l levels the client was answered with since its last line (at most 7).
    mutating func record(_ client: String, level: String, at now: Instant) -> Summary? {
        // Taken out of the table while it counts: a copy left in the table would make the count copy the sums.
        var account = accounts.removeValue(forKey: client) ?? Account()
        defer { accounts[client] = account }
        return account.count(level, at: now, interval: interval).map { Summary(client: client, answers: $0) }
    }
}

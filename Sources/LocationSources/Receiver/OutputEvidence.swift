/// Which of two settings a receiver is in, told by its output: after a mode command whose answer was lost, the
/// receiver either took the command or kept its previous setting, and the two output at different intervals
/// (tracking at its fix interval, power save once per period). A gap in the output longer than the shorter
/// interval allows says the longer one; output at the shorter interval for longer than the longer interval
/// says the shorter one. A pure value: the driver feeds it the instants output arrived at.
struct OutputEvidence: Sendable, Hashable {
    /// What the output showed.
    enum Verdict: Sendable, Hashable {
        /// The receiver took the command.
        case attempted
        /// The receiver kept its previous setting.
        case previous
    }

    /// How much later than its interval output may come (what a line at 9600 baud and the receiver's own
    /// timing add).
    static let slack = Duration.seconds(1)

    private let sentAt: Duration
    private let attempted: Duration
    private let previous: Duration
    private var lastOutput: Duration?

    /// Evidence for a command sent at `sentAt` that would make the receiver output every `attempted`, where it
    /// output every `previous` before; `nil` when the two are the same (the output cannot tell them apart).
    init?(attempted: Duration, previous: Duration, sentAt: Duration) {
        guard attempted != previous else { return nil }
        self.attempted = attempted
        self.previous = previous
        self.sentAt = sentAt
    }

    /// Output arrived at `now`: the verdict once the output shows one, with since when the receiver has been
    /// in that setting by the evidence.
    mutating func output(at now: Duration) -> (Verdict, since: Duration)? {
        // What was on the line when the command went out says nothing.
        guard now > sentAt + ReceiverDriverStateMachine.lineDrain else { return nil }
        let short = min(attempted, previous)
        let long = max(attempted, previous)
        let from = lastOutput ?? sentAt
        lastOutput = now
        if now - from > short + Self.slack { return (attempted == long ? .attempted : .previous, from) }
        if now - sentAt > long + Self.slack { return (attempted == short ? .attempted : .previous, sentAt) }
        return nil
    }
}

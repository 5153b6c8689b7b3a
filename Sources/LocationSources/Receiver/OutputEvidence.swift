/// Which of two output intervals a receiver is in, told by its output: after a mode command whose answer was
/// lost the receiver either took the command or kept its previous setting, and the two output at different
/// intervals (tracking at its fix interval, power save once per period). A gap in the output longer than the
/// shorter interval allows says the longer one; output at the shorter interval for longer than the longer
/// interval says the shorter one. A pure value: the driver feeds it the instants output arrived at.
struct OutputEvidence: Sendable, Hashable {
    /// How much later than its interval output may come (what a line at 9600 baud and the receiver's own
    /// timing add).
    static let slack = Duration.seconds(1)

    private let sentAt: Duration
    private let short: Duration
    private let long: Duration
    private var lastOutput: Duration?

    /// Evidence for a command sent at `sentAt` between a receiver outputting every `one` and every `other`,
    /// with the last output seen since (the evidence is gathered from the command on, though it is made when the
    /// command's answer is found missing); `nil` when the two are the same (the output cannot tell them apart).
    init?(between one: Duration, and other: Duration, sentAt: Duration, lastOutput: Duration?) {
        guard one != other else { return nil }
        short = min(one, other)
        long = max(one, other)
        self.sentAt = sentAt
        if let lastOutput, lastOutput > sentAt + ReceiverDriverStateMachine.lineDrain { self.lastOutput = lastOutput }
    }

    /// Output arrived at `now`: once the output shows it, the interval the receiver outputs at and since when
    /// it has by the evidence.
    mutating func output(at now: Duration) -> (interval: Duration, since: Duration)? {
        // What was on the line when the command went out says nothing.
        guard now > sentAt + ReceiverDriverStateMachine.lineDrain else { return nil }
        let from = lastOutput ?? sentAt
        lastOutput = now
        if now - from > short + Self.slack { return (long, from) }
        if now - sentAt > long + Self.slack { return (short, sentAt) }
        return nil
    }
}

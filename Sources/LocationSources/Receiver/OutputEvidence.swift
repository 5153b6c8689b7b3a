/// Which of a few output intervals a receiver is in, told by its output: after a mode command whose answer was
/// lost the receiver either took the command or kept its previous setting (two intervals); on a fresh link with
/// no setting confirmed, it may be in any of the settings the driver commands. The settings output at different
/// intervals (tracking at its fix interval, power save once per period, or in a short burst per period).
///
/// - A gap between two outputs longer than the shortest interval allows says the shortest setting whose
///   interval allows the gap (a power-save receiver that outputs a burst per period leaves a gap of its period
///   less the burst).
/// - A gap from the command to the first output says only that the receiver is in a setting that allows it: it
///   rules out the shorter ones, and decides once one is left.
/// - Output at the shortest interval for longer than the longest interval says the shortest one.
///
/// Whichever it says, the receiver has been in it since the command: only a command changes a setting.
///
/// A pure value: the driver feeds it the instants output arrived at.
struct OutputEvidence: Sendable, Hashable {
    /// How much later than its interval output may come (what a line at 9600 baud and the receiver's own
    /// timing add).
    static let slack = Duration.seconds(1)

    private let sentAt: Duration
    /// The intervals the receiver may be in, shortest first, at least two.
    private let candidates: [Duration]
    private var lastOutput: Duration?

    /// Evidence for a command sent at `sentAt` between a receiver outputting at any of `intervals`, with the last
    /// output seen since (the evidence is gathered from the command on, though it is made when the command's
    /// answer is found missing); `nil` when they are all the same (the output cannot tell them apart).
    init?(among intervals: [Duration], sentAt: Duration, lastOutput: Duration?) {
        candidates = Set(intervals).sorted()
        guard candidates.count >= 2 else { return nil }
        self.sentAt = sentAt
        if let lastOutput, lastOutput > sentAt + ReceiverDriverStateMachine.lineDrain { self.lastOutput = lastOutput }
    }

    /// Output arrived at `now`: once the output shows it, the interval the receiver outputs at and since when
    /// it has (the command's sending).
    mutating func output(at now: Duration) -> (interval: Duration, since: Duration)? {
        // What was on the line when the command went out says nothing.
        guard now > sentAt + ReceiverDriverStateMachine.lineDrain else { return nil }
        let previous = lastOutput
        let from = previous ?? sentAt
        lastOutput = now
        let gap = now - from
        let shortest = candidates[0], longest = candidates[candidates.count - 1]
        if gap > shortest + Self.slack {
            let allowing = candidates.first { $0 + Self.slack >= gap } ?? longest
            // From the command, the gap is a lower bound only: decided once no longer setting is left.
            // Since the command: only a command changes a setting, so the one the output shows now is the one
            // the receiver has been in since this one was sent (taken then, or kept from before).
            if previous != nil || allowing == longest { return (allowing, sentAt) }
            return nil
        }
        if now - sentAt > longest + Self.slack { return (shortest, sentAt) }
        return nil
    }
}

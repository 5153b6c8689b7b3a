/// How a source retries a connection (or a device it reopens) that failed or went away.
///
/// After a failure the source waits ``initialDelay``, then twice as long after each further failure,
/// never longer than ``maximumDelay``. A peer *answers* when it sends something the source understands (a
/// gpsd report; an NMEA sentence that decodes, or a commanded receiver's reply): bytes of another protocol,
/// or of a serial device read at the wrong speed, are no answer. A connection that does not answer within
/// ``answerTimeout`` is closed and counted as a failure, and one that sends only such bytes and drops is a
/// failure like a refused connect; one that answers and drops sooner than ``answerTimeout`` is a failure for the backoff
/// (its retries wait longer each time) but shows the peer reachable; one that stays up longer has worked, and
/// the next failure waits ``initialDelay`` again. When
/// failures have gone on for ``giveUpAfter`` without a working connection in between, the source
/// reports a fatal error, which ends every pending request with a clear message.
public struct ReconnectPolicy: Sendable, Hashable {
    /// The wait before the first retry. Default 0.25 s.
    public var initialDelay: Duration {
        didSet {
            initialDelay = max(.zero, initialDelay)
            maximumDelay = max(initialDelay, maximumDelay)
        }
    }
    /// The longest wait between two attempts. Default 8 s.
    public var maximumDelay: Duration {
        didSet { maximumDelay = max(initialDelay, maximumDelay) }
    }
    /// How long a new connection may go without answering (without sending anything the source
    /// understands) before it is treated as failed. Default 5 s.
    public var answerTimeout: Duration {
        didSet { answerTimeout = max(.zero, answerTimeout) }
    }
    /// How long failed attempts may go on, counted from the first failure since the last working
    /// connection, before the source gives up with a fatal error; `nil` retries for ever. Default 30 s.
    public var giveUpAfter: Duration? {
        didSet { giveUpAfter = giveUpAfter.map { max(.zero, $0) } }
    }

    /// Creates a policy. Negative durations count as zero; a maximum below the initial delay is raised to it.
    /// The same holds for a value set later.
    public init(
        initialDelay: Duration = .milliseconds(250),
        maximumDelay: Duration = .seconds(8),
        answerTimeout: Duration = .seconds(5),
        giveUpAfter: Duration? = .seconds(30)
    ) {
        self.initialDelay = max(.zero, initialDelay)
        self.maximumDelay = max(self.initialDelay, maximumDelay)
        self.answerTimeout = max(.zero, answerTimeout)
        self.giveUpAfter = giveUpAfter.map { max(.zero, $0) }
    }

    /// Where the backoff starts after a zero ``initialDelay``, and the shortest wait between retries after the
    /// first: doubling nothing would retry at once for ever.
    public static let smallestBackoff = Duration.milliseconds(10)

    /// The wait after `failures` consecutive failures (1 for the first): capped exponential backoff. A zero
    /// initial delay retries the first failure at once and backs off from ``smallestBackoff`` after it.
    /// Every retry after the first waits at least ``smallestBackoff``, whatever the delays say (a zero
    /// maximum), so that a peer refusing every connection is never retried in a busy loop.
    /// - Complexity: O(1): at most 64 doublings.
    public func delay(afterFailures failures: Int) -> Duration {
        let initial = max(.zero, initialDelay)
        guard failures > 1 else { return initial }
        let longest = max(Self.smallestBackoff, maximumDelay)
        var delay = max(initial, Self.smallestBackoff)
        for _ in 1..<min(failures, 64) {
            delay = delay * 2
            if delay >= longest { return longest }
        }
        return min(delay, longest)
    }
}

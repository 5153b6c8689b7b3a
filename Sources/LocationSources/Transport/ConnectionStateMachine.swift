/// The life of a reconnecting link, as a pure state machine: no I/O, no clock (`now` is an argument,
/// any monotonic time), no locks. Its owner, ``ReconnectingLink``, feeds it events and performs the
/// returned actions after leaving its critical section.
///
/// Attempts are numbered; an event about an attempt that is no longer the current one (a late
/// connect, a stale timer, the close of a link that was replaced) is ignored, so every path is safe
/// to race with ``stop()``.
struct ConnectionStateMachine: Sendable {
    /// Why an attempt or a working connection ended.
    enum Failure: Sendable, Hashable {
        /// Opening failed (connection refused, no such device, permission denied…), with the system's reason.
        case openFailed(String)
        /// The peer sent nothing within the answer timeout.
        case silent
        /// The peer sent bytes, but nothing the source understands, within the answer timeout or before the
        /// link closed (with the reason when closing was an error: the system's word is kept).
        case notUnderstood(closed: String?)
        /// The peer closed the link, or reading failed, with the reason when there was an error.
        case closed(String?)
    }

    /// What the owner must do.
    enum Action: Sendable, Hashable {
        /// Open attempt `attempt`.
        case open(attempt: UInt64)
        /// Arm the answer timer of `attempt`, firing ``answerTimeout(attempt:now:)`` after `delay`.
        case armAnswerTimeout(attempt: UInt64, delay: Duration)
        /// Close the link of `attempt`, first sending the farewell when asked to (a clean stop).
        case close(attempt: UInt64, farewell: Bool)
        /// Fire ``retryDue(attempt:)`` after `delay`.
        case scheduleRetry(attempt: UInt64, delay: Duration)
        /// The input of the link the source was reading ended, closed here (the answer timeout): flush what
        /// it held, as when the peer closes it.
        case reportInputEnded
        /// The peer answered in the source's protocol: the link works.
        case reportConnected
        /// A working link was lost, or the first attempt after one failed: requests should be told (once).
        case reportDisconnected(Failure)
        /// Failures went on past the policy's limit: report a fatal error.
        case reportGaveUp(failures: Int, lastFailure: Failure)
        /// A finite stream (a file) ended and is not to be reopened.
        case reportEndOfStream
    }

    /// Consecutive failures since the last working connection.
    struct Streak: Sendable, Hashable {
        /// When the first failure of the streak happened.
        var started: Duration
        /// How many attempts failed.
        var failures: Int
    }

    private enum State: Sendable, Hashable {
        /// Not started, or stopped.
        case idle
        /// Attempt `attempt` is opening.
        case connecting(attempt: UInt64, streak: Streak?)
        /// Attempt `attempt` is open, since the peer first answered at `answeredAt` (`nil`: not yet), and
        /// whether it has sent anything at all (`heard`: what it sent may not be what the source understands).
        /// Its `streak` is cleared when the link closes after working for the policy's answer timeout: a peer
        /// that answers and drops at once is no working connection, and its retries back off.
        case connected(attempt: UInt64, streak: Streak?, answeredAt: Duration?, heard: Bool)
        /// Waiting to retry as `attempt`: after failures (`streak`), or between two passes of a looped log
        /// (`nil`: nothing failed).
        case waiting(attempt: UInt64, streak: Streak?)
        /// Gave up, or a finite stream ended; nothing happens until stopped and started again.
        case finished
    }

    private var state = State.idle
    private var lastAttempt: UInt64 = 0
    private let policy: ReconnectPolicy

    /// Creates a machine that retries by `policy`.
    init(policy: ReconnectPolicy) {
        self.policy = policy
    }

    /// Whether `attempt` is the one whose input counts now: it is open, or opening (a link may
    /// deliver its first bytes before the future of its open has been seen).
    func isCurrent(_ attempt: UInt64) -> Bool {
        switch state {
        case .connecting(let current, _), .connected(let current, _, _, _): current == attempt
        case .idle, .waiting, .finished: false
        }
    }

    /// The attempt whose link is open or opening, if any.
    var currentAttempt: UInt64? {
        switch state {
        case .connecting(let current, _), .connected(let current, _, _, _): current
        case .idle, .waiting, .finished: nil
        }
    }

    /// Whether the link is running (started and not stopped), whatever its connection state.
    var isRunning: Bool {
        if case .idle = state { return false }
        return true
    }

    /// The engine started the source. A no-op when already running.
    mutating func start() -> [Action] {
        guard case .idle = state else { return [] }
        return beginAttempt(streak: nil)
    }

    /// The engine stopped the source: closes whatever is open, with the farewell if connected.
    mutating func stop() -> [Action] {
        defer { state = .idle }
        switch state {
        case .connecting(let attempt, _): return [.close(attempt: attempt, farewell: false)]
        case .connected(let attempt, _, _, _): return [.close(attempt: attempt, farewell: true)]
        case .idle, .waiting, .finished: return []
        }
    }

    /// Attempt `attempt` opened.
    mutating func opened(attempt: UInt64) -> [Action] {
        switch state {
        case .connecting(attempt, let streak):
            state = .connected(attempt: attempt, streak: streak, answeredAt: nil, heard: false)
            return [.armAnswerTimeout(attempt: attempt, delay: policy.answerTimeout)]
        case .connected(attempt, _, let answeredAt, _):
            // Its first data came before the open was seen: already answered, or the answer timer starts now.
            return answeredAt == nil ? [.armAnswerTimeout(attempt: attempt, delay: policy.answerTimeout)] : []
        default:
            return [.close(attempt: attempt, farewell: false)]
        }
    }

    /// Attempt `attempt` could not be opened. It may have delivered input first (a link can read before its
    /// open settles): it fails all the same.
    mutating func openFailed(attempt: UInt64, reason: String, now: Duration) -> [Action] {
        switch state {
        case .connecting(attempt, let streak), .connected(attempt, let streak, _, _):
            return fail(.openFailed(reason), streak: streak, now: now)
        default:
            return []
        }
    }

    /// The peer of `attempt` sent data. Returns whether that data is to be used (the attempt is current).
    /// Data alone does not make the link work: only what the source understands does
    /// (``understood(attempt:now:)``).
    mutating func received(attempt: UInt64) -> Bool {
        switch state {
        case .connected(attempt, let streak, nil, false), .connecting(attempt, let streak):
            // (A link may deliver its first bytes before the future of its open has been seen.)
            state = .connected(attempt: attempt, streak: streak, answeredAt: nil, heard: true)
            return true
        default:
            return isCurrent(attempt)
        }
    }

    /// The source understood what the peer of `attempt` sent, at `now` (a gpsd report, an NMEA sentence
    /// that decoded): the peer speaks its protocol. The first time, the link works: the give-up clock
    /// starts again (a peer that answers is reachable); the backoff does not until the link has worked
    /// for the answer timeout (``closed(attempt:reason:reopen:replay:now:)``). Bytes that are not the source's
    /// protocol (another service on the port, a serial device at the wrong speed) never make it work.
    mutating func understood(attempt: UInt64, now: Duration) -> [Action] {
        switch state {
        case .connected(attempt, _, .some, _):
            return []
        case .connected(attempt, let streak, nil, _), .connecting(attempt, let streak):
            let restarted = streak.map { Streak(started: now, failures: $0.failures) }
            state = .connected(attempt: attempt, streak: restarted, answeredAt: now, heard: true)
            return [.reportConnected]
        default:
            return []
        }
    }

    /// The answer timer of `attempt` fired.
    mutating func answerTimeout(attempt: UInt64, now: Duration) -> [Action] {
        guard case .connected(attempt, let streak, nil, let heard) = state else { return [] }
        return [.close(attempt: attempt, farewell: false), .reportInputEnded]
            + fail(heard ? .notUnderstood(closed: nil) : .silent, streak: streak, now: now)
    }

    /// The link of `attempt` closed. `reopen` is `false` for a finite stream that ended cleanly and is
    /// not to be replayed; `replay` is `true` for one that ended cleanly and is played again (a looped log):
    /// if it was understood, its next pass follows with no failure, no disconnection told and no backoff —
    /// at once when the pass lasted the policy's initial delay (counted from its first understood sentence),
    /// else when that much has passed since (never sooner than the smallest backoff), so that a log read
    /// faster than that (one line, replayed as fast as possible) is not reopened in a busy loop.
    mutating func closed(attempt: UInt64, reason: String?, reopen: Bool, replay: Bool = false, now: Duration) -> [Action] {
        let streak: Streak?
        let worked: Bool
        var answeredAt: Duration?
        var failure = Failure.closed(reason)
        switch state {
        case .connected(attempt, let current, let answered, let heard):
            streak = current
            answeredAt = answered
            worked = answered.map { now - $0 >= policy.answerTimeout } ?? false
            if answered == nil && heard { failure = .notUnderstood(closed: reason) }
        case .connecting(attempt, let current): (streak, worked) = (current, false)
        default: return []
        }
        guard reopen else {
            state = .finished
            return [.reportEndOfStream]
        }
        // A log that said nothing the source understood is a failure like any other, and backs off.
        if replay, let answeredAt {
            let shortestPass = max(policy.initialDelay, ReconnectPolicy.smallestBackoff)
            let lasted = now - answeredAt
            guard lasted < shortestPass else { return beginAttempt(streak: nil) }
            return [waitForAttempt(streak: nil, delay: shortestPass - lasted)]
        }
        // A link that worked (answered, and stayed up for the answer timeout) and drops starts a fresh streak:
        // its first retry comes after the initial delay. One that answered and dropped at once goes on with the
        // streak before it: its retries back off (a peer that answers is reachable: the give-up clock restarted
        // when it answered). One that never answered in the source's protocol is a failure like a refused
        // connect, and its streak goes on towards giving up.
        return fail(failure, streak: worked ? nil : streak, now: now)
    }

    /// The retry timer for `attempt` fired.
    mutating func retryDue(attempt: UInt64) -> [Action] {
        guard case .waiting(attempt, let streak) = state else { return [] }
        state = .connecting(attempt: attempt, streak: streak)
        return [.open(attempt: attempt)]
    }

    private mutating func beginAttempt(streak: Streak?) -> [Action] {
        lastAttempt &+= 1
        state = .connecting(attempt: lastAttempt, streak: streak)
        return [.open(attempt: lastAttempt)]
    }

    /// Counts a failure in `streak` (a new one when `nil`), then gives up or schedules the retry.
    private mutating func fail(_ failure: Failure, streak: Streak?, now: Duration) -> [Action] {
        var actions: [Action] = []
        var streak = streak ?? Streak(started: now, failures: 0)
        streak.failures += 1
        if streak.failures == 1 { actions.append(.reportDisconnected(failure)) }
        if let limit = policy.giveUpAfter, now - streak.started >= limit {
            state = .finished
            actions.append(.reportGaveUp(failures: streak.failures, lastFailure: failure))
            return actions
        }
        actions.append(waitForAttempt(streak: streak, delay: policy.delay(afterFailures: streak.failures)))
        return actions
    }

    /// Waits `delay` before the next attempt, keeping `streak`.
    private mutating func waitForAttempt(streak: Streak?, delay: Duration) -> Action {
        lastAttempt &+= 1
        state = .waiting(attempt: lastAttempt, streak: streak)
        return .scheduleRetry(attempt: lastAttempt, delay: delay)
    }
}

extension ConnectionStateMachine.Failure {
    /// A short human explanation.
    var summary: String {
        switch self {
        case .openFailed(let reason): "open failed: \(reason)"
        case .silent: "connected, but nothing was received within the answer timeout"
        case .notUnderstood(let reason):
            "connected, but nothing received was understood (another service on that port, or a serial device at another speed?)"
                + (reason.map { "; then the connection was lost: \($0)" } ?? "")
        case .closed(let reason?): "connection lost: \(reason)"
        case .closed(nil): "the peer closed the connection"
        }
    }
}

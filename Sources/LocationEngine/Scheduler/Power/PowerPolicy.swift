/// The engine's power policy for its single source (see <doc:PowerPolicy>): on while any request needs fixes,
/// in the cheapest mode that serves the most demanding one, off after a linger once none does.
///
/// It is told the demanded mode on each reconciliation (the requests own the demand, ``PowerDemand``);
/// the mode follows demand down as well as up.
///
/// Its ``state`` is the core's one record of whether the source runs, since when and in which mode: the other
/// parts of the planner (the choice among sources, the restart-aware plan) read it rather than keep their own. The receiver's energy
/// keeps a different fact beside it, where the receiver *confirmed* it is (see ``ReceiverEnergy``).
struct PowerPolicy: Sendable {
    /// The source as the policy has driven it.
    enum SourceState: Sendable, Hashable {
        /// Powered down.
        case off
        /// Powered down after it failed for good: not started again until demand ends (``recover()``).
        case failed
        /// Running in a mode, started at `since`.
        case running(PowerMode, since: EngineInstant)
        /// Running, started at `since`, with no demand, until the linger deadline.
        case lingering(PowerMode, since: EngineInstant, until: EngineInstant)

        /// The mode it runs in, `nil` while it is off.
        var mode: PowerMode? {
            switch self {
            case .off, .failed: nil
            case .running(let mode, _), .lingering(let mode, _, _): mode
            }
        }

        /// When it last started, `nil` while it is off.
        var runningSince: EngineInstant? {
            switch self {
            case .off, .failed: nil
            case .running(_, let since), .lingering(_, let since, _): since
            }
        }
    }

    /// What to do to the source.
    enum Command: Sendable, Hashable {
        case start(PowerMode)
        case setMode(PowerMode)
        case stop
    }

    private(set) var state: SourceState = .off
    private(set) var starts = 0
    private(set) var stops = 0
    private(set) var modeChanges = 0
    /// Modes the running receiver did not take, in all, and the last one while it matters.
    private(set) var refusals = 0
    private var refusal: ModeRefusal?
    /// When the source was last sent a command.
    private var commandedAt: EngineInstant?
    private var accumulatedOnTime: Duration = .zero

    /// Whether the source is powered.
    var isOn: Bool { state.mode != nil }

    /// When the source last started, while it runs.
    var runningSince: EngineInstant? { state.runningSince }

    /// The linger deadline, when lingering.
    @inline(__always)
    var lingerDeadline: EngineInstant? {
        if case .lingering(_, _, let until) = state { return until }
        return nil
    }

    /// Total time the source has been on, up to `now`.
    func onTime(at now: EngineInstant) -> Duration {
        accumulatedOnTime + (runningSince.map { max(.zero, now - $0) } ?? .zero)
    }

    /// Brings the source in line with `demanded` (the most demanding request's mode, `nil` when none)
    /// at `now`, never running it harder than `cap`, returning what to do to it.
    mutating func reconcile(now: EngineInstant, demanded: PowerMode?, linger: Duration, cap: PowerMode? = nil) -> Command? {
        var wanted = demanded
        if let cap, let mode = wanted { wanted = min(mode, cap) }
        switch (state, wanted) {
        case (.off, let mode?):
            state = .running(mode, since: now)
            starts += 1
            commandedAt = now
            return .start(mode)
        case (.running(let current, let since), let mode?), (.lingering(let current, let since, _), let mode?):
            state = .running(mode, since: since)
            guard current != mode else { return nil }
            // Only a change of mode looks at a refusal: the demand that holds costs nothing more.
            if refusal != nil, refusal!.holdsBack(mode, now: now) {
                state = .running(current, since: since)
                return nil
            }
            modeChanges += 1
            commandedAt = now
            return .setMode(mode)
        case (.off, nil), (.failed, _):
            return nil
        case (.running(let current, let since), nil):
            if linger > .zero {
                state = .lingering(current, since: since, until: now + linger)
                return nil
            }
            return powerDown(now: now)
        case (.lingering(_, _, let until), nil):
            return now >= until ? powerDown(now: now) : nil
        }
    }

    /// The running receiver confirmed `mode`'s setting at `now`, on evidence from `since`: another setting than
    /// the mode it was last sent to, on evidence since that command, is a refusal — it runs in `mode` (lingering,
    /// if it lingered), and the mode refused is asked for again after the backoff of ``ModeRefusal``. Evidence from
    /// before the last command answers an earlier one.
    mutating func receiverConfirmed(_ mode: PowerMode, since: EngineInstant, now: EngineInstant) {
        guard let planned = state.mode else { return }
        guard planned != mode else {
            refusal = nil
            return
        }
        if let commandedAt, since < commandedAt { return }
        refusal = ModeRefusal(of: planned, after: refusal, now: now)
        refusals += 1
        switch state {
        case .off, .failed: break
        case .running(_, let since): state = .running(mode, since: since)
        case .lingering(_, let since, let until): state = .lingering(mode, since: since, until: until)
        }
    }

    /// Forces the source off at once (fatal error, authorization lost, shutdown).
    mutating func forceOff(now: EngineInstant) -> Command? {
        isOn ? powerDown(now: now) : nil
    }

    /// The source failed for good and is down (``forceOff(now:)`` stopped it): it stays down until ``recover()``.
    mutating func markFailed() {
        precondition(!isOn, "a source is marked failed once it is down, not while \(state)")
        state = .failed
    }

    /// Demand ended: a source that failed may run again (the next request starts it afresh).
    mutating func recover() {
        if state == .failed { state = .off }
    }

    private mutating func powerDown(now: EngineInstant) -> Command {
        if let runningSince { accumulatedOnTime += max(.zero, now - runningSince) }
        state = .off
        commandedAt = now
        // A stopped receiver is not asked again for the mode it refused until it runs (the refusals in a row
        // still count: it is the same receiver).
        refusal?.retryAt = nil
        stops += 1
        return .stop
    }
}

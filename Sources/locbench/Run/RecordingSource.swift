@_spi(Internals) import LocationEngine
import LocbenchModel
import NIOConcurrencyHelpers

/// A fix as the source emitted it, on the run's timeline.
struct RecordedFix: Sendable {
    var at: Int64
    var horizontalAccuracy: Double
}

/// Wraps the benchmark's source to see what the engine does to it and what it emits: the power-mode
/// timeline (for the duty cycle and the energy estimate), every fix (for the invariant check) and
/// the moment each fix leaves the source (for fix-to-delivery latency).
final class RecordingSource: LocationSource, @unchecked Sendable {  // Mutable state is behind `state`.
    struct State {
        var modeChanges: [(at: Int64, mode: PowerMode?)] = []
        var fixes: [RecordedFix] = []
        var starts = 0
        /// When the source was last started, while its first fix is awaited.
        var awaitingFirstFixSince: Int64?
        /// When the source was last stopped (`nil`: running, or never stopped).
        var stoppedAt: Int64?
        /// How long the source was down before the start whose first fix is awaited.
        var awaitedDownFor: Int64 = 0
        /// Every start into best or high but the first: its first-fix delay, how long the receiver was down before
        /// it, and what the power-down added.
        var restarts: [RestartDelay] = []
    }

    /// One restart into continuous tracking after a power-down.
    struct RestartDelay: Sendable {
        /// Start → first fix, nanoseconds.
        var delay: Int64
        /// How long the receiver was down, nanoseconds.
        var downFor: Int64
        /// Start → first fix, less the wait for the fix a receiver left running would have given (the next epoch
        /// at or after the start): the delay the power-down added, nanoseconds.
        var added: Int64
    }

    let base: any LocationSource
    let ledger: Ledger
    private let now: @Sendable () -> Int64
    private let state = NIOLockedValueBox(State())

    /// The source's fix interval (its epochs fall on multiples of it from time zero), nanoseconds; `nil` when
    /// unknown (a real source): the added delay is then the whole start → first fix.
    private let fixInterval: Int64?

    /// Brings a manually driven source's time up to the run's clock before each command (`nil`: the source follows
    /// the clock itself). The runner moves the clock first: a timer of the engine that fires then (a linger's end, a
    /// deadline) commands the source before the runner has moved the source's time, which would date the command,
    /// and meter the receiver, as of the source's previous instant.
    private let catchUp: (@Sendable () -> Void)?

    init(
        _ base: any LocationSource, ledger: Ledger, now: @escaping @Sendable () -> Int64, fixInterval: Duration? = nil,
        catchUp: (@Sendable () -> Void)? = nil
    ) {
        self.base = base
        self.ledger = ledger
        self.now = now
        self.catchUp = catchUp
        self.fixInterval = fixInterval.map(\.saturatingNanoseconds).flatMap { $0 > 0 ? $0 : nil }
    }

    var capabilities: SourceCapabilities { base.capabilities }

    /// The wrapped source's lifetime is this one's.
    func run() async { await base.run() }

    func start(mode: PowerMode, events: SourceEventSink) {
        catchUp?()
        record(mode)
        let now = self.now
        let startedAt = now()
        state.withLockedValue {
            $0.starts += 1
            // Only starts into continuous tracking: in the duty-cycled modes the first fix waits for the mode's
            // interval (5–60 s) whether or not the receiver was down.
            $0.awaitingFirstFixSince = $0.starts > 1 && mode >= .high ? startedAt : nil
            $0.awaitedDownFor = $0.stoppedAt.map { startedAt - $0 } ?? 0
            $0.stoppedAt = nil
        }
        let fixInterval = self.fixInterval
        let sink = SourceEventSink { [state, ledger] event in
            if case .location(let location, _) = event {
                let at = now()
                let fix = RecordedFix(at: at, horizontalAccuracy: location.horizontalAccuracy)
                state.withLockedValue {
                    $0.fixes.append(fix)
                    if let since = $0.awaitingFirstFixSince {
                        // Left running, the receiver would have given its next epoch at or after the start.
                        let running = fixInterval.map { interval in (since + interval - 1) / interval * interval } ?? since
                        $0.restarts.append(RestartDelay(delay: at - since, downFor: $0.awaitedDownFor, added: max(0, at - running)))
                        $0.awaitingFirstFixSince = nil
                    }
                }
                ledger.fixLeftSource()
            }
            events.send(event)
        }
        base.start(mode: mode, events: sink)
    }

    func setMode(_ mode: PowerMode) {
        catchUp?()
        record(mode)
        // Down to a duty-cycled mode before the first fix: the request that waited for it is gone, and the next
        // fix waits for the mode (and for satellites again after it): not the restart's delay.
        if mode < .high { state.withLockedValue { $0.awaitingFirstFixSince = nil } }
        base.setMode(mode)
    }

    func stop() {
        catchUp?()
        let at = now()
        state.withLockedValue {
            $0.awaitingFirstFixSince = nil
            if $0.stoppedAt == nil { $0.stoppedAt = at }
        }
        record(nil)
        base.stop()
    }

    func stop(into idle: ReceiverPowerProfile.IdleState) {
        catchUp?()
        // A deeper step of an idle receiver changes no mode: only the first step is a stop.
        if currentMode != nil { record(nil) }
        let at = now()
        state.withLockedValue {
            $0.awaitingFirstFixSince = nil
            if $0.stoppedAt == nil { $0.stoppedAt = at }
        }
        base.stop(into: idle)
    }

    /// Every start into best or high but the first: its first-fix delay, how long the receiver was down and the
    /// delay the power-down added.
    var restarts: [RestartDelay] { state.withLockedValue { $0.restarts } }

    private func record(_ mode: PowerMode?) {
        let time = now()
        state.withLockedValue { $0.modeChanges.append((time, mode)) }
    }

    var fixes: [RecordedFix] { state.withLockedValue { $0.fixes } }
    var modeChanges: [(at: Int64, mode: PowerMode?)] { state.withLockedValue { $0.modeChanges } }
    /// The source's mode now, `nil` when off.
    var currentMode: PowerMode? { state.withLockedValue { $0.modeChanges.last?.mode ?? nil } }

    /// The stretches the source spent in each mode (a level is a mode's raw value), up to `end`.
    func segments(until end: Int64) -> [Demand] {
        let changes = modeChanges
        return changes.indices.compactMap { index in
            guard let mode = changes[index].mode else { return nil }
            let until = index + 1 < changes.count ? changes[index + 1].at : end
            return Demand(TimelineInterval(start: changes[index].at, end: until), level: mode.rawValue)
        }
    }

    /// Time spent in each mode up to `end`.
    func timeInModes(until end: Int64) -> [PowerMode: Int64] {
        segments(until: end).reduce(into: [:]) { $0[PowerMode(rawValue: $1.level)!, default: 0] += $1.interval.length }
    }
}

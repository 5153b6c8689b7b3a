import NIOConcurrencyHelpers

/// The engine's one timer. Its lifetime is ``run(fire:)``, a child task of the engine's `run()`.
///
/// A *sleeper* child sleeps until the armed instant, calls `fire`, then waits for the next instant
/// and sleeps again: firing costs one wake-up of one task, as a timer should, and arming a later
/// instant — what expiring deadlines one after another does — costs a store. A sleep cannot be
/// shortened, so an instant earlier than the one being slept towards ends that sleeper (the run itself
/// waits for exactly that, and cancels it) and a new sleeper starts towards it.
///
/// Hand-written because `Clock.sleep` is the only timer a generic `Clock` offers (the engine runs on
/// a manual clock in tests), and swift-async-algorithms' timer sequence ticks at a fixed interval.
final class WakeTimer<C: Clock>: Sendable where C.Duration == Duration {
    private typealias State = WakeTimerState
    private typealias Wake = WakeTimerWake

    private let state = NIOLockedValueBox(State())
    private let clock: C
    private let epoch: C.Instant

    /// A timer on `clock`, whose instants count from `epoch`.
    init(clock: C, epoch: C.Instant) {
        self.clock = clock
        self.epoch = epoch
    }

    /// Makes the timer fire at `instant` (once), or disarms it (`nil`).
    func arm(_ instant: EngineInstant?) {
        let wake: Wake = state.withLockedValue { state in
            state.target = instant
            guard let instant else { return .none }
            if let sleeper = state.idleSleeper {
                state.idleSleeper = nil
                state.sleepingUntil = instant
                return .sleeper(sleeper, instant)
            }
            if let until = state.sleepingUntil, instant < until, let interrupter = state.interrupter {
                state.interrupter = nil
                state.sleepingUntil = nil
                return .interrupter(interrupter)
            }
            return .none
        }
        switch wake {
        case .none: break
        case .sleeper(let sleeper, let instant): sleeper.resume(returning: instant)
        case .interrupter(let interrupter): interrupter.resume()
        }
    }

    /// Ends ``run(fire:)``: nothing fires after this returns but a `fire` already under way.
    func stop() {
        let (sleeper, interrupter) = state.withLockedValue { state in
            state.isStopped = true
            state.target = nil
            defer {
                state.idleSleeper = nil
                state.interrupter = nil
            }
            return (state.idleSleeper, state.interrupter)
        }
        sleeper?.resume(returning: nil)
        interrupter?.resume()
    }

    /// The timer's lifetime: fires at each armed instant until ``stop()`` (or until cancelled).
    func run(fire: @escaping @Sendable () -> Void) async {
        while !state.withLockedValue({ $0.isStopped }), !Task.isCancelled {
            // One generation: a sleeper, until an earlier instant is armed (or the timer stops). The run
            // itself waits for that instant: replacing a sleeper resumes the run, the old sleeper as it
            // ends, the run once it has, and the new sleeper — four jobs, where a second child waiting for
            // the instant and the group's `next()` took two more.
            await withTaskGroup(of: Void.self) { group in
                group.addTask { await self.sleeper(fire: fire) }
                await waitForEarlierInstant()
                group.cancelAll()
            }
        }
    }

    /// Sleeps towards each armed instant in turn and fires at it; returns when cancelled or stopped.
    private func sleeper(fire: () -> Void) async {
        while let target = await nextTarget() {
            do {
                // Zero tolerance: with `nil`, the Dispatch-based executor on Linux applies its default
                // leeway (about 10 % of the interval), which made timeouts fire tens of ms late.
                try await clock.sleep(until: epoch.advanced(by: target.sinceEpoch), tolerance: .zero)
            } catch {
                return  // an earlier instant replaced this sleeper, or the timer stopped
            }
            let fires = state.withLockedValue { state in
                state.sleepingUntil = nil
                guard !state.isStopped, let armed = state.target, armed <= target else { return false }
                state.target = nil
                return true
            }
            if fires { fire() }
        }
    }

    /// The armed instant to sleep towards, waiting for one if none is; `nil` when the timer stopped or
    /// the sleeper was cancelled.
    private func nextTarget() async -> EngineInstant? {
        await withTaskCancellationHandler {
            await withUnsafeContinuation { (continuation: UnsafeContinuation<EngineInstant?, Never>) in
                let now: EngineInstant?? = state.withLockedValue { state in
                    // Cancellation is flagged before its handler runs, so checking it under the lock
                    // leaves no moment in which the handler could miss the continuation.
                    if state.isStopped || Task.isCancelled { return .some(nil) }
                    if let target = state.target {
                        state.sleepingUntil = target
                        return .some(target)
                    }
                    state.idleSleeper = continuation
                    return .none
                }
                if let now { continuation.resume(returning: now) }
            }
        } onCancel: {
            let sleeper = state.withLockedValue { state in
                defer { state.idleSleeper = nil }
                return state.idleSleeper
            }
            sleeper?.resume(returning: nil)
        }
    }

    /// Returns when an instant earlier than the one being slept towards is armed, when the timer
    /// stops, or when cancelled.
    private func waitForEarlierInstant() async {
        await withTaskCancellationHandler {
            await withUnsafeContinuation { (continuation: UnsafeContinuation<Void, Never>) in
                let resumeNow = state.withLockedValue { state in
                    if state.isStopped || Task.isCancelled { return true }
                    if let until = state.sleepingUntil, let target = state.target, target < until {
                        // This generation ends: the next sleeper says what it sleeps towards. Left set, it
                        // would end the next generation too before its sleeper could start.
                        state.sleepingUntil = nil
                        return true
                    }
                    state.interrupter = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            let interrupter = state.withLockedValue { state in
                defer { state.interrupter = nil }
                return state.interrupter
            }
            interrupter?.resume()
        }
    }
}

/// What a `WakeTimer` knows, under its lock. Outside the generic timer, so that where the engine's code is
/// not specialized for its clock the lock's type is known without a lookup of generic metadata on each
/// `arm(_:)` (about 2 % of a `locbench` run in a profile).
private struct WakeTimerState {
    /// The instant to fire at next, if armed (cleared when it fires).
    var target: EngineInstant?
    /// The instant the sleeper sleeps towards, while it sleeps.
    var sleepingUntil: EngineInstant?
    /// The sleeper waiting for an instant to be armed.
    var idleSleeper: UnsafeContinuation<EngineInstant?, Never>?
    /// The interrupter waiting for an instant earlier than `sleepingUntil`.
    var interrupter: UnsafeContinuation<Void, Never>?
    var isStopped = false
}

/// Whom a `WakeTimer`'s `arm(_:)` wakes (outside the generic timer, as its state is).
private enum WakeTimerWake {
    case none
    /// The idle sleeper, to sleep towards this instant.
    case sleeper(UnsafeContinuation<EngineInstant?, Never>, EngineInstant)
    /// The interrupter: the instant is earlier than the sleep in progress.
    case interrupter(UnsafeContinuation<Void, Never>)
}

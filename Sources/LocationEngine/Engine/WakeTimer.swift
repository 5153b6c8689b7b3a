import NIOConcurrencyHelpers

/// The engine's one timer: a long-lived task that sleeps until the armed instant, calls `fire`, and
/// then sleeps towards the next instant armed (or parks until one is). Arming a later instant — what
/// expiring deadlines one after another does — costs no new task and no cancellation. Only an instant
/// earlier than the one the task already sleeps towards replaces the task, since a sleep cannot be
/// shortened; the replaced task finds its generation outdated and ends without firing.
///
/// Hand-written because `Clock.sleep` is the only timer a generic `Clock` offers (the engine runs on
/// a manual clock in tests), and swift-async-algorithms' timer sequence ticks at a fixed interval.
final class WakeTimer<C: Clock>: Sendable where C.Duration == Duration {
    private struct State {
        /// The instant to fire at next, if armed (cleared when it fires).
        var target: EngineInstant?
        /// The instant the task sleeps towards, while it sleeps.
        var sleepingUntil: EngineInstant?
        /// The task, parked here when nothing is armed.
        var parked: UnsafeContinuation<EngineInstant?, Never>?
        var task: Task<Void, Never>?
        /// Increased whenever a task is replaced: an outdated task ends quietly.
        var generation: UInt64 = 0
        var isStopped = false
    }

    private let state = NIOLockedValueBox(State())
    private let clock: C
    private let epoch: C.Instant
    private let fire: @Sendable () -> Void

    /// A timer on `clock`, whose instants count from `epoch`, calling `fire` (on the timer's task).
    init(clock: C, epoch: C.Instant, fire: @escaping @Sendable () -> Void) {
        self.clock = clock
        self.epoch = epoch
        self.fire = fire
    }

    /// Makes the timer fire at `instant` (once), or disarms it (`nil`).
    func arm(_ instant: EngineInstant?) {
        let step: ArmStep = state.withLockedValue { state in
            guard !state.isStopped else { return .none }
            state.target = instant
            guard let instant else { return .none }
            if let parked = state.parked {
                state.parked = nil
                state.sleepingUntil = instant
                return .resume(parked, instant)
            }
            // A running task picks the target up when it wakes (or is about to park and will see it).
            if state.task != nil, state.sleepingUntil.map({ $0 <= instant }) ?? true { return .none }
            state.generation &+= 1
            let generation = state.generation
            let replaced = state.task
            state.sleepingUntil = instant
            state.task = Task { await self.run(generation: generation, first: instant) }
            return .replaced(replaced)
        }
        switch step {
        case .none: break
        case .resume(let continuation, let instant): continuation.resume(returning: instant)
        case .replaced(let task): task?.cancel()
        }
    }

    /// What an arm does after leaving the lock.
    private enum ArmStep {
        case none
        case resume(UnsafeContinuation<EngineInstant?, Never>, EngineInstant)
        case replaced(Task<Void, Never>?)
    }

    /// Ends the timer for good: nothing fires after this returns.
    func stop() {
        let (parked, task) = state.withLockedValue { state in
            state.isStopped = true
            state.target = nil
            defer { state.parked = nil; state.task = nil }
            return (state.parked, state.task)
        }
        parked?.resume(returning: nil)
        task?.cancel()
    }

    private func run(generation: UInt64, first: EngineInstant) async {
        var until = first
        while true {
            do {
                // Zero tolerance: with `nil`, the Dispatch-based executor on Linux applies its default
                // leeway (about 10 % of the interval), which made timeouts fire tens of ms late.
                try await clock.sleep(until: epoch.advanced(by: until.sinceEpoch), tolerance: .zero)
            } catch {
                return  // replaced or stopped
            }
            let fires: Bool? = state.withLockedValue { state in
                guard state.generation == generation, !state.isStopped else { return nil }
                state.sleepingUntil = nil
                guard let target = state.target, target <= until else { return false }
                state.target = nil
                return true
            }
            guard let fires else { return }
            if fires { fire() }
            let next: EngineInstant? = await withUnsafeContinuation { continuation in
                let resumeWith: EngineInstant?? = state.withLockedValue { state in
                    guard state.generation == generation, !state.isStopped else { return .some(nil) }
                    if let target = state.target {
                        state.sleepingUntil = target
                        return .some(target)
                    }
                    state.parked = continuation
                    return .none
                }
                if let resumeWith { continuation.resume(returning: resumeWith) }
            }
            guard let next else { return }
            until = next
        }
    }
}

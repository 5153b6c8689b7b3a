import NIOConcurrencyHelpers

/// The engine's one timer. Its lifetime is ``run(fire:)``, a child task of the engine's `run()`: it
/// sleeps until the armed instant, calls `fire`, and then sleeps towards the next instant armed (or
/// waits until one is). Arming a later instant — what expiring deadlines one after another does —
/// costs nothing but a store; an instant earlier than the one it sleeps towards cuts the sleep short,
/// since a sleep cannot be shortened.
///
/// Hand-written because `Clock.sleep` is the only timer a generic `Clock` offers (the engine runs on
/// a manual clock in tests), and swift-async-algorithms' timer sequence ticks at a fixed interval.
final class WakeTimer<C: Clock>: Sendable where C.Duration == Duration {
    private struct State {
        /// The instant to fire at next, if armed (cleared when it fires).
        var target: EngineInstant?
        /// ``run(fire:)`` waiting for an instant to be armed (`limit` nil), or for one earlier than
        /// `limit` while it sleeps towards `limit`.
        var waiter: UnsafeContinuation<Void, Never>?
        var limit: EngineInstant?
        var isStopped = false
    }

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
        let waiter: UnsafeContinuation<Void, Never>? = state.withLockedValue { state in
            state.target = instant
            guard let instant, state.waiter != nil, state.limit.map({ instant < $0 }) ?? true else { return nil }
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume()
    }

    /// Ends ``run(fire:)``: nothing fires after this returns.
    func stop() {
        let waiter = state.withLockedValue { state in
            state.isStopped = true
            state.target = nil
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume()
    }

    /// The timer's lifetime: fires at each armed instant until ``stop()``.
    func run(fire: () -> Void) async {
        while true {
            let target: EngineInstant?? = state.withLockedValue { $0.isStopped ? .none : .some($0.target) }
            guard let target else { return }
            guard let target else {
                await waitForArm(earlierThan: nil)
                continue
            }
            guard await sleep(until: target) else { continue }
            let fires = state.withLockedValue { state in
                guard !state.isStopped, let armed = state.target, armed <= target else { return false }
                state.target = nil
                return true
            }
            if fires { fire() }
        }
    }

    /// Sleeps until `instant`, unless an earlier instant is armed (or the timer stops) first. Returns
    /// whether the sleep ran its course.
    private func sleep(until instant: EngineInstant) async -> Bool {
        await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                // Zero tolerance: with `nil`, the Dispatch-based executor on Linux applies its default
                // leeway (about 10 % of the interval), which made timeouts fire tens of ms late.
                (try? await self.clock.sleep(until: self.epoch.advanced(by: instant.sinceEpoch), tolerance: .zero)) != nil
            }
            group.addTask {
                await self.waitForArm(earlierThan: instant)
                return false
            }
            let ranItsCourse = await group.next() ?? false
            group.cancelAll()
            return ranItsCourse
        }
    }

    /// Waits until an instant is armed (earlier than `limit`, if given), the timer stops, or the
    /// calling task is cancelled.
    private func waitForArm(earlierThan limit: EngineInstant?) async {
        await withTaskCancellationHandler {
            await withUnsafeContinuation { (continuation: UnsafeContinuation<Void, Never>) in
                let resumeNow = state.withLockedValue { state in
                    // Cancellation is flagged before its handler runs, so checking it under the lock
                    // leaves no moment in which the handler could miss the waiter.
                    if state.isStopped || Task.isCancelled { return true }
                    if let target = state.target, limit.map({ target < $0 }) ?? true { return true }
                    state.waiter = continuation
                    state.limit = limit
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            let waiter = state.withLockedValue { state in
                defer { state.waiter = nil }
                return state.waiter
            }
            waiter?.resume()
        }
    }
}

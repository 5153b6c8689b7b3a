import Atomics
import DequeModule
import NIOConcurrencyHelpers

/// The lock-light front door of the engine: callers on any thread append commands under a lock
/// (`NIOLockedValueBox`, visible to ThreadSanitizer) held for one `Deque` append, and get their
/// ``RequestID`` at once; the engine's loop takes whole batches (one lock acquisition per batch).
///
/// The inbox also parks and wakes the loop: a loop with nothing to do parks here, and the append that
/// finds it parked (or a timer firing) resumes it, so a burst of N submissions costs one wake-up. When
/// no loop runs at all, the append that finds the inbox idle tells its caller to start one.
///
/// Cancels and force-completes (withdrawals) wait in a lane of their own, behind an atomic count the
/// loop checks before each command and after each handler it runs: they reach the core ahead of the
/// commands queued with them (the core applies a withdrawal of a request not submitted yet when that
/// request arrives), so that a handler that cancels another request of the same delivery is honoured at once.
final class Inbox: Sendable {
    /// Whether the engine's loop runs, and where it waits.
    enum Loop {
        /// No loop runs: the next append starts one.
        case stopped
        /// A loop runs and will look at the inbox before parking.
        case running
        /// The loop waits for a command or a timer.
        case parked(UnsafeContinuation<Void, Never>)
    }

    /// What an append asks its caller to do after leaving the lock.
    enum Wake {
        case none
        case start
        case resume(UnsafeContinuation<Void, Never>)
    }

    struct State {
        var commands = Deque<EngineCommand>()
        var loop = Loop.stopped
        /// A timer fired while the loop was running: it must not park before looking at the time.
        var timerFired = false
        var nextID: UInt64 = 1
        /// Withdrawals appended since the loop last took them.
        var withdrawals: [(RequestID, Withdrawal)] = []
        /// Callers of `shutdown()` waiting for the loop to stop after shutting down.
        var stopWaiters: [UnsafeContinuation<Void, Never>] = []
        var isStoppedForGood = false
    }

    private let state = NIOLockedValueBox(State())
    /// How many withdrawals wait in their lane (the loop's cheap "anything new?" test); changed under the lock.
    private let withdrawalCount = ManagedAtomic<Int>(0)

    init() {}

    /// Appends the command `make` builds for a fresh ID. IDs increase in inbox order.
    /// - Complexity: amortised O(1)
    @inline(__always)
    func append(_ make: (RequestID) -> EngineCommand) -> (RequestID, Wake) {
        state.withLockedValue { state in
            let id = RequestID(rawValue: state.nextID)
            state.nextID += 1
            state.commands.append(make(id))
            return (id, Self.wake(&state))
        }
    }

    /// Appends a command that needs no ID.
    @inline(__always)
    func append(_ command: EngineCommand) -> Wake {
        state.withLockedValue { state in
            state.commands.append(command)
            return Self.wake(&state)
        }
    }

    /// Appends a cancel or force-complete to the withdrawals' lane.
    func appendWithdrawal(_ id: RequestID, _ withdrawal: Withdrawal) -> Wake {
        state.withLockedValue { state in
            state.withdrawals.append((id, withdrawal))
            withdrawalCount.wrappingIncrement(ordering: .releasing)
            return Self.wake(&state)
        }
    }

    @inline(__always)
    private static func wake(_ state: inout State) -> Wake {
        switch state.loop {
        case .running: return .none
        case .stopped:
            state.loop = .running
            return .start
        case .parked(let continuation):
            state.loop = .running
            return .resume(continuation)
        }
    }

    /// A timer fired: wakes the loop, or tells a running loop not to park before it looks at the time.
    func timerFired() -> Wake {
        state.withLockedValue { state in
            if case .running = state.loop { state.timerFired = true }
            return Self.wake(&state)
        }
    }

    /// Takes every queued command into `batch`, which must be empty. The inbox keeps the buffer it is
    /// handed, emptied, to fill next: in a steady state the buffers trade places and no batch allocates
    /// or grows.
    /// - Complexity: O(1)
    func takeAll(into batch: inout Deque<EngineCommand>) {
        assert(batch.isEmpty, "takeAll(into:) needs an empty batch")
        state.withLockedValue { state in
            state.timerFired = false
            swap(&state.commands, &batch)
        }
    }

    /// Whether withdrawals wait in their lane.
    @inline(__always)
    var hasWithdrawals: Bool { withdrawalCount.load(ordering: .acquiring) != 0 }

    /// Takes the waiting withdrawals into `withdrawals`, which must be empty (buffers trade places as
    /// in ``takeAll(into:)``).
    /// - Complexity: O(1)
    func takeWithdrawals(into withdrawals: inout [(RequestID, Withdrawal)]) {
        assert(withdrawals.isEmpty, "takeWithdrawals(into:) needs an empty buffer")
        state.withLockedValue { state in
            swap(&state.withdrawals, &withdrawals)
            withdrawalCount.store(0, ordering: .releasing)
        }
    }

    /// Lets ``LocationEngine/run()`` run the loop itself; fails when a loop already runs.
    func claimLoop() -> Bool {
        state.withLockedValue { state in
            guard case .stopped = state.loop else { return false }
            state.loop = .running
            return true
        }
    }

    /// Parks the loop until a command or a timer arrives; returns at once if one already has.
    func park() async {
        await withUnsafeContinuation { (continuation: UnsafeContinuation<Void, Never>) in
            let parked = state.withLockedValue { state in
                guard state.commands.isEmpty, state.withdrawals.isEmpty, !state.timerFired else { return false }
                state.loop = .parked(continuation)
                return true
            }
            if !parked { continuation.resume() }
        }
    }

    /// The loop stops because it has nothing to do; fails (the loop must go on) if a command arrived.
    /// After a shutdown, the stop wakes every `shutdown()` caller.
    func stopIfIdle(shutDown: Bool) -> Bool {
        let waiters: [UnsafeContinuation<Void, Never>]? = state.withLockedValue { state in
            guard state.commands.isEmpty, state.withdrawals.isEmpty, !state.timerFired else { return nil }
            state.loop = .stopped
            if shutDown { state.isStoppedForGood = true }
            return shutDown ? replace(&state.stopWaiters, with: []) : []
        }
        guard let waiters else { return false }
        for waiter in waiters { waiter.resume() }
        return true
    }

    /// Waits until the loop has stopped after a shutdown.
    func waitUntilStoppedForGood() async {
        await withUnsafeContinuation { (continuation: UnsafeContinuation<Void, Never>) in
            let stopped = state.withLockedValue { state in
                if state.isStoppedForGood { return true }
                state.stopWaiters.append(continuation)
                return false
            }
            if stopped { continuation.resume() }
        }
    }
}

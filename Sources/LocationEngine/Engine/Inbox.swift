import Atomics
import DequeModule
import NIOConcurrencyHelpers

/// The lock-light front door of the engine: callers on any thread append commands under a lock
/// (`NIOLockedValueBox`, visible to ThreadSanitizer) held for one `Deque` append, and get their
/// ``RequestID`` at once; the engine's loop takes whole batches (one lock acquisition per batch).
///
/// The inbox also parks and wakes the loop that ``LocationEngine/run()`` runs: a loop with nothing to
/// do parks here, and the append that finds it parked (or a timer firing) resumes it, so a burst of N
/// submissions costs one wake-up. Once the engine has shut down the inbox is closed: an append is
/// refused, and its caller ends the request at once.
///
/// Cancels and force-completes (withdrawals) wait in a lane of their own, behind an atomic count the
/// loop checks before each command and after each handler it runs: they reach the core ahead of the
/// submissions queued with them (the core applies a withdrawal of a request not submitted yet when that
/// request arrives), so that a handler that cancels another request of the same delivery is honoured at
/// once. They never overtake a *barrier* — a command that can decide how pending requests end (an
/// authorization change, the end of a session, a location-button press, shutdown): each withdrawal
/// carries how many barriers were appended before it, and the loop holds it back until it has
/// processed that many. Calls from one caller so take effect in the order they were made.
final class Inbox: Sendable {
    /// What an append asks its caller to do after leaving the lock.
    enum Wake {
        /// Nothing: the loop will look at the inbox before it parks (or no loop runs: `sync()` or
        /// `run()` will).
        case none
        /// Resume the parked loop.
        case resume(UnsafeContinuation<Void, Never>)
        /// The engine has shut down: end the request at once.
        case refused
    }

    struct State {
        var commands = Deque<EngineCommand>()
        /// The loop, while it waits for a command or a timer.
        var parked: UnsafeContinuation<Void, Never>?
        /// A timer fired while the loop was running: it must not park before looking at the time.
        var timerFired = false
        /// The next request's ID (its raw value: the engine's number, then the request's).
        var nextID: UInt64
        /// Withdrawals appended since the loop last took them.
        var withdrawals = Deque<PendingWithdrawal>()
        /// Barrier commands appended so far (see ``EngineCommand/isBarrier``).
        var barriers: UInt64 = 0
        /// The instants the authorization changes among `commands` are due at, in their order.
        var authorizationDues = Deque<EngineInstant>()
        /// The engine has shut down with this authorization picture: commands are refused.
        var closedWith: AuthorizationState?
        /// The shutdown's endings have been handed out: withdrawals are refused too. (Until then a handler's
        /// cancel or force-complete still reaches the core, before the next recipient.)
        var withdrawalsClosed = false
    }

    private let state: NIOLockedValueBox<State>
    /// Times the loop parked (each ends in one wake-up: a command or the timer). Counted, not timed: the hand-offs
    /// between callers and the loop, a figure the code decides rather than the machine's load.
    let parks = ManagedAtomic<Int>(0)
    /// How many withdrawals wait in their lane (the loop's cheap "anything new?" test); changed under the lock.
    private let withdrawalCount = ManagedAtomic<Int>(0)
    /// How many authorization changes wait, not yet taken (the loop's cheap test); changed under the lock.
    private let authorizationCount = ManagedAtomic<Int>(0)

    /// The number that tags the IDs this inbox hands out (``RequestID/engine``).
    let engine: UInt64

    /// An inbox for the next engine made in the process.
    init() {
        engine = Self.enginesMade.loadThenWrappingIncrement(ordering: .relaxed) % RequestID.engineNumbers
        state = NIOLockedValueBox(State(nextID: RequestID(engine: engine, sequence: 1).rawValue))
    }

    /// Engines made in the process so far: each one's IDs carry its number, so that no engine mistakes another's.
    private static let enginesMade = ManagedAtomic<UInt64>(0)

    /// Appends the command `make` builds for a fresh ID. IDs increase in inbox order.
    /// - Complexity: amortised O(1)
    /// When the inbox is closed, the command is handed back (`refused`) instead.
    @inline(__always)
    func append(_ make: (RequestID) -> EngineCommand) -> (RequestID, Wake, refused: (EngineCommand, AuthorizationState)?) {
        state.withLockedValue { state in
            let id = RequestID(rawValue: state.nextID)
            state.nextID += 1
            if let picture = state.closedWith { return (id, .refused, (make(id), picture)) }
            state.commands.append(make(id))
            return (id, Self.wake(&state), nil)
        }
    }

    /// Requests refused once the engine had shut down (each ended ``LocationStatus/shutDown`` on its caller's
    /// thread, never reaching the core): one-shots, and subscriptions with region monitors, for the engine's
    /// statistics. Counted off the inbox's lock, on the refused path only.
    let refusedOneShots = ManagedAtomic<Int>(0)
    let refusedSubscriptions = ManagedAtomic<Int>(0)

    /// Counts `command`, refused once the engine had shut down, if it made a request.
    func countRefused(_ command: EngineCommand) {
        switch command.requestKind {
        case .oneShot?: refusedOneShots.wrappingIncrement(ordering: .relaxed)
        case .subscription?: refusedSubscriptions.wrappingIncrement(ordering: .relaxed)
        case nil: break
        }
    }

    /// Appends a command that needs no ID (dropped when the inbox is closed).
    @inline(__always)
    func append(_ command: EngineCommand) -> Wake {
        state.withLockedValue { state in
            guard state.closedWith == nil else { return .refused }
            if command.isBarrier { state.barriers &+= 1 }
            if case .authorization(_, let due, _) = command {
                state.authorizationDues.append(due)
                authorizationCount.wrappingIncrement(ordering: .releasing)
            }
            state.commands.append(command)
            return Self.wake(&state)
        }
    }

    /// Appends a cancel or force-complete to the withdrawals' lane. An ID this inbox has not handed out (not yet,
    /// or another engine's, which carries another number) names no request: nothing is appended, so it cannot end
    /// the request that gets that ID later, nor one of this engine's with the same number.
    func appendWithdrawal(_ id: RequestID, _ withdrawal: Withdrawal) -> Wake {
        state.withLockedValue { state in
            guard id.engine == engine, id.rawValue < state.nextID else { return .none }
            guard !state.withdrawalsClosed else { return .refused }
            state.withdrawals.append(PendingWithdrawal(id: id, withdrawal: withdrawal, afterBarriers: state.barriers))
            withdrawalCount.wrappingIncrement(ordering: .releasing)
            return Self.wake(&state)
        }
    }

    @inline(__always)
    private static func wake(_ state: inout State) -> Wake {
        guard let parked = state.parked else { return .none }
        state.parked = nil
        return .resume(parked)
    }

    /// A timer fired: wakes the loop, or tells a loop that is not parked not to park before it looks
    /// at the time.
    func timerFired() -> Wake {
        state.withLockedValue { state in
            if state.parked == nil { state.timerFired = true }
            return Self.wake(&state)
        }
    }

    /// The shutdown's endings have been handed out: later withdrawals are refused (every request has ended).
    func closeWithdrawals() {
        state.withLockedValue { $0.withdrawalsClosed = true }
    }

    /// The engine has shut down with this authorization picture: later commands are refused (withdrawals once
    /// ``closeWithdrawals()`` is called), and a parked loop wakes to see it.
    func close(finalAuthorization picture: AuthorizationState) -> Wake {
        state.withLockedValue { state in
            state.closedWith = picture
            return Self.wake(&state)
        }
    }

    /// Takes every queued command into `batch`, which must be empty. The inbox keeps the buffer it is
    /// handed, emptied, to fill next: in a steady state the buffers trade places and no batch allocates
    /// or grows.
    /// - Complexity: O(1)
    func takeAll(into batch: inout Deque<EngineCommand>, authorizationDues: inout Deque<EngineInstant>) {
        assert(batch.isEmpty, "takeAll(into:) needs an empty batch")
        state.withLockedValue { state in
            state.timerFired = false
            swap(&state.commands, &batch)
            guard !state.authorizationDues.isEmpty else { return }
            authorizationDues.append(contentsOf: state.authorizationDues)
            authorizationCount.wrappingDecrement(by: state.authorizationDues.count, ordering: .releasing)
            state.authorizationDues.removeAll(keepingCapacity: true)
        }
    }

    /// The earliest instant an authorization change not yet taken is due at (`nil`: none waits). The loop
    /// passes no time beyond it before it has handed the change to the core, which applies it at that instant.
    /// - Complexity: O(k) for the k changes not yet taken (a handful at most: each is a user's or a provider's).
    var earliestAuthorizationDue: EngineInstant? {
        guard authorizationCount.load(ordering: .acquiring) != 0 else { return nil }
        return state.withLockedValue { state in state.authorizationDues.min() }
    }

    /// Whether withdrawals wait in their lane.
    @inline(__always)
    var hasWithdrawals: Bool { withdrawalCount.load(ordering: .acquiring) != 0 }

    /// Takes the waiting withdrawals into `withdrawals`, which must be empty (buffers trade places as
    /// in ``takeAll(into:)``).
    /// - Complexity: O(1)
    func takeWithdrawals(into withdrawals: inout Deque<PendingWithdrawal>) {
        assert(withdrawals.isEmpty, "takeWithdrawals(into:) needs an empty buffer")
        state.withLockedValue { state in
            swap(&state.withdrawals, &withdrawals)
            withdrawalCount.store(0, ordering: .releasing)
        }
    }

    /// Parks the loop until a command or a timer arrives; returns at once if one already has.
    ///
    /// It runs where its caller runs (`isolation`: the engine's actor, for its loop): a nonisolated async
    /// method would hop off the actor to the generic executor and back around every park, a task
    /// resumption more for each wake-up.
    func park(isolation: isolated (any Actor)? = #isolation) async {
        await withUnsafeContinuation { (continuation: UnsafeContinuation<Void, Never>) in
            let parked = state.withLockedValue { state in
                guard state.commands.isEmpty, state.withdrawals.isEmpty, !state.timerFired, state.closedWith == nil else { return false }
                state.parked = continuation
                return true
            }
            if parked { parks.wrappingIncrement(ordering: .relaxed) } else { continuation.resume() }
        }
    }
}

/// A cancel or force-complete waiting to reach the core, with how many barrier commands were appended
/// before it: it reaches the core only once the loop has processed that many.
struct PendingWithdrawal: Sendable {
    var id: RequestID
    var withdrawal: Withdrawal
    var afterBarriers: UInt64
}

extension Inbox {
    /// Appends a command and wakes the loop if it was parked (dropped once the engine has shut down).
    @inline(__always)
    func send(_ command: EngineCommand) { append(command).carryOut() }
}

extension Inbox.Wake {
    /// Does what an append asked once its lock is left: nothing, or resume the parked loop.
    @inline(__always)
    func carryOut() {
        if case .resume(let continuation) = self { continuation.resume() }
    }
}

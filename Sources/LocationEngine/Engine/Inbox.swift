import DequeModule
import NIOConcurrencyHelpers

/// One thing submitted to the engine from outside its isolation.
enum EngineCommand: Sendable {
    case oneShot(RequestID, LocationAccuracy, timeout: Duration?, delayUntilAuthorized: Bool, OneShotHandler)
    /// A one-shot naming a purpose key (rare, so kept out of line to keep every command small).
    indirect case oneShotWithPurposeKey(
        RequestID, LocationAccuracy, timeout: Duration?, delayUntilAuthorized: Bool, purposeKey: String, OneShotHandler)
    case subscribe(RequestID, SubscriptionOptions, SubscriptionHandler)
    case cancel(RequestID)
    case forceComplete(RequestID)
    case source(generation: UInt64, SourceEvent)
    /// A new authorization picture, effective at `due`; `prompt` when it answers one of the engine's prompts.
    case authorization(AuthorizationState, due: EngineInstant, prompt: UInt64?)
    case endSession
    case locationButton
    case observeAuthorization(RequestID, AsyncStream<AuthorizationState>.Continuation)
    case stopObservingAuthorization(RequestID)
    case shutdown
}

/// The lock-light front door of the engine: callers on any thread append commands under a lock (`NIOLockedValueBox`)
/// held for one `Deque` append, and get their ``RequestID`` at once; the engine actor takes whole
/// batches (one lock acquisition per batch) and processes them in order. A drain task is scheduled
/// only when the inbox goes from idle to busy, so a burst of N submissions costs one task hop.
final class Inbox: Sendable {
    struct State {
        var commands = Deque<EngineCommand>()
        var drainScheduled = false
        var nextID: UInt64 = 1
    }

    private let state = NIOLockedValueBox(State())

    init() {}

    /// Appends the command `make` builds for a fresh ID. Returns the ID and whether the caller must
    /// schedule a drain. IDs increase in inbox order.
    /// - Complexity: amortised O(1)
    @inline(__always)
    func append(_ make: (RequestID) -> EngineCommand) -> (RequestID, scheduleDrain: Bool) {
        state.withLockedValue { state in
            let id = RequestID(rawValue: state.nextID)
            state.nextID += 1
            state.commands.append(make(id))
            if state.drainScheduled { return (id, false) }
            state.drainScheduled = true
            return (id, true)
        }
    }

    /// Appends a command that needs no ID. Returns whether the caller must schedule a drain.
    @inline(__always)
    func append(_ command: EngineCommand) -> Bool {
        state.withLockedValue { state in
            state.commands.append(command)
            if state.drainScheduled { return false }
            state.drainScheduled = true
            return true
        }
    }

    /// Takes every queued command; when there are none, marks the inbox idle so the next append
    /// schedules a drain.
    /// - Complexity: O(1)
    func takeAll() -> Deque<EngineCommand> {
        state.withLockedValue { state in
            if state.commands.isEmpty {
                state.drainScheduled = false
                return Deque()
            }
            return replace(&state.commands, with: Deque(minimumCapacity: 16))
        }
    }
}

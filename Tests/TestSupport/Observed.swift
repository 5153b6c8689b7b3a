import NIOConcurrencyHelpers

/// A value that changes as a test runs (what a fake server saw, what a subscription received), and that
/// a test can await a condition on without polling. Waiting ends when the task is cancelled too, so a
/// `withDeadline` guard around it fails the test instead of hanging it.
public final class Observed<Value: Sendable>: Sendable {
    private struct Waiter {
        var id: UInt64
        var predicate: @Sendable (Value) -> Bool
        var continuation: CheckedContinuation<Void, Never>
    }

    private struct State {
        var value: Value
        var waiters: [Waiter] = []
        var nextWaiter: UInt64 = 0
    }

    private let state: NIOLockedValueBox<State>

    public init(_ value: Value) {
        state = NIOLockedValueBox(State(value: value))
    }

    /// The value now.
    public var value: Value { state.withLockedValue { $0.value } }

    /// Changes the value and wakes the waiters whose condition now holds (outside the lock).
    public func update(_ change: (inout Value) -> Void) {
        let due = state.withLockedValue { state -> [CheckedContinuation<Void, Never>] in
            change(&state.value)
            let value = state.value
            var due: [CheckedContinuation<Void, Never>] = []
            state.waiters.removeAll { waiter in
                guard waiter.predicate(value) else { return false }
                due.append(waiter.continuation)
                return true
            }
            return due
        }
        for continuation in due { continuation.resume() }
    }

    /// Returns once `predicate` holds for the value (at once if it already does), or when the task is
    /// cancelled.
    public func waitUntil(_ predicate: @escaping @Sendable (Value) -> Bool) async {
        let id = state.withLockedValue { state in
            state.nextWaiter += 1
            return state.nextWaiter
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let ready = state.withLockedValue { state in
                    if predicate(state.value) || Task.isCancelled { return true }
                    state.waiters.append(Waiter(id: id, predicate: predicate, continuation: continuation))
                    return false
                }
                if ready { continuation.resume() }
            }
        } onCancel: {
            let waiter = state.withLockedValue { state -> CheckedContinuation<Void, Never>? in
                guard let index = state.waiters.firstIndex(where: { $0.id == id }) else { return nil }
                return state.waiters.remove(at: index).continuation
            }
            waiter?.resume()
        }
    }
}

import NIOConcurrencyHelpers

/// A one-shot request made with ``LocationEngine/locationRequest(accuracy:timeout:delayUntilAuthorized:purposeKey:)``:
/// its ID at once, its result when it ends.
public struct LocationRequest: Sendable {
    /// The request's ID, for ``LocationEngine/forceComplete(_:)`` and ``LocationEngine/cancel(_:)``.
    public let id: RequestID
    let slot: Slot
    let cancel: @Sendable () -> Void

    /// Waits for the request's one result (any number of callers may wait; all get the same).
    ///
    /// - Throws: `CancellationError` when the request was cancelled, or when the waiting task is
    ///   cancelled (which cancels the request).
    public func result() async throws -> LocationResult {
        try await withTaskCancellationHandler {
            try await slot.value()
        } onCancel: {
            cancel()
        }
    }

    /// Where the result lands: a small promise, written once by the engine's handler (or its
    /// cancellation), read by any number of waiters. Hand-written because the standard library has no
    /// multi-reader one-shot value that a synchronous callback can fulfil.
    final class Slot: Sendable {
        private enum State {
            case waiting([UnsafeContinuation<LocationResult, any Error>])
            case done(Result<LocationResult, any Error>)
        }

        private let state = NIOLockedValueBox(State.waiting([]))

        func fulfil(_ result: Result<LocationResult, any Error>) {
            let waiters: [UnsafeContinuation<LocationResult, any Error>] = state.withLockedValue { state in
                guard case .waiting(let waiters) = state else { return [] }
                state = .done(result)
                return waiters
            }
            for waiter in waiters { waiter.resume(with: result) }
        }

        func value() async throws -> LocationResult {
            try await withUnsafeThrowingContinuation { continuation in
                let done: Result<LocationResult, any Error>? = state.withLockedValue { state in
                    switch state {
                    case .waiting(var waiters):
                        waiters.append(continuation)
                        state = .waiting(waiters)
                        return nil
                    case .done(let result):
                        return result
                    }
                }
                if let done { continuation.resume(with: done) }
            }
        }
    }
}

/// How the engine delivers a one-shot's result: to a callback, or by resuming an awaiting task.
enum OneShotHandler: Sendable {
    case callback(@Sendable (LocationResult) -> Void)
    case continuation(CheckedContinuation<LocationResult, any Error>)

    /// Delivers the request's one result, stamped with its request ID.
    @inline(__always)
    func deliver(_ result: LocationResult, to id: RequestID) {
        var result = result
        result.requestID = id
        switch self {
        case .callback(let body): body(result)
        case .continuation(let continuation): continuation.resume(returning: result)
        }
    }

    /// The request was cancelled: a callback hears nothing; an awaiting task resumes with `CancellationError`.
    func cancelled() {
        if case .continuation(let continuation) = self { continuation.resume(throwing: CancellationError()) }
    }
}

/// How the engine delivers a subscription's events: to a callback, or into an async sequence.
enum SubscriptionHandler: Sendable {
    case callback(@Sendable (RequestID, SubscriptionEvent) -> Void)
    case stream(AsyncThrowingStream<SubscriptionEvent, any Error>.Continuation)

    /// Delivers one event; an `.ended` event finishes a sequence (throwing for abnormal ends).
    @inline(__always)
    func deliver(_ event: SubscriptionEvent, to id: RequestID) {
        switch self {
        case .callback(let body):
            body(id, event)
        case .stream(let continuation):
            guard case .ended(let end) = event else {
                continuation.yield(event)
                return
            }
            if let error = SubscriptionEndedError(end) {
                continuation.finish(throwing: error)
            } else {
                continuation.finish()
            }
        }
    }

    /// The subscription was cancelled: a callback hears nothing; a sequence finishes.
    func cancelled() {
        if case .stream(let continuation) = self { continuation.finish() }
    }
}

/// Thrown by a ``LocationUpdates`` sequence when its subscription ended abnormally (source failure,
/// authorization, reduced accuracy, misconfiguration, invalid options, heading unavailable, shutdown). Normal ends (maximum updates,
/// duration, force-complete, cancellation) just finish the sequence.
public struct SubscriptionEndedError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Why the subscription ended.
    public let reason: SubscriptionEnd

    /// Wraps an abnormal end; `nil` for a normal one.
    init?(_ reason: SubscriptionEnd) {
        switch reason {
        case .maximumUpdatesReached, .durationElapsed, .forceCompleted: return nil
        case .failed, .headingUnavailable, .unauthorized, .accuracyReduced, .misconfigured, .rejected, .shutDown:
            self.reason = reason
        }
    }

    public var description: String { "subscription ended: \(reason)" }
}

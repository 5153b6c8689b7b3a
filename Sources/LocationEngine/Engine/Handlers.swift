/// How the engine delivers a one-shot's result: to a callback, or by resuming an awaiting task.
///
/// Both payloads have a layout the compiler knows (a closure, and `UnsafeContinuation`, which is one
/// pointer), so copying, destroying or testing a handler is inline code. `CheckedContinuation` is a
/// resilient standard-library type: an enum holding it goes through the runtime's generic enum
/// functions on every copy, which made the engine's hot paths several times slower than its core.
/// The core ends every request exactly once, which is the one thing a checked continuation would check.
enum OneShotHandler: Sendable {
    case callback(@Sendable (LocationResult) -> Void)
    case continuation(UnsafeContinuation<LocationResult, any Error>)
    case request(LocationRequest.Slot)

    /// Delivers the request's one result, stamped with its request ID.
    @inline(__always)
    func deliver(_ result: LocationResult, to id: RequestID) {
        var result = result
        result.requestID = id
        switch self {
        case .callback(let body): body(result)
        case .continuation(let continuation): continuation.resume(returning: result)
        case .request(let slot): slot.fulfil(.success(result))
        }
    }

    /// The request was cancelled: a callback hears nothing; an awaiting task resumes with `CancellationError`.
    @inline(__always)
    func cancelled() {
        switch self {
        case .callback: break
        case .continuation(let continuation): continuation.resume(throwing: CancellationError())
        case .request(let slot): slot.fulfil(.failure(CancellationError()))
        }
    }
}

/// How the engine delivers a subscription's events: to a callback, or into an async sequence.
///
/// A class reference for the sequence's side (``UpdatesSink``) keeps the layout known to the compiler,
/// as for ``OneShotHandler``.
enum SubscriptionHandler: Sendable {
    case callback(@Sendable (RequestID, SubscriptionEvent) -> Void)
    case stream(UpdatesSink)

    /// Delivers one event; an `.ended` event finishes a sequence (throwing for abnormal ends).
    @inline(__always)
    func deliver(_ event: SubscriptionEvent, to id: RequestID) {
        switch self {
        case .callback(let body): body(id, event)
        case .stream(let sink): sink.deliver(event)
        }
    }

    /// The subscription was cancelled: a callback hears nothing; a sequence finishes.
    @inline(__always)
    func cancelled() {
        switch self {
        case .stream(let sink): sink.finish()
        case .callback: break
        }
    }
}

/// How the engine delivers a region monitor's events: to a callback, or into an async sequence of
/// transitions.
enum MonitorHandler: Sendable {
    case callback(@Sendable (RequestID, RegionEvent) -> Void)
    case stream(RegionSink)

    /// Delivers one event; an `.ended` event finishes a sequence (throwing for abnormal ends).
    func deliver(_ event: RegionEvent, to id: RequestID) {
        switch self {
        case .callback(let body): body(id, event)
        case .stream(let sink): sink.deliver(event)
        }
    }

    /// The monitor was cancelled: a callback hears nothing; a sequence finishes.
    func cancelled() {
        switch self {
        case .stream(let sink): sink.finish()
        case .callback: break
        }
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

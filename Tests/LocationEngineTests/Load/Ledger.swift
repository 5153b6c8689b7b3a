import LocationEngine
import NIOConcurrencyHelpers

/// What the load test knows about every request it made, and everything each one received.
final class Ledger: Sendable {
    struct Request {
        var isSubscription: Bool
        var accuracy: LocationAccuracy?
        var options: SubscriptionOptions?
        var timeout: Duration?
        var submittedAt: Duration
        /// False for a placeholder made by a cancel or force-complete that raced the submission (or named no request).
        var wasSubmitted = false
        var cancelIssued = false
        var forceCompleteIssued = false
        var finals: [(status: String, at: Duration)] = []
        var updates = 0
    }

    private let state = NIOLockedValueBox<(requests: [RequestID: Request], violations: [String])>(([:], []))

    func submitted(_ id: RequestID, _ request: Request) {
        var request = request
        request.wasSubmitted = true
        state.withLockedValue { state in
            // The request may already have ended (delivered before `submit` returned): merge.
            if let early = state.requests[id] {
                var merged = request
                merged.finals = early.finals
                merged.updates = early.updates
                merged.cancelIssued = early.cancelIssued
                merged.forceCompleteIssued = early.forceCompleteIssued
                state.requests[id] = merged
            } else {
                state.requests[id] = request
            }
        }
    }

    /// Marks a cancel as issued; the request may not be recorded yet (its submission is racing).
    func issuedCancel(_ id: RequestID) {
        state.withLockedValue { $0.requests[id, default: Request(isSubscription: false, submittedAt: .zero)].cancelIssued = true }
    }

    /// Marks a force-complete as issued.
    func issuedForceComplete(_ id: RequestID) {
        state.withLockedValue { $0.requests[id, default: Request(isSubscription: false, submittedAt: .zero)].forceCompleteIssued = true }
    }

    func violation(_ message: String) { state.withLockedValue { $0.violations.append(message) } }

    /// Records a one-shot's final result delivered at `now`, checking it against what was asked.
    func oneShotEnded(_ result: LocationResult, at now: Duration) {
        let id = result.requestID
        state.withLockedValue { state in
            var request = state.requests[id] ?? Request(isSubscription: false, submittedAt: now)
            request.finals.append(("\(result.status)", now))
            if request.finals.count > 1 { state.violations.append("\(id) ended \(request.finals.count) times: \(request.finals)") }
            switch result.status {
            case .success:
                guard let location = result.location, let age = result.age else {
                    state.violations.append("\(id) succeeded without a fix")
                    break
                }
                if let accuracy = request.accuracy, !accuracy.isSatisfied(horizontalAccuracy: location.horizontalAccuracy, age: age) {
                    state.violations.append("\(id) succeeded with ±\(location.horizontalAccuracy) m aged \(age), asked \(accuracy)")
                }
            case .timedOut:
                if let timeout = request.timeout, request.accuracy != nil, now < request.submittedAt + timeout {
                    state.violations.append("\(id) timed out at \(now), before its deadline \(request.submittedAt + timeout)")
                }
                if request.accuracy != nil && request.timeout == nil { state.violations.append("\(id) timed out without a timeout") }
            case .forceCompleted:
                if request.accuracy != nil && !request.forceCompleteIssued { state.violations.append("\(id) force-completed unasked") }
            default:
                state.violations.append("\(id) ended with unexpected status \(result.status)")
            }
            state.requests[id] = request
        }
    }

    /// Records a subscription event, checking updates against the filters and ends for uniqueness.
    func subscriptionEvent(_ id: RequestID, _ event: SubscriptionEvent, at now: Duration) {
        state.withLockedValue { state in
            var request = state.requests[id] ?? Request(isSubscription: true, submittedAt: now)
            if !request.finals.isEmpty { state.violations.append("\(id) got \(event) after it ended") }
            switch event {
            case .location(let update):
                request.updates += 1
                if let accuracy = request.options?.accuracy,
                    !accuracy.isSatisfied(horizontalAccuracy: update.location.horizontalAccuracy, age: update.age)
                {
                    state.violations.append("\(id) got a fix its accuracy filter rejects")
                }
                if let maximum = request.options?.maximumUpdates, request.updates > maximum {
                    state.violations.append("\(id) got more than \(maximum) updates")
                }
            case .heading:
                request.updates += 1
            case .sourceError:
                break
            case .ended(let end):
                request.finals.append(("\(end)", now))
            }
            state.requests[id] = request
        }
    }

    var snapshot: (requests: [RequestID: Request], violations: [String]) { state.withLockedValue { ($0.requests, $0.violations) } }
}

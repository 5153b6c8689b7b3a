import Hummingbird
import LocationEngine

extension HTTPError {
    /// `503` with `Retry-After`, for a request that arrives once the server is stopping: `shut_down: the server is
    /// stopping`, then `detail`. Answered at once rather than with a response the shutdown would end at its first
    /// event (an empty stream, an empty list, a `404` for a fence that is kept).
    static func shutDown(_ detail: String) -> HTTPError {
        HTTPError(
            .serviceUnavailable, headers: [.retryAfter: "\(LocationStatus.retryAfterShutdownSeconds)"],
            message: "shut_down: the server is stopping; \(detail)")
    }
}

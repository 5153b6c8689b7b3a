import Hummingbird
import NIOConcurrencyHelpers

/// Answers a client past its request limit (``RateLimiter``) with `429` and `Retry-After`, before any
/// work is done for it; the other clients' requests go on as before. After ``ClientAuthenticator``:
/// the limit is per client.
struct RateLimitMiddleware: RouterMiddleware {
    typealias Context = ServerRequestContext
    let limiter: NIOLockedValueBox<RateLimiter<ContinuousClock.Instant>>
    let limit: RateLimit
    let audit: ClientAudit
    /// The limit as the `429`'s message states it, written once: a flooding client is answered it many
    /// times a second.
    private let limitText: String

    init(_ limit: RateLimit, audit: ClientAudit) {
        limiter = NIOLockedValueBox(RateLimiter(rate: limit.rate, burst: limit.burst))
        self.limit = limit
        self.audit = audit
        limitText = "\(limit.rate.plainText) requests a second (bursts of \(limit.burst.plainText))"
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let client = context.identity else { return try await next(request, context) }
        let now = ContinuousClock.now
        switch limiter.withLockedValue({ $0.admit(client.name, at: now) }) {
        case .allowed:
            return try await next(request, context)
        case .limited(let seconds):
            audit.refused(client, status: 429)
            throw HTTPError(
                .tooManyRequests, headers: [.retryAfter: "\(seconds)"],
                message: "client '\(client.name)' is past its limit of \(limitText); try again in \(seconds) s")
        }
    }
}

/// A per-client request limit: `rate` requests a second sustained, bursts of up to `burst`
/// (`--client-rate-limit`, `--client-rate-burst`).
struct RateLimit: Sendable, Equatable {
    var rate: Double
    var burst: Double
}

extension Double {
    /// The number as a person writes it: without `.0` when whole.
    var plainText: String { rounded() == self && abs(self) < 1e15 ? String(Int64(self)) : String(self) }
}

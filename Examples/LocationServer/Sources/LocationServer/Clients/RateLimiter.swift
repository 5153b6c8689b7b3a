/// Per-client request limits: a token bucket for each client, `rate` requests a second with bursts of
/// up to `burst`. Pure: `now` is an argument, nothing is read or slept.
///
/// Written here because no package the server builds on has one: Hummingbird and hummingbird-auth
/// ship no rate limiter, and this is the whole of it (a refill and a comparison per request).
struct RateLimiter<Instant: InstantProtocol>: Sendable where Instant.Duration == Duration {
    /// What a request gets.
    enum Decision: Equatable {
        case allowed
        /// Refused: the client may try again after `retryAfter` (a whole number of seconds, at least 1).
        case limited(retryAfter: Int)
    }

    private struct Bucket {
        static var longestRetry: Double { 365 * 86_400 }

        var tokens: Double
        var updated: Instant

        /// Refills the bucket for the time since it was last updated, then takes one request from it.
        mutating func take(at now: Instant, rate: Double, burst: Double) -> Decision {
            let elapsed = max(.zero, updated.duration(to: now))
            tokens = min(burst, tokens + elapsed.secondsValue * rate)
            updated = max(updated, now)
            guard tokens >= 1 else {
                // At most a year: a rate as small as a request in centuries would not fit an Int.
                return .limited(retryAfter: max(1, Int(min(((1 - tokens) / rate).rounded(.up), Self.longestRetry))))
            }
            tokens -= 1
            return .allowed
        }
    }

    /// Requests a second each client may make, sustained.
    let rate: Double
    /// Requests a client may make at once after a pause.
    let burst: Double
    private var buckets: [String: Bucket] = [:]

    /// A limiter of `rate` requests a second (more than 0) with bursts of `burst` (at least 1).
    init(rate: Double, burst: Double) {
        precondition(rate > 0 && rate.isFinite && burst >= 1 && burst.isFinite, "RateLimiter: rate \(rate) and burst \(burst) out of range")
        self.rate = rate
        self.burst = burst
    }

    /// Takes one request of `client` at `now`.
    /// - Complexity: O(1) amortised; one bucket per client ever seen (the clients of the token file).
    mutating func admit(_ client: String, at now: Instant) -> Decision {
        var bucket = buckets[client] ?? Bucket(tokens: burst, updated: now)
        defer { buckets[client] = bucket }
        return bucket.take(at: now, rate: rate, burst: burst)
    }
}

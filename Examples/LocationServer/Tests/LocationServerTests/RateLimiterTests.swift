import LocationEngineTestKit
import Testing

@testable import LocationServer

@Suite("Per-client rate limit (token bucket)")
struct RateLimiterTests {
    @Test("a burst passes, the next request is refused with the seconds until one more is allowed, time refills it")
    func bucket() {
        var limiter = RateLimiter<ManualClock.Instant>(rate: 2, burst: 4)
        let start = ManualClock.Instant(offset: .zero)
        for _ in 0..<4 { #expect(limiter.admit("fleet", at: start) == .allowed) }
        #expect(limiter.admit("fleet", at: start) == .limited(retryAfter: 1))
        #expect(limiter.admit("fleet", at: start.advanced(by: .milliseconds(400))) == .limited(retryAfter: 1))
        #expect(limiter.admit("fleet", at: start.advanced(by: .milliseconds(500))) == .allowed)
        // A long pause refills no more than the burst.
        let later = start.advanced(by: .seconds(3600))
        for _ in 0..<4 { #expect(limiter.admit("fleet", at: later) == .allowed) }
        #expect(limiter.admit("fleet", at: later) == .limited(retryAfter: 1))
    }

    @Test("a flooding client does not use up another's requests; a slow rate says how long to wait")
    func perClient() {
        var limiter = RateLimiter<ManualClock.Instant>(rate: 0.1, burst: 1)
        let start = ManualClock.Instant(offset: .zero)
        #expect(limiter.admit("flood", at: start) == .allowed)
        for _ in 0..<100 { #expect(limiter.admit("flood", at: start) == .limited(retryAfter: 10)) }
        #expect(limiter.admit("quiet", at: start) == .allowed)
        #expect(limiter.admit("flood", at: start.advanced(by: .seconds(10))) == .allowed)
    }

    @Test("a rate of a request in ages says to wait a year, the longest it says, rather than overflowing")
    func absurdRate() {
        var limiter = RateLimiter<ManualClock.Instant>(rate: 1e-20, burst: 1)
        let start = ManualClock.Instant(offset: .zero)
        #expect(limiter.admit("patient", at: start) == .allowed)
        #expect(limiter.admit("patient", at: start) == .limited(retryAfter: 365 * 86_400))
    }
}

import Testing
@testable import LocationEngine

@Suite("One-shot requests")
struct OneShotTests {
    @Test("a fix meeting the accuracy completes the request once, with that fix and its achieved level")
    func successOnSatisfyingFix() {
        var h = MachineHarness()
        h.oneShot("a", .block, timeout: .seconds(10))
        h.fix(500)
        #expect(h.results["a"] == nil)
        h.fix(50)
        let result = h.onlyResult("a")
        #expect(result?.status == .success)
        #expect(result?.location?.horizontalAccuracy == 50)
        #expect(result?.achievedAccuracy == .block)
        h.fix(3)
        #expect(h.results["a"]?.count == 1)
    }

    @Test("timeout delivers the best fix so far, marked timed out")
    func timeoutCarriesBestFix() {
        var h = MachineHarness()
        h.oneShot("a", .room, timeout: .seconds(10))
        h.fix(800)
        h.advance(by: .seconds(1))
        h.fix(60)
        h.advance(by: .seconds(1))
        h.fix(400)
        h.advance(by: .seconds(8))
        let result = h.onlyResult("a")
        #expect(result?.status == .timedOut)
        #expect(result?.location?.horizontalAccuracy == 60, "the finest fix, not the newest")
        #expect(result?.achievedAccuracy == .block)
        #expect(result?.age == .seconds(9))
    }

    @Test("timeout with no fix at all delivers no location")
    func timeoutWithoutFix() {
        var h = MachineHarness()
        h.oneShot("a", .city, timeout: .seconds(1))
        h.advance(by: .seconds(1))
        var expected = LocationResult(status: .timedOut, location: nil, age: nil, achievedAccuracy: nil)
        expected.reason = .acquiring(for: .seconds(1))
        #expect(h.onlyResult("a") == expected, "the source ran a second with no fix: it is acquiring")
    }

    @Test("an accurate fix after a 0.1 s timeout gives exactly one callback: timed out")
    func lateFixDoesNotTurnTimeoutIntoSuccess() {
        var h = MachineHarness()
        h.oneShot("a", .house, timeout: .milliseconds(100))
        // The timer has not fired yet, but the fix arrives after the deadline: deadlines go first.
        h.now = h.now + .milliseconds(150)
        h.fix(1)
        #expect(h.onlyResult("a")?.status == .timedOut)
        h.advance(by: .seconds(1))
        h.fix(1)
        #expect(h.results["a"]?.count == 1)
    }

    @Test("a fix at exactly the deadline arrives too late (deadline <= now expires first)")
    func fixAtDeadline() {
        var h = MachineHarness()
        h.oneShot("a", .house, timeout: .seconds(1))
        h.now = h.now + .seconds(1)
        h.fix(1)
        #expect(h.onlyResult("a")?.status == .timedOut)
    }

    @Test("cancel delivers nothing; cancelling or force-completing again is a no-op")
    func cancelDeliversNothing() {
        var h = MachineHarness()
        h.oneShot("a", .block, timeout: .seconds(5))
        h.cancel("a")
        #expect(h.cancelled == ["a"])
        h.fix(10)
        h.advance(by: .seconds(10))
        h.cancel("a")
        h.forceComplete("a")
        #expect(h.results["a"] == nil)
        #expect(h.cancelled == ["a"])
    }

    @Test("force-complete delivers the best fix known, once")
    func forceCompleteCarriesBestFix() {
        var h = MachineHarness()
        h.oneShot("a", .room, timeout: .seconds(30))
        h.fix(40)
        h.forceComplete("a")
        let result = h.onlyResult("a")
        #expect(result?.status == .forceCompleted)
        #expect(result?.location?.horizontalAccuracy == 40)
        #expect(result?.achievedAccuracy == .block)
        h.forceComplete("a")
        h.advance(by: .seconds(60))
        #expect(h.results["a"]?.count == 1)
    }

    @Test("a cached fix meeting accuracy and recency completes at once without powering the source")
    func cachedFixCompletesWithoutPower() {
        var h = MachineHarness()
        h.oneShot("first", .house, timeout: .seconds(5))
        h.fix(10)
        h.advance(by: .seconds(1))
        #expect(h.sourceCommands == [.start(.high), .stop])
        h.advance(by: .seconds(3))
        h.oneShot("cached", .block, timeout: .seconds(5))
        #expect(h.onlyResult("cached")?.status == .success)
        #expect(h.onlyResult("cached")?.age == .seconds(4))
        #expect(h.sourceCommands == [.start(.high), .stop], "no new start for a cached completion")
        #expect(h.machine.statistics(now: h.now).oneShotsFromCache == 1)
    }

    @Test("a cached fix that is too old for the level does not complete the request")
    func staleCacheIsNotUsed() {
        var h = MachineHarness()
        h.oneShot("first", .house, timeout: .seconds(5))
        h.fix(10)
        h.advance(by: .seconds(16))
        h.oneShot("late", .house, timeout: .seconds(5))
        #expect(h.results["late"] == nil)
        #expect(h.machine.isSourceOn)
    }

    @Test("level thresholds are inclusive (<=) in metres and age")
    func thresholdsAreInclusive() {
        var h = MachineHarness()
        h.oneShot("block", .block, timeout: nil)
        h.fix(100, age: .seconds(60))
        #expect(h.onlyResult("block")?.status == .success)
        h.oneShot("house", .house, timeout: nil)
        h.fix(15.000001)
        #expect(h.results["house"] == nil)
    }

    @Test("a stale fix does not satisfy a level whose age limit it exceeds")
    func staleFixFailsRecency() {
        var h = MachineHarness()
        h.oneShot("neighborhood", .neighborhood, timeout: nil)
        h.oneShot("city", .city, timeout: nil)
        h.fix(900, age: .seconds(400))
        #expect(h.results["neighborhood"] == nil)
        #expect(h.onlyResult("city")?.status == .success)
        #expect(h.onlyResult("city")?.achievedAccuracy == .city)
    }

    @Test("custom accuracies complete on metres and their own maximum age")
    func customAccuracy() {
        var h = MachineHarness()
        h.oneShot("c50", .custom(metres: 50, maximumAge: .seconds(2)), timeout: nil)
        h.oneShot("c200", .custom(metres: 200, maximumAge: .seconds(100)), timeout: nil)
        h.fix(40, age: .seconds(10))
        #expect(h.results["c50"] == nil, "accurate enough but too old")
        #expect(h.onlyResult("c200")?.status == .success)
        h.fix(50)
        #expect(h.onlyResult("c50")?.status == .success)
    }

    @Test(
        "a custom accuracy is answered from a remembered fix that meets it, though a worse one came after, without the source — also between two levels (30 m is the block level's newest, not the house level's)",
        arguments: [(10.0, 500.0, 20.0), (30.0, 200.0, 50.0)])
    func customAccuracyFromTheCache(remembered: Double, worse: Double, metres: Double) {
        var h = MachineHarness()
        h.fix(remembered)
        h.advance(by: .seconds(1))
        h.fix(worse)
        h.advance(by: .seconds(1))
        let commands = h.sourceCommands.count
        h.oneShot("custom", .custom(metres: metres, maximumAge: .seconds(60)), timeout: .seconds(10))
        let result = h.onlyResult("custom")
        #expect(result?.status == .success && result?.location?.horizontalAccuracy == remembered && result?.age == .seconds(2))
        #expect(h.machine.statistics(now: h.now).oneShotsFromCache == 1)
        #expect(h.sourceCommands.count == commands, "answered without powering the source")
        // Too old for its own maximum age: not answered from the cache.
        h.oneShot("recent", .custom(metres: metres, maximumAge: .seconds(1)), timeout: .seconds(10))
        #expect(h.results["recent"] == nil)
    }

    @Test("a request whose timeout ran out before the core took it (made before run(), behind a backlog) times out at once, asking nothing of the source or the user")
    func expiredOnArrival() {
        for gate in [AuthorizationGate.authorized, .notDetermined] {
            var h = MachineHarness(authorization: gate)
            h.now = EngineInstant(nanoseconds: 10_000_000_000)
            let id = h.newID("late")
            h.carryOut(h.machine.submitOneShot(
                id, accuracy: .room, timeout: .seconds(5), delayUntilAuthorized: false, purposeKey: nil, madeAt: .zero, handler: "late", now: h.now))
            #expect(h.onlyResult("late")?.status == .timedOut)
            #expect(h.sourceCommands.isEmpty && h.authorizationRequests == 0, "\(gate)")
            let subscription = h.newID("expired")
            h.carryOut(h.machine.subscribe(subscription, options: SubscriptionOptions(duration: .seconds(5)), madeAt: .zero, handler: "expired", now: h.now))
            #expect(h.ends("expired") == [.durationElapsed])
            #expect(h.sourceCommands.isEmpty && h.authorizationRequests == 0, "\(gate)")
            // One made 5 s ago with 10 s left is placed as ever.
            h.carryOut(h.machine.submitOneShot(
                h.newID("on time"), accuracy: .room, timeout: .seconds(10), delayUntilAuthorized: false, purposeKey: nil,
                madeAt: EngineInstant(nanoseconds: 5_000_000_000), handler: "on time", now: h.now))
            #expect(h.results["on time"] == nil)
        }
    }

    @Test("timeout nil or zero means no timeout")
    func noTimeout() {
        var h = MachineHarness()
        h.oneShot("nil", .room, timeout: nil)
        h.oneShot("zero", .room, timeout: .zero)
        h.advance(by: .seconds(100_000))
        #expect(h.results.isEmpty)
        h.fix(5)
        #expect(h.onlyResult("nil")?.status == .success)
        #expect(h.onlyResult("zero")?.status == .success)
    }

    @Test("invalid arguments are rejected with a reason, never scheduled", arguments: [
        (LocationAccuracy.custom(metres: .nan, maximumAge: .seconds(1)), Duration?.none),
        (LocationAccuracy.custom(metres: -3, maximumAge: .seconds(1)), nil),
        (LocationAccuracy.custom(metres: 10, maximumAge: .seconds(-1)), nil),
        (LocationAccuracy.block, Duration.seconds(-1)),
    ])
    func invalidArgumentsAreRejected(accuracy: LocationAccuracy, timeout: Duration?) {
        var h = MachineHarness()
        h.oneShot("bad", accuracy, timeout: timeout)
        guard case .rejected(let reason)? = h.onlyResult("bad")?.status else {
            Issue.record("expected a rejection, got \(String(describing: h.results["bad"]))")
            return
        }
        #expect(!reason.isEmpty)
        #expect(!h.machine.isSourceOn)
        #expect(h.machine.statistics(now: h.now).pendingOneShots == 0)
    }

    @Test("invalid fixes are counted and dropped")
    func invalidFixesDropped() {
        var h = MachineHarness()
        h.oneShot("a", .city, timeout: nil)
        h.fix(.nan)
        h.fix(10, latitude: 95)
        h.fix(-1)
        #expect(h.results["a"] == nil)
        #expect(h.machine.statistics(now: h.now).invalidFixes == 3)
    }

    @Test("requests timing out at the same instant expire in submission order, sharing one result")
    func equalDeadlinesFireInOrder() {
        var h = MachineHarness()
        for index in 0..<50 { h.oneShot("r\(index)", .room, timeout: .seconds(1)) }
        h.advance(by: .seconds(1))
        #expect(h.completionOrder == (0..<50).map { "r\($0)" })
    }
}

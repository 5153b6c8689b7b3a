import Testing
@testable import LocationEngine

@Suite("Authorization seam (as far as the scheduler goes)")
struct AuthorizationSeamTests {
    @Test("requests while not determined ask once, wait unpowered, and are admitted on authorization")
    func notDeterminedAsksOnce() {
        var h = MachineHarness(authorization: .notDetermined)
        for index in 0..<10_000 { h.oneShot("r\(index)", .block, timeout: nil) }
        h.subscribe("s")
        #expect(h.authorizationRequests == 1)
        #expect(h.sourceCommands.isEmpty)
        h.authorize(.authorized)
        #expect(h.sourceCommands == [.start(.best)])
        h.fix(50)
        #expect(h.results.count == 10_000)
        #expect(h.results.values.allSatisfy { $0.count == 1 && $0[0].status == .success })
        #expect(h.deliveredAccuracies("s") == [50])
    }

    @Test("delay-until-authorized starts the timeout when authorization resolves; others count from submission")
    func delayUntilAuthorized() {
        var h = MachineHarness(authorization: .notDetermined)
        h.oneShot("delayed", .room, timeout: .seconds(10), delayUntilAuthorized: true)
        h.oneShot("plain", .room, timeout: .seconds(10))
        h.advance(by: .seconds(30))
        var expected = LocationResult(status: .timedOut, location: nil, age: nil, achievedAccuracy: nil)
        expected.reason = .noFix
        #expect(h.onlyResult("plain") == expected)
        #expect(h.results["delayed"] == nil)
        h.authorize(.authorized)
        h.advance(by: .seconds(9))
        #expect(h.results["delayed"] == nil)
        h.advance(by: .seconds(1))
        #expect(h.onlyResult("delayed")?.status == .timedOut)
    }

    @Test("denied: new requests end at once; a change to denied ends everything pending, subscriptions too")
    func deniedEndsEverything() {
        var h = MachineHarness()
        h.oneShot("a", .room, timeout: .seconds(10))
        h.subscribe("s")
        h.fix(30)
        h.authorize(.unauthorized(.denied))
        #expect(h.onlyResult("a")?.status == .unauthorized(.denied))
        #expect(h.onlyResult("a")?.location == nil, "nothing is revealed once access is revoked")
        #expect(h.ends("s") == [.unauthorized(.denied)])
        #expect(h.sourceCommands.last == .stop)
        h.oneShot("b", .city, timeout: nil)
        #expect(h.onlyResult("b")?.status == .unauthorized(.denied))
        h.authorize(.authorized)
        h.oneShot("c", .city, timeout: nil)
        #expect(h.results["c"] == nil, "the cache was forgotten at revocation")
    }

    @Test("a lapse back to not determined ends pending requests with 'lapsed' and asks again for the next")
    func lapse() {
        var h = MachineHarness()
        h.oneShot("a", .room, timeout: nil)
        h.authorize(.notDetermined)
        #expect(h.onlyResult("a")?.status == .unauthorized(.lapsed))
        #expect(h.authorizationRequests == 0)
        h.oneShot("b", .room, timeout: nil)
        #expect(h.authorizationRequests == 1)
        #expect(!h.machine.isSourceOn)
    }

    @Test("shutdown ends everything once and refuses later requests")
    func shutdown() {
        var h = MachineHarness()
        h.oneShot("a", .room, timeout: .seconds(10))
        h.subscribe("s")
        h.shutdown()
        h.shutdown()
        #expect(h.onlyResult("a")?.status == .shutDown)
        #expect(h.ends("s") == [.shutDown])
        h.oneShot("b", .room, timeout: nil)
        #expect(h.onlyResult("b")?.status == .shutDown)
        #expect(h.sourceCommands == [.start(.best), .stop])
    }

    @Test("losing access powers the source down at once, without lingering")
    func revocationSkipsLinger() {
        for gate in [AuthorizationGate.unauthorized(.denied), .notDetermined] {
            var h = MachineHarness(linger: .seconds(60))
            h.subscribe("s")
            h.authorize(gate)
            #expect(h.sourceCommands == [.start(.best), .stop], "\(gate)")
            #expect(h.machine.nextWakeup == nil)
        }
    }

    @Test("requests that end while waiting for an answer that never comes do not pile up")
    func waitingListsStayBounded() {
        var h = MachineHarness(authorization: .notDetermined)
        for round in 0..<50 {
            for index in 0..<1_000 { h.oneShot("r\(round).\(index)", .city, timeout: .seconds(1)) }
            h.advance(by: .seconds(1))
        }
        #expect(h.results.count == 50_000)
        // Compaction runs when the owner is idle, never in bulk on the expiry path.
        #expect(h.machine.requests.compactionBacklog() > 0)
        h.machine.compactIfIdle(now: h.now)
        #expect(h.machine.requests.compactionBacklog() == 0)
        #expect(h.machine.requests.awaitingAuthorization.count <= 2_048)
        #expect(h.authorizationRequests == 1)
        h.authorize(.authorized)
        #expect(h.sourceCommands.isEmpty)
    }
}

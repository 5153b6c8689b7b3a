import Testing
@testable import LocationEngine

@Suite("Source power")
struct PowerTests {
    @Test("off with no requests; on with the first; off after the last")
    func onAndOff() {
        var h = MachineHarness()
        #expect(!h.machine.isSourceOn)
        h.advance(by: .seconds(5))
        #expect(h.sourceCommands.isEmpty)
        h.oneShot("a", .block, timeout: .seconds(5))
        #expect(h.sourceCommands == [.start(.medium)])
        h.oneShot("b", .block, timeout: .seconds(10))
        #expect(h.sourceCommands == [.start(.medium)])
        h.advance(by: .seconds(5))
        #expect(h.machine.isSourceOn)
        h.advance(by: .seconds(5))
        #expect(h.sourceCommands == [.start(.medium), .stop])
    }

    @Test("the mode follows the most demanding request up and down, never ratcheting")
    func modeFollowsDemand() {
        var h = MachineHarness()
        h.subscribe("significant", SubscriptionOptions(kind: .significantChange))
        h.oneShot("room", .room, timeout: nil)
        h.oneShot("block", .block, timeout: nil)
        #expect(h.sourceCommands == [.start(.lowest), .setMode(.best)])
        h.cancel("room")
        #expect(h.sourceMode == .medium)
        h.forceComplete("block")
        #expect(h.sourceMode == .lowest)
        h.oneShot("house", .house, timeout: nil)
        #expect(h.sourceMode == .high)
        h.fix(12)
        #expect(h.onlyResult("house")?.status == .success)
        #expect(h.sourceMode == .lowest)
        h.cancel("significant")
        #expect(h.sourceCommands == [.start(.lowest), .setMode(.best), .setMode(.medium), .setMode(.lowest), .setMode(.high), .setMode(.lowest), .stop])
    }

    @Test("one event, one decision: a fix arriving as a request times out commands the source once, from what the event left")
    func oneDecisionPerEvent() {
        var h = MachineHarness()
        h.oneShot("room", .room, timeout: .seconds(10))
        h.oneShot("block", .block, timeout: nil)
        #expect(h.sourceCommands == [.start(.best)])
        // The fix comes at the room's deadline, before the owner let time pass: the room ends first,
        // then the fix completes the block. Nothing is left, so the source stops, without stepping
        // down to the block's mode on the way.
        h.now = h.now + .seconds(10)
        h.fix(30)
        #expect(h.onlyResult("room")?.status == .timedOut)
        #expect(h.onlyResult("block")?.status == .success)
        #expect(h.sourceCommands == [.start(.best), .stop])
    }

    @Test("linger keeps the source on through a burst of short requests, then powers it down")
    func lingerAbsorbsBursts() {
        var h = MachineHarness(linger: .seconds(3))
        for round in 0..<100 {
            h.oneShot("r\(round)", .room, timeout: .seconds(1))
            h.advance(by: .milliseconds(200))
            h.forceComplete("r\(round)")
            h.advance(by: .milliseconds(300))
        }
        #expect(h.sourceCommands == [.start(.best)])
        // (nextWakeup may be earlier: force-completed requests leave lazily deleted deadlines behind.)
        #expect(h.machine.power[.first].lingerDeadline == h.now + .milliseconds(2700))
        h.advance(by: .milliseconds(2699))
        #expect(h.machine.isSourceOn)
        h.advance(by: .milliseconds(1))
        #expect(h.sourceCommands == [.start(.best), .stop])
        let stats = h.machine.statistics(now: h.now)
        #expect(stats.sourceStarts == 1 && stats.sourceStops == 1)
        #expect(stats.sourceOnTime == .milliseconds(52_700))
        #expect(h.results.count == 100)
    }

    @Test("a request during the linger keeps the source on, in the new request's mode")
    func requestDuringLinger() {
        var h = MachineHarness(linger: .seconds(3))
        h.oneShot("a", .block, timeout: .seconds(1))
        h.advance(by: .seconds(1))
        #expect(h.onlyResult("a")?.status == .timedOut)
        h.advance(by: .seconds(1))
        h.oneShot("b", .room, timeout: .seconds(1))
        #expect(h.sourceCommands == [.start(.medium), .setMode(.best)])
        h.advance(by: .seconds(1))
        h.advance(by: .milliseconds(2999))
        #expect(h.machine.isSourceOn)
        h.advance(by: .milliseconds(1))
        #expect(h.sourceCommands == [.start(.medium), .setMode(.best), .stop])
    }

    @Test("passive subscriptions never power the source, and see fixes others cause")
    func passiveNeverPowers() {
        var h = MachineHarness()
        h.subscribe("passive", SubscriptionOptions(kind: .passive))
        #expect(h.sourceCommands.isEmpty)
        h.oneShot("a", .block, timeout: nil)
        h.fix(80)
        #expect(h.deliveredAccuracies("passive") == [80])
        #expect(h.sourceCommands == [.start(.medium), .stop], "the passive subscription does not keep it on")
    }

    @Test("cached-fix completion does not power the source")
    func cachedCompletionDoesNotPower() {
        var h = MachineHarness()
        h.oneShot("a", .block, timeout: nil)
        h.fix(10)
        let before = h.sourceCommands
        for index in 0..<10 { h.oneShot("cached\(index)", .block, timeout: .seconds(5)) }
        #expect(h.sourceCommands == before)
        #expect(h.results.count == 11)
    }

    @Test("subscriptions demand power by their accuracy; significant change demands the cheapest mode")
    func subscriptionDemand() {
        var h = MachineHarness()
        h.subscribe("sig", SubscriptionOptions(kind: .significantChange))
        #expect(h.sourceMode == .lowest)
        h.subscribe("house", SubscriptionOptions(accuracy: .house))
        #expect(h.sourceMode == .high)
        h.subscribe("any")
        #expect(h.sourceMode == .best)
        h.cancel("any")
        h.cancel("house")
        #expect(h.sourceMode == .lowest)
        h.cancel("sig")
        #expect(!h.machine.isSourceOn)
    }

    @Test("power mode mapping matches INTULocationManager's")
    func modeMapping() {
        #expect(LocationAccuracy.city.requiredPowerMode == .lowest)
        #expect(LocationAccuracy.neighborhood.requiredPowerMode == .low)
        #expect(LocationAccuracy.block.requiredPowerMode == .medium)
        #expect(LocationAccuracy.house.requiredPowerMode == .high)
        #expect(LocationAccuracy.room.requiredPowerMode == .best)
        #expect(LocationAccuracy.custom(metres: 4000, maximumAge: .seconds(1)).requiredPowerMode == .lowest)
        #expect(LocationAccuracy.custom(metres: 2999, maximumAge: .seconds(1)).requiredPowerMode == .low)
        #expect(LocationAccuracy.custom(metres: 9, maximumAge: .seconds(1)).requiredPowerMode == .best)
    }
}

import Testing
@testable import LocationEngine

/// The behaviours INTULocationManager's own test suite checked, re-expressed against the state machine.
@Suite("INTULocationManager's test suite, re-expressed")
struct INTUBehaviourTests {
    @Test("several simultaneous requests fed a stale 2 km fix, then 50 m, then 5 m twice")
    func multipleSimultaneousRequests() {
        var h = MachineHarness()
        h.oneShot("room", .room, timeout: .seconds(30))
        h.oneShot("block", .block, timeout: .seconds(30))
        h.subscribe("subscription")
        h.subscribe("significant", SubscriptionOptions(kind: .significantChange))
        #expect(h.sourceMode == .best)

        h.fix(2000, latitude: 48.02, age: .seconds(120))
        #expect(h.results.isEmpty)
        h.advance(by: .seconds(1))
        h.fix(50, latitude: 48.0)
        #expect(h.onlyResult("block")?.status == .success)
        #expect(h.onlyResult("block")?.location?.horizontalAccuracy == 50)
        #expect(h.results["room"] == nil)
        h.advance(by: .seconds(1))
        h.fix(5, latitude: 48.0)
        h.advance(by: .seconds(1))
        h.fix(5, latitude: 48.0)
        #expect(h.onlyResult("room")?.status == .success)
        #expect(h.onlyResult("room")?.achievedAccuracy == .room)
        #expect(h.onlyResult("block")?.location?.horizontalAccuracy == 50, "block completed once, on the 50 m fix")

        #expect(h.deliveredAccuracies("subscription") == [2000, 50, 5, 5], "a plain subscription gets every update")
        // Significant change: the first fix, then only after moving 500 m (2.2 km here), not for jitter.
        #expect(h.deliveredAccuracies("significant") == [2000, 50])
        #expect(h.ends("subscription").isEmpty && h.ends("significant").isEmpty)
    }

    @Test("subscription receives every update until cancelled, then nothing")
    func subscriptionGetsEveryUpdate() {
        var h = MachineHarness()
        h.subscribe("s")
        for metres in [100.0, 80, 60, 40] { h.fix(metres) }
        #expect(h.deliveredAccuracies("s") == [100, 80, 60, 40])
        h.cancel("s")
        h.fix(20)
        #expect(h.deliveredAccuracies("s").count == 4)
        #expect(h.ends("s").isEmpty, "cancel delivers nothing")
        #expect(!h.machine.isSourceOn)
    }

    @Test("significant-change subscription runs the source in its cheapest mode and needs real movement")
    func significantChangeSubscription() {
        var h = MachineHarness()
        h.subscribe("s", SubscriptionOptions(kind: .significantChange))
        #expect(h.sourceCommands == [.start(.lowest)])
        h.fix(1000, latitude: 48.0)
        h.fix(1000, latitude: 48.003)  // ~330 m
        h.fix(1000, latitude: 48.006)  // ~660 m from the first delivered
        #expect(h.deliveredAccuracies("s").count == 2)
    }

    @Test("heading subscription: course updates (0° included, 360° as north, no invalid course), cancel stops them")
    func headingSubscriptionCancel() {
        var h = MachineHarness()
        h.subscribe("heading", SubscriptionOptions(kind: .heading))
        h.fix(10, course: 0)
        h.fix(10, course: nil)
        h.fix(10, course: 271.5)
        // A source's course of 360 is north; NaN, −1 (Core Location's "invalid") and 400 are no course.
        for course in [360, .nan, -1, 400] { h.fix(10, course: course) }
        let courses = (h.events["heading"] ?? []).compactMap { event -> Double? in
            if case .heading(let update) = event { return update.course }
            return nil
        }
        #expect(courses == [0, 271.5, 0], "0° is a valid heading; fixes without course are skipped")
        h.cancel("heading")
        h.fix(10, course: 90)
        #expect(h.events["heading"]?.count == 3)
        #expect(h.cancelled == ["heading"])
    }

    @Test("heading subscription on a source without course ends at once with 'unavailable'")
    func headingUnavailable() {
        var h = MachineHarness(providesCourse: false)
        h.subscribe("heading", SubscriptionOptions(kind: .heading))
        #expect(h.ends("heading") == [.headingUnavailable])
        #expect(!h.machine.isSourceOn)
    }

    @Test("transient error: one-shots keep waiting, subscriptions are told and survive")
    func transientErrorDoesNotFailRequests() {
        var h = MachineHarness()
        h.oneShot("a", .block, timeout: .seconds(10))
        h.subscribe("s")
        h.transientError()
        #expect(h.results["a"] == nil)
        #expect(h.events["s"]?.count == 1)
        h.fix(20)
        #expect(h.onlyResult("a")?.status == .success, "no sticky failure flag")
        #expect(h.deliveredAccuracies("s") == [20])
    }

    @Test("fatal error: every one-shot ends once with the error, subscriptions end, the source stops; later requests restart it")
    func fatalErrorEndsRequestsOnce() {
        var h = MachineHarness()
        h.oneShot("a", .block, timeout: .seconds(10))
        h.oneShot("b", .room, timeout: nil)
        h.subscribe("s")
        h.fix(500)
        h.fatalError("gpsd.gone")
        for tag in ["a", "b"] {
            guard case .failed(let error)? = h.onlyResult(tag)?.status else {
                Issue.record("\(tag) did not fail once: \(String(describing: h.results[tag]))")
                continue
            }
            #expect(error.code == "gpsd.gone")
            #expect(h.onlyResult(tag)?.location?.horizontalAccuracy == 500)
        }
        #expect(h.ends("s").count == 1)
        #expect(h.sourceCommands.last == .stop)
        h.advance(by: .seconds(20))
        #expect(h.results["a"]?.count == 1)
        h.oneShot("c", .block, timeout: .seconds(10))
        #expect(h.sourceCommands.last == .start(.medium))
        h.fix(30)
        #expect(h.onlyResult("c")?.status == .success)
    }
}

import Testing

@testable import LocationEngine

/// The core's wake-ups: the requests' deadlines and each other part's alarm, taken in instant order.
@Suite("One timeline (the parts' wake-ups in instant order)")
struct OneTimelineTests {
    private static func at(_ seconds: Int64) -> EngineInstant { EngineInstant(.seconds(seconds)) }

    /// Takes every alarm due by `seconds`, in order.
    private static func takeAll(_ alarms: inout Alarms, by seconds: Int64) -> [Alarms.Part] {
        var taken: [Alarms.Part] = []
        while let due = alarms.popDue(at: at(seconds)) { taken.append(due.part) }
        return taken
    }

    @Test("the parts' alarms come out in instant order, at one instant in the parts' order, each cleared as it is taken")
    func alarmOrder() {
        var alarms = Alarms()
        alarms[.power] = Self.at(5)
        alarms[.regions] = Self.at(3)
        alarms[.authorization] = Self.at(5)
        #expect(alarms.earliestInstant == Self.at(3))
        #expect(alarms.earliest()?.part == .regions)
        #expect(Self.takeAll(&alarms, by: 4) == [.regions])
        #expect(alarms[.regions] == nil, "an alarm taken is cleared")
        #expect(alarms.earliest()?.part == .authorization, "at one instant authorization comes before power")
        #expect(Self.takeAll(&alarms, by: 10) == [.authorization, .power])
        #expect(alarms.earliestInstant == nil)
    }

    @Test("an alarm set again replaces its instant: the one it left never comes out")
    func alarmMoved() {
        var alarms = Alarms()
        alarms[.power] = Self.at(2)
        alarms[.power] = Self.at(6)
        alarms[.regions] = Self.at(4)
        alarms[.regions] = nil
        #expect(alarms.earliestInstant == Self.at(6))
        #expect(alarms.popDue(at: Self.at(5)) == nil)
        #expect(alarms.popDue(at: Self.at(10))?.at == Self.at(6))
        #expect(alarms.popDue(at: Self.at(10)) == nil)
    }

    @Test("in the core, what fell due first happens first whichever part it belongs to: one late wake-up keeps instant order")
    func partsInInstantOrder() {
        var h = MachineHarness()
        h.monitor("site", options: GeofenceOptions(loiteringDelay: .seconds(30)))
        h.subscribe("sub", SubscriptionOptions(duration: .seconds(35)))
        h.fix(east: 0)
        h.receive(AuthorizationState(status: .authorizedAlways, accuracy: .full), after: .seconds(40))
        #expect(h.machine.nextWakeup == Self.at(30))
        h.handedOut = []
        // The owner wakes late, once, after all three fell due: the dwell (30 s), the duration (35 s) and
        // the change (40 s) come in that order.
        h.advance(by: .seconds(60))
        #expect(h.handedOut == ["site: dwelled", "sub: ended", "authorization"])
        #expect(h.transitionInstants["site"]?.last == Self.at(30))
        #expect(h.ends("sub") == [.durationElapsed])
        #expect(h.machine.nextWakeup == h.machine.alarms[.regions], "the next wake-up is the regions' unknown timeout")
    }

    @Test("a region's unknown timeout and a request's deadline at one instant both happen in the one wake-up, the deadline first")
    func equalInstants() {
        var h = MachineHarness()
        h.monitor("site")
        h.fix(east: 0)
        let unknownAt = h.machine.nextWakeup!
        h.subscribe("sub", SubscriptionOptions(duration: unknownAt - h.now))
        #expect(h.machine.nextWakeup == unknownAt)
        h.handedOut = []
        h.advance(by: unknownAt - h.now)
        #expect(h.handedOut == ["sub: ended", "site: becameUnknown"])
        #expect(h.ends("sub") == [.durationElapsed])
        #expect(h.transitions["site"] == [.determined(.inside), .becameUnknown])
        #expect(h.transitionInstants["site"]?.last == unknownAt)
    }

    @Test("a deadline at the instant of an authorization change ends first: timed out, not unauthorized")
    func deadlineBeforeAuthorizationAtOneInstant() {
        var h = MachineHarness(picture: .authorizedWhenInUse())
        h.oneShot("a", .room, timeout: .seconds(5))
        h.oneShot("b", .room, timeout: .seconds(6))
        h.receive(.denied, after: .seconds(5))
        #expect(h.machine.nextWakeup == Self.at(5))
        h.advance(by: .seconds(5))
        #expect(h.onlyResult("a")?.status == .timedOut)
        #expect(h.onlyResult("b")?.status == .unauthorized(.denied))
    }

    @Test("a deadline abandoned behind an earlier alarm is dropped: the next wake-up is a live one")
    func abandonedBehindAlarm() {
        var h = MachineHarness(picture: .authorizedWhenInUse())
        h.oneShot("a", .room, timeout: .seconds(10))
        h.oneShot("b", .room, timeout: .seconds(20))
        h.receive(.authorizedAlways, after: .seconds(5))
        h.cancel("a")
        h.advance(by: .seconds(5))
        #expect(h.machine.nextWakeup == Self.at(20), "not the cancelled request's 10 s")
    }

    @Test("a fix arriving after a deadline that lay behind an authorization change does not complete the request: what fell due happens first")
    func fixAfterDeadlineBehindAlarm() {
        var h = MachineHarness(picture: .authorizedWhenInUse())
        h.oneShot("late", .city, timeout: .seconds(5))
        h.receive(.authorizedAlways, after: .seconds(2))
        h.now = Self.at(10)
        h.fix(10)
        #expect(h.onlyResult("late")?.status == .timedOut)
        #expect(h.machine.authorizationState.status == .authorizedAlways, "the change due at 2 s happened")
    }

    @Test("a fix arriving after a revocation was due reaches no one: the revocation happens first")
    func fixAfterRevocationDue() {
        var h = MachineHarness(picture: .authorizedWhenInUse())
        h.oneShot("waiting", .city)
        h.receive(.denied, after: .seconds(2))
        h.now = Self.at(10)
        h.fix(10)
        #expect(h.onlyResult("waiting")?.status == .unauthorized(.denied))
    }

    @Test("a submission handed over after a revocation fell due comes after it, though the owner did not pass the time")
    func submissionCatchesUp() {
        var h = MachineHarness(picture: .authorizedWhenInUse())
        h.receive(.denied, after: .seconds(8))
        h.now = Self.at(9)
        h.oneShot("late", .city)
        #expect(h.onlyResult("late")?.status == .unauthorized(.denied), "refused at once: the revocation was due at 8 s")
    }
}

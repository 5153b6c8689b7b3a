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
        #expect(alarms.earliest?.part == .regions)
        #expect(Self.takeAll(&alarms, by: 4) == [.regions])
        #expect(alarms[.regions] == nil, "an alarm taken is cleared")
        #expect(alarms.earliest?.part == .authorization, "at one instant authorization comes before power")
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
}

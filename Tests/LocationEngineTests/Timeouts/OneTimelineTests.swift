import Testing

@testable import LocationEngine

/// The core's one timeline: every part's wake-ups in one structure, taken in instant order.
@Suite("One timeline (the parts' wake-ups in one structure)")
struct OneTimelineTests {
    private static func id(_ raw: UInt64) -> RequestID { RequestID(rawValue: raw) }
    private static func at(_ seconds: Int64) -> EngineInstant { EngineInstant(.seconds(seconds)) }

    /// Takes everything due by `seconds`, in order.
    private static func takeAll(_ timeline: inout Timeline, by seconds: Int64) -> [Timeline.Due] {
        var taken: [Timeline.Due] = []
        while let due = timeline.popDue(at: at(seconds)) { taken.append(due) }
        return taken
    }

    @Test("requests' deadlines and parts' alarms come out in instant order; at one instant requests first, then the parts in order")
    func order() {
        var timeline = Timeline()
        timeline.insert(Self.id(1), timeout: .seconds(5), from: .zero)
        timeline.insert(Self.id(2), timeout: .seconds(5), from: Self.at(2))
        timeline.setAlarm(.power, at: Self.at(5))
        timeline.setAlarm(.regions, at: Self.at(3))
        timeline.setAlarm(.authorization, at: Self.at(5))
        #expect(timeline.earliest == Self.at(3))
        #expect(
            Self.takeAll(&timeline, by: 10) == [
                .alarm(.regions, at: Self.at(3)), .request(Self.id(1)), .alarm(.authorization, at: Self.at(5)), .alarm(.power, at: Self.at(5)),
                .request(Self.id(2)),
            ])
        #expect(timeline.alarm(.regions) == nil, "an alarm taken is cleared")
        #expect(timeline.earliest == nil)
    }

    @Test("an alarm set again leaves its old entry stale: it never comes out, nor is it the earliest")
    func staleAlarms() {
        var timeline = Timeline()
        timeline.insert(Self.id(1), timeout: .seconds(8), from: .zero)
        timeline.setAlarm(.power, at: Self.at(2))
        timeline.setAlarm(.power, at: Self.at(6))
        #expect(timeline.earliest == Self.at(6), "the stale entry at 2 s was the earliest: dropped at once")
        timeline.setAlarm(.power, at: Self.at(6))
        timeline.setAlarm(.regions, at: Self.at(4))
        timeline.setAlarm(.regions, at: nil)
        #expect(timeline.earliest == Self.at(6))
        #expect(timeline.popDueRequest(at: Self.at(10)) == nil, "an alarm comes before the request's deadline")
        #expect(timeline.popDue(at: Self.at(10)) == .alarm(.power, at: Self.at(6)))
        #expect(timeline.popDue(at: Self.at(10)) == .request(Self.id(1)))
        #expect(timeline.popDue(at: Self.at(10)) == nil)
        #expect(timeline.count == 0)
    }

    @Test("an alarm set back to an instant it left is taken once")
    func alarmBackAndForth() {
        var timeline = Timeline()
        timeline.insert(Self.id(1), timeout: .seconds(1), from: .zero)
        timeline.setAlarm(.power, at: Self.at(4))
        timeline.setAlarm(.power, at: Self.at(6))
        timeline.setAlarm(.power, at: Self.at(4))
        #expect(Self.takeAll(&timeline, by: 10) == [.request(Self.id(1)), .alarm(.power, at: Self.at(4))])
    }

    @Test("compaction keeps the live alarms and drops the stale ones with the abandoned deadlines")
    func compaction() {
        var timeline = Timeline()
        for raw in UInt64(1)...3_000 { timeline.insert(Self.id(raw), timeout: .seconds(Int64(raw % 4 + 1)), from: .zero) }
        for second in Int64(1)...50 { timeline.setAlarm(.authorization, at: Self.at(100 + second)) }
        timeline.setAlarm(.regions, at: Self.at(2))
        let isLive: (RequestID) -> Bool = { $0.rawValue % 10 == 0 }
        #expect(timeline.needsCompaction(pending: 300))
        timeline.compact(isLive: isLive)
        #expect(timeline.count == 300 + 2)
        let taken = Self.takeAll(&timeline, by: 1_000)
        #expect(taken.count { if case .request = $0 { true } else { false } } == 300)
        #expect(taken.filter { if case .alarm = $0 { true } else { false } } == [.alarm(.regions, at: Self.at(2)), .alarm(.authorization, at: Self.at(150))])
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
        #expect(h.machine.nextWakeup == h.machine.timeline.alarm(.regions), "the next wake-up is the regions' unknown timeout")
    }

    @Test("a region's unknown timeout and a request's deadline at one instant both happen in the one wake-up")
    func equalInstants() {
        var h = MachineHarness()
        h.monitor("site")
        h.fix(east: 0)
        let unknownAt = h.machine.nextWakeup!
        h.subscribe("sub", SubscriptionOptions(duration: unknownAt - h.now))
        #expect(h.machine.nextWakeup == unknownAt)
        h.advance(by: unknownAt - h.now)
        #expect(h.ends("sub") == [.durationElapsed])
        #expect(h.transitions["site"] == [.determined(.inside), .becameUnknown])
        #expect(h.transitionInstants["site"]?.last == unknownAt)
    }
}

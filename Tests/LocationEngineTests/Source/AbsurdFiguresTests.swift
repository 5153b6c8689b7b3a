import Testing
@testable import LocationEngine

/// A source may give any finite figure: an accuracy of 10^19 m, a reach of 10^300 m. The engine takes them as
/// the figures they are — a fix that serves nobody, a source that serves no fine request — through every part
/// that reads them (one-shots and their reasons, subscriptions' filters, regions' decisions and the power
/// planner's sleeps), and never converts one into an integer or a duration it does not fit.
@Suite("Absurd but finite figures from a source")
struct AbsurdFiguresTests {
    @Test("a vast accuracy goes through one-shots, subscriptions, monitors and the power plan without a trap", arguments: [1e19, 1e300, Double.greatestFiniteMagnitude])
    func vastAccuracy(accuracy: Double) {
        let vast = SourceCapabilities(providesCourse: true, reach: 1e300, cost: SourceCost(watts: 0.02), firstFixTime: .seconds(2))
        for sources in [[SourceCapabilities(providesCourse: true, powerProfile: .mt3339, firstFixTime: .seconds(5))], [vast]] {
            var h = MachineHarness(powerDown: .fixedLinger, sources: sources)
            h.monitor("now")
            h.monitor("budget", options: GeofenceOptions(responsiveness: .seconds(60)))
            h.subscribe("all")
            h.subscribe("moved", SubscriptionOptions(distanceFilter: 10))
            h.oneShot("city", .city, timeout: .seconds(30))
            h.oneShot("room", .room, timeout: .seconds(30))
            h.fix(east: 0, accuracy: accuracy)
            h.advance(by: .seconds(5))
            h.fix(east: 500, accuracy: accuracy)
            h.advance(by: .seconds(600))
            #expect(h.onlyResult("room")?.status == .timedOut, "a fix known nowhere near a room's accuracy")
            #expect(h.onlyResult("room")?.reason?.message.contains("over 1,000,000 km") == true)
            #expect(h.onlyResult("city")?.status == .timedOut)
            #expect(h.machine.statistics(now: h.now).activeSubscriptions == 4)
        }
    }

    @Test("a capability set later is bounded as at init: no NaN or negative reach or cost reaches the planner")
    func capabilitiesSetLaterAreBounded() {
        var capabilities = SourceCapabilities(providesCourse: true, reach: 1000)
        capabilities.reach = .nan
        capabilities.reachByMode = [.medium: -50, .low: .infinity, .lowest: 3000]
        capabilities.cost.watts = .nan
        #expect(capabilities.reach == 0 && capabilities.reachByMode == [.medium: 0, .low: 0, .lowest: 3000])
        #expect(capabilities.cost.watts == 0)
        #expect(capabilities.serves(.best), "a reach of 0 serves every request, as at init")
    }

    @Test("the span between any two instants of the timeline is exact, the ends of the range too (it wrapped)")
    func spanBetweenTheEnds() {
        let first = EngineInstant(nanoseconds: .min), last = EngineInstant(nanoseconds: .max)
        #expect(last - first == .nanoseconds(Int64.max) * 2 + .nanoseconds(1))
        #expect(first - last == .zero - (.nanoseconds(Int64.max) * 2 + .nanoseconds(1)))
        #expect(last - EngineInstant(nanoseconds: 1) == .nanoseconds(Int64.max - 1))
        #expect(EngineInstant.zero + .seconds(-1e12) - last < .zero)
    }
}

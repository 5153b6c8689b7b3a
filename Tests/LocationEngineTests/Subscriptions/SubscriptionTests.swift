import Testing
@testable import LocationEngine

@Suite("Continuous requests")
struct SubscriptionTests {
    @Test("accuracy filter drops fixes that are too coarse or too old")
    func accuracyFilter() {
        var h = MachineHarness()
        h.subscribe("s", SubscriptionOptions(accuracy: .block))
        h.fix(150)
        h.fix(90)
        h.fix(90, age: .seconds(61))
        h.fix(100)
        #expect(h.deliveredAccuracies("s") == [90, 100])
    }

    @Test("distance filter: only after moving that far from the last delivered fix")
    func distanceFilter() {
        var h = MachineHarness()
        h.subscribe("s", SubscriptionOptions(distanceFilter: 100))
        h.fix(5, latitude: 48.0)
        h.fix(6, latitude: 48.0005)  // ~56 m
        h.fix(7, latitude: 48.001)  // ~111 m from the first
        h.fix(8, latitude: 48.0015)  // ~56 m from the last delivered
        #expect(h.deliveredAccuracies("s") == [5, 7])
    }

    @Test("across a change of accuracy, a significant change is measured cell to cell: a device that stayed in its cell has not moved")
    func significantChangeAcrossAccuracy() throws {
        let policy = ReducedAccuracyPolicy()
        var h = MachineHarness(accuracy: .reduced, reducedAccuracy: ReducedAccuracyPolicy(gridSpacing: 3000, minimumInterval: .zero))
        h.subscribe("significant", SubscriptionOptions(kind: .significantChange))
        h.fix(Location(latitude: 48, longitude: 11, horizontalAccuracy: 10))
        let centre = policy.coarsen(Location(latitude: 48, longitude: 11, horizontalAccuracy: 10))
        // Full accuracy again (the user allowed it): a precise fix 1 km from the cell's centre, inside the cell.
        let inside = Location(latitude: centre.latitude + 1000 / 111_195, longitude: centre.longitude, horizontalAccuracy: 10)
        try #require(policy.coarsen(inside).latitude == centre.latitude && inside.distance(to: centre) > 900)
        h.receive(MachineHarness.picture(.authorized, .full))
        h.advance(by: .seconds(1))
        h.fix(inside)
        #expect(h.events["significant"]?.count == 1, "the device stayed in its cell: no significant change")
        // 600 m further north is the next cell: a significant change.
        h.fix(Location(latitude: inside.latitude + 600 / 111_195, longitude: inside.longitude, horizontalAccuracy: 10))
        #expect(h.events["significant"]?.count == 2)
        // From there, precise to precise, as usual: 300 m is none, 600 m is one.
        let delivered = try #require(h.events["significant"]?.last.flatMap { if case .location(let update) = $0 { update.location } else { nil } })
        h.fix(Location(latitude: delivered.latitude + 300 / 111_195, longitude: delivered.longitude, horizontalAccuracy: 10))
        #expect(h.events["significant"]?.count == 2)
        h.fix(Location(latitude: delivered.latitude + 600 / 111_195, longitude: delivered.longitude, horizontalAccuracy: 10))
        #expect(h.events["significant"]?.count == 3)
    }

    @Test("minimum interval paces deliveries")
    func minimumInterval() {
        var h = MachineHarness()
        h.subscribe("s", SubscriptionOptions(minimumInterval: .seconds(5)))
        for second in 0..<12 {
            h.fix(Double(second + 1))
            h.advance(by: .seconds(1))
        }
        #expect(h.deliveredAccuracies("s") == [1, 6, 11])
    }

    @Test("maximum updates ends the subscription by itself, once")
    func maximumUpdates() {
        var h = MachineHarness()
        h.subscribe("s", SubscriptionOptions(maximumUpdates: 3))
        for metres in 1...5 { h.fix(Double(metres)) }
        #expect(h.deliveredAccuracies("s") == [1, 2, 3])
        #expect(h.ends("s") == [.maximumUpdatesReached])
        #expect(!h.machine.isSourceOn)
    }

    @Test("duration ends the subscription by itself, once")
    func duration() {
        var h = MachineHarness()
        h.subscribe("s", SubscriptionOptions(duration: .seconds(10)))
        h.advance(by: .seconds(9))
        h.fix(10)
        h.advance(by: .seconds(1))
        h.fix(10)
        #expect(h.deliveredAccuracies("s") == [10])
        #expect(h.ends("s") == [.durationElapsed])
        h.forceComplete("s")
        #expect(h.ends("s").count == 1)
    }

    @Test("force-complete ends a subscription with its own event")
    func forceComplete() {
        var h = MachineHarness()
        h.subscribe("s")
        h.forceComplete("s")
        #expect(h.ends("s") == [.forceCompleted])
        #expect(!h.machine.isSourceOn)
    }

    @Test("invalid options are rejected at once", arguments: [
        SubscriptionOptions(distanceFilter: -1),
        SubscriptionOptions(distanceFilter: .infinity),
        SubscriptionOptions(minimumInterval: .seconds(-1)),
        SubscriptionOptions(maximumUpdates: 0),
        SubscriptionOptions(duration: .zero),
        SubscriptionOptions(accuracy: .custom(metres: 0, maximumAge: .seconds(1))),
        SubscriptionOptions(kind: .significantChange, significantDistance: .nan),
    ])
    func invalidOptions(options: SubscriptionOptions) {
        var h = MachineHarness()
        h.subscribe("s", options)
        guard case .rejected? = h.ends("s").first else {
            Issue.record("expected a rejection, got \(String(describing: h.events["s"]))")
            return
        }
        #expect(h.ends("s").count == 1)
        #expect(!h.machine.isSourceOn)
    }

    @Test("a fix, and a source's error, reach the subscriptions in the order they were made, after many ended")
    func notifiedInSubmissionOrder() {
        var h = MachineHarness()
        let first = (0..<300).map { "s\($0)" }
        for tag in first { h.subscribe(tag) }
        // Three in four end (enough for the table to close its holes), then more come after them.
        for (index, tag) in first.enumerated() where index % 4 != 0 { h.cancel(tag) }
        let later = (300..<350).map { "s\($0)" }
        for tag in later { h.subscribe(tag) }
        let expected = first.enumerated().filter { $0.offset % 4 == 0 }.map(\.element) + later
        h.fix(5)
        #expect(h.notificationOrder == expected)
        h.notificationOrder = []
        h.transientError()
        #expect(h.notificationOrder == expected)
    }

    @Test("a fix with a course reaches heading and location subscriptions together in the order they were made")
    func headingsInSubmissionOrder() {
        var h = MachineHarness()
        h.subscribe("heading 1", SubscriptionOptions(kind: .heading))
        h.subscribe("location 2")
        h.subscribe("location 3")
        h.subscribe("heading 4", SubscriptionOptions(kind: .heading))
        h.subscribe("location 5")
        h.fix(5, course: 90)
        #expect(h.notificationOrder == ["heading 1", "location 2", "location 3", "heading 4", "location 5"])
        // A fix without a course passes the location subscriptions only, still in order.
        h.notificationOrder = []
        h.fix(5, latitude: 48.1)
        #expect(h.notificationOrder == ["location 2", "location 3", "location 5"])
    }
}

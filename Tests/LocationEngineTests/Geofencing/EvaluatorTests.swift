import Testing
@_spi(Internals) @testable import LocationEngine

/// Drives a ``RegionEvaluator`` on a virtual timeline and records what it says.
final class EvaluatorHarness {
    var evaluator: RegionEvaluator
    var now = EngineInstant.zero
    var events: [GeofenceEvent] = []
    let origin = GeoPoint(latitude: 52.52, longitude: 13.405)

    init(_ configuration: GeofenceConfiguration = GeofenceConfiguration()) throws {
        evaluator = try RegionEvaluator(configuration: configuration)
    }

    /// A fix `east` (and `north`) metres from the origin, of `accuracy` metres, at the current instant.
    func fix(east: Double, north: Double = 0, accuracy: Double = 5) {
        let point = offset(origin, north: north, east: east)
        evaluator.receiveFix(Location(latitude: point.latitude, longitude: point.longitude, horizontalAccuracy: accuracy), now: now)
        drain()
    }

    func advance(by duration: Duration) {
        now = now + duration
        evaluator.advanceTime(now: now)
        drain()
    }

    func drain() {
        while let event = evaluator.nextEvent() { events.append(event) }
    }

    /// The transitions of `id` so far, and forgets all events.
    func take(_ id: UInt64 = 1) -> [GeofenceTransition] {
        defer { events.removeAll() }
        return events.filter { $0.id == RequestID(rawValue: id) }.map(\.transition)
    }

    /// A circle of `radius` metres around the origin, as request `id`, in the state `restored` gives it, added at `at`.
    func circle(
        _ id: UInt64 = 1, radius: Double = 200, loitering: Duration? = nil, restored: GeofenceRestoredState? = nil, at: EngineInstant? = nil
    ) throws {
        let region = try GeofenceRegion.circle(centre: origin, radius: radius)
        evaluator.add(RequestID(rawValue: id), region: region, options: GeofenceOptions(loiteringDelay: loitering, restoredState: restored), at: at)
    }
}

@Suite("Geofence evaluator")
struct EvaluatorTests {
    // With a 5 m fix, a region is decided 2 × 5 + max(20, 5) = 30 m across its boundary.

    @Test("the first confident fix determines the state; an undecided one leaves it unknown")
    func initialState() throws {
        let h = try EvaluatorHarness()
        try h.circle(1)
        try h.circle(2, radius: 100)
        h.fix(east: 0)
        #expect(h.take(1) == [.determined(.inside)])
        let g = try EvaluatorHarness()
        try g.circle()
        g.fix(east: 215)
        #expect(g.take() == [])
        #expect(g.evaluator.state(of: RequestID(rawValue: 1)) == .unknown)
        g.fix(east: 231)
        #expect(g.take() == [.determined(.outside)])
    }

    @Test("hysteresis: in only 30 m inside, out only 30 m outside, nothing in between, either way")
    func hysteresis() throws {
        let h = try EvaluatorHarness()
        try h.circle()
        h.fix(east: 1000)
        #expect(h.take() == [.determined(.outside)])
        for east in [229.0, 199, 185, 171] { h.fix(east: east) }
        #expect(h.take() == [])
        h.fix(east: 169)
        #expect(h.take() == [.entered])
        for east in [171.0, 200, 215, 229] { h.fix(east: east) }
        #expect(h.take() == [])
        #expect(h.evaluator.state(of: RequestID(rawValue: 1)) == .inside)
        h.fix(east: 231)
        #expect(h.take() == [.exited])
        // A worse fix needs more: 2 × 40 + 40 = 120 m.
        h.fix(east: 81, accuracy: 40)
        #expect(h.take() == [])
        h.fix(east: 79, accuracy: 40)
        #expect(h.take() == [.entered])
    }

    @Test("the margin and the confidence circle are configurable")
    func configurable() throws {
        let h = try EvaluatorHarness(GeofenceConfiguration(minimumMargin: 50, accuracyMargin: 0, confidenceScale: 1))
        try h.circle()
        h.fix(east: 254)
        #expect(h.take() == [])
        h.fix(east: 256)
        #expect(h.take() == [.determined(.outside)])
        #expect(throws: GeofenceError.invalidOption("minimumMargin")) { try RegionEvaluator(configuration: GeofenceConfiguration(minimumMargin: -1)) }
        #expect(throws: GeofenceError.invalidOption("confidenceScale")) { try RegionEvaluator(configuration: GeofenceConfiguration(confidenceScale: .nan)) }
        #expect(throws: GeofenceError.invalidOption("unknownAfter")) { try RegionEvaluator(configuration: GeofenceConfiguration(unknownAfter: .zero)) }
        #expect(throws: GeofenceError.invalidOption("loiteringDelay")) { try GeofenceOptions(loiteringDelay: .seconds(-1)).validate() }
    }

    @Test("dwell comes at exactly its delay after entering, once per stay, and not after leaving")
    func dwell() throws {
        let h = try EvaluatorHarness(GeofenceConfiguration(unknownAfter: nil))
        try h.circle(loitering: .seconds(60))
        h.fix(east: 1000)
        h.advance(by: .seconds(10))
        h.fix(east: 0)
        #expect(h.take() == [.determined(.outside), .entered])
        #expect(h.evaluator.nextDeadline == EngineInstant(.seconds(70)))
        h.advance(by: .seconds(60) - .nanoseconds(1))
        #expect(h.take() == [])
        h.advance(by: .nanoseconds(1))
        #expect(h.events.map(\.at) == [EngineInstant(.seconds(70))])
        #expect(h.take() == [.dwelled])
        h.fix(east: 0)
        h.advance(by: .seconds(600))
        #expect(h.take() == [])
        // Leaving before the delay cancels the dwell and its wake-up.
        h.fix(east: 1000)
        h.fix(east: 0)
        h.advance(by: .seconds(30))
        h.fix(east: 1000)
        #expect(h.take() == [.exited, .entered, .exited])
        #expect(h.evaluator.nextDeadline == nil)
        h.advance(by: .seconds(60))
        #expect(h.take() == [])
    }

    @Test("a fix taken before the last one decides nothing: no exit and entry from a stale position, no second dwell")
    func aFixOlderThanTheLastDecidesNothing() throws {
        let h = try EvaluatorHarness(GeofenceConfiguration(unknownAfter: nil))
        try h.circle(loitering: .seconds(60))
        h.advance(by: .seconds(100))
        h.fix(east: 0)
        #expect(h.take() == [.determined(.inside)])
        // A fix 1.1 km away, taken 50 s before the last one, arrives a second later (another source, a buffer).
        h.advance(by: .seconds(1))
        let stale = offset(h.origin, north: 0, east: 1100)
        h.evaluator.receiveFix(Location(latitude: stale.latitude, longitude: stale.longitude, horizontalAccuracy: 5), observedAt: EngineInstant(.seconds(50)), now: h.now)
        h.drain()
        h.advance(by: .seconds(1))
        h.fix(east: 0)
        #expect(h.take() == [], "the device never left")
        h.advance(by: .seconds(60))
        #expect(h.take() == [.dwelled], "one dwell, counted from the first entry")
    }

    @Test("fixes that all arrive aged by more than their interval are each taken, stamped when they were taken")
    func steadilyAgedFixesAreAllTaken() throws {
        let h = try EvaluatorHarness(GeofenceConfiguration(unknownAfter: nil))
        try h.circle()
        // A source at 1 Hz whose fixes arrive 2.5 s after they were taken, walking east into and out of the circle.
        for second in 10...60 {
            h.now = EngineInstant(.seconds(second))
            let point = offset(h.origin, north: 0, east: -600 + 24 * Double(second - 10))
            let taken = h.evaluator.receiveFix(
                Location(latitude: point.latitude, longitude: point.longitude, horizontalAccuracy: 5), observedAt: h.now - .milliseconds(2500), now: h.now)
            #expect(taken, "the fix arriving at \(second) s is newer than every one before it")
            h.drain()
        }
        #expect(h.events.map(\.transition) == [.determined(.outside), .entered, .exited])
        #expect(h.events.allSatisfy { $0.at.sinceEpoch.components.attoseconds == 500_000_000_000_000_000 }, "stamped when taken: \(h.events.map(\.at))")
    }

    @Test("deadlines scheduled when the stale ones are dropped all fire: 200 regions entered at once each dwell")
    func everyDeadlineSurvivesCompaction() throws {
        let h = try EvaluatorHarness(GeofenceConfiguration(unknownAfter: nil))
        for id in 1...200 as ClosedRange<UInt64> { try h.circle(id, loitering: .seconds(60)) }
        h.fix(east: 0)
        h.advance(by: .seconds(60))
        #expect(h.events.filter { $0.transition == .dwelled }.count == 200)
    }

    @Test("an aged fix arriving after a deadline fired is stamped no earlier than that deadline")
    func anAgedFixIsNotStampedBeforeWhatWasReported() throws {
        let h = try EvaluatorHarness()
        try h.circle()
        h.fix(east: 0)
        #expect(h.take() == [.determined(.inside)])
        h.advance(by: .seconds(120))
        #expect(h.take() == [.becameUnknown])
        let unknownAt = h.now
        h.advance(by: .seconds(1))
        let inside = offset(h.origin, north: 0, east: 0)
        h.evaluator.receiveFix(Location(latitude: inside.latitude, longitude: inside.longitude, horizontalAccuracy: 5), observedAt: unknownAt - .seconds(5), now: h.now)
        h.drain()
        #expect(h.events.map(\.transition) == [.determined(.inside)])
        #expect(h.events.allSatisfy { $0.at >= unknownAt }, "\(h.events.map(\.at)) before \(unknownAt)")
    }

    @Test("a region restored after fixes stopped holds its state for the unknown timeout from its start, not the others'")
    func aRestoredRegionHoldsItsOwnTimeout() throws {
        let h = try EvaluatorHarness()
        try h.circle(1)
        h.fix(east: 0)
        #expect(h.take(1) == [.determined(.inside)])
        h.advance(by: .seconds(100))
        let added = h.now
        let region = try GeofenceRegion.circle(centre: h.origin, radius: 300)
        h.evaluator.add(RequestID(rawValue: 2), region: region, options: GeofenceOptions(restoredState: GeofenceRestoredState(.inside, since: .zero)), at: added)
        h.advance(by: .seconds(20))
        #expect(h.events.map(\.id.rawValue) == [1], "only the region the stopped fixes decided goes unknown at their timeout")
        h.events.removeAll()
        h.advance(by: .seconds(100))
        #expect(h.events.map(\.transition) == [.becameUnknown] && h.events.map(\.at) == [added + .seconds(120)])
    }

    @Test("entries and exits under a week's loitering delay leave no pile of stale deadlines")
    func staleDeadlinesDoNotPileUp() throws {
        let h = try EvaluatorHarness(GeofenceConfiguration(unknownAfter: nil))
        // A large region whose dwell, a day away, stays at the top of the deadlines; a small one inside it,
        // entered and left again and again, whose week-long dwells fall behind it.
        try h.circle(1, radius: 5000, loitering: .seconds(86_400))
        let small = try GeofenceRegion.circle(centre: offset(h.origin, north: 0, east: 2000), radius: 100)
        h.evaluator.add(RequestID(rawValue: 2), region: small, options: GeofenceOptions(loiteringDelay: .seconds(7 * 86_400)))
        for _ in 0..<10_000 {
            h.fix(east: 2000)
            h.advance(by: .seconds(1))
            h.fix(east: 0)
            h.advance(by: .seconds(1))
        }
        #expect(h.take(2).count == 20_000)
        #expect(h.evaluator.deadlines.count <= 2 * RegionEvaluator.fewestDeadlinesCompacted, "\(h.evaluator.deadlines.count) kept")
        h.fix(east: 2000)
        h.advance(by: .seconds(7 * 86_400))
        let events = h.events
        #expect(events.filter { $0.id.rawValue == 1 }.map(\.transition) == [.dwelled], "the large region's live dwell survives the compactions")
        #expect(events.filter { $0.id.rawValue == 2 }.map(\.transition) == [.entered, .dwelled])
    }

    @Test("a dwell of zero comes right after the entry")
    func zeroDwell() throws {
        let h = try EvaluatorHarness()
        try h.circle(loitering: .zero)
        h.fix(east: 0)
        #expect(h.take() == [.determined(.inside), .dwelled])
    }

    @Test("unknown at exactly the timeout after the last confident fix, then determined again")
    func unknownAfterUndecidedFixes() throws {
        let h = try EvaluatorHarness()
        try h.circle(loitering: .seconds(300))
        h.fix(east: 0)
        #expect(h.take() == [.determined(.inside)])
        for _ in 0..<119 {
            h.advance(by: .seconds(1))
            h.fix(east: 195)
        }
        #expect(h.take() == [])
        #expect(h.evaluator.nextDeadline == EngineInstant(.seconds(120)))
        h.advance(by: .seconds(1))
        #expect(h.take() == [.becameUnknown])
        #expect(h.evaluator.state(of: RequestID(rawValue: 1)) == .unknown)
        h.advance(by: .seconds(1000))
        #expect(h.take() == [])
        h.fix(east: 231)
        #expect(h.take() == [.determined(.outside)])
    }

    @Test("with no fix at all every known region becomes unknown at once; far regions stay known on inaccurate fixes")
    func unknownWithoutFixes() throws {
        let h = try EvaluatorHarness()
        try h.circle(1)
        try h.circle(2, radius: 50)
        h.fix(east: 120)
        #expect(h.events.filter { $0.id.rawValue == 1 }.map(\.transition) == [.determined(.inside)])
        #expect(h.events.filter { $0.id.rawValue == 2 }.map(\.transition) == [.determined(.outside)])
        h.events.removeAll()
        h.advance(by: .seconds(119))
        h.fix(east: 5000, accuracy: 500)
        #expect(h.events.map(\.transition) == [.exited])
        h.events.removeAll()
        h.advance(by: .seconds(119))
        #expect(h.events.isEmpty)
        h.advance(by: .seconds(1))
        #expect(h.events.map(\.id.rawValue) == [1, 2])
        #expect(h.events.allSatisfy { $0.transition == .becameUnknown && $0.at == EngineInstant(.seconds(239)) })
        #expect(h.evaluator.nextDeadline == nil)
    }

    @Test("a cross: two confident fixes outside on either side give entered then exited, in order")
    func cross() throws {
        let h = try EvaluatorHarness()
        try h.circle(1)
        try h.circle(2, radius: 20)
        h.fix(east: -1000)
        h.events.removeAll()
        h.advance(by: .seconds(60))
        h.fix(east: 1000, north: 20)
        #expect(h.events.allSatisfy { $0.at == EngineInstant(.seconds(60)) })
        #expect(h.events.count == 4)
        #expect(h.take(2) == [.entered, .exited])
        h.fix(east: 1000, north: 0)
        h.advance(by: .seconds(60))
        h.fix(east: -1000, north: 0)
        #expect(h.take(1) == [.entered, .exited])
        // A segment that misses the circles.
        h.advance(by: .seconds(60))
        h.fix(east: 1000, north: 600)
        #expect(h.take() == [])
    }

    @Test("no cross from an undecided fix, nor over a jump longer than the limit")
    func noCross() throws {
        let h = try EvaluatorHarness(GeofenceConfiguration(maximumCrossingSegment: 1500))
        try h.circle()
        h.fix(east: -1000)
        h.fix(east: -215)
        h.fix(east: 1000)
        #expect(h.take() == [.determined(.outside)])
        h.fix(east: -1000)
        #expect(h.take() == [])
        h.fix(east: -250)
        h.advance(by: .seconds(10))
        h.fix(east: 250)
        #expect(h.take() == [.entered, .exited])
    }

    @Test("two fixes no device could join (one of them wrong: two sources at one instant, a multipath jump) report no crossing, nor does the fix after")
    func inconsistentFixesAreNoPassage() throws {
        let h = try EvaluatorHarness()
        try h.circle(radius: 100)
        h.fix(east: -1000)
        #expect(h.take() == [.determined(.outside)])
        h.fix(east: 1000)   // the same instant, 2 km away
        #expect(h.take() == [])
        h.advance(by: .seconds(1))
        h.fix(east: -1000)  // back, a second later
        #expect(h.take() == [])
        #expect(h.evaluator.state(of: RequestID(rawValue: 1)) == .outside)
    }

    @Test("between fixes far apart, a cross only where every way at the maximum speed passes through the region")
    func crossAfterPlannedSleep() throws {
        // 2 km between fixes 1 km either side of the 200 m circle; the straight line reaches 200 m inside. At 30 m/s
        // over t seconds a way may stray h = √((30 t)² − 2000²) / 2 from the line: about 100 m after 67 s, 320 m
        // after 70 s, when a road could have gone around the circle.
        for (seconds, crossed) in [(67, true), (70, false)] {
            let h = try EvaluatorHarness()
            try h.circle()
            h.fix(east: -1000)
            #expect(h.take() == [.determined(.outside)])
            h.evaluator.holdStates(until: EngineInstant(.seconds(seconds)))
            h.advance(by: .seconds(seconds))
            h.fix(east: 1000)
            #expect(h.take() == (crossed ? [.entered, .exited] : []), "after \(seconds) s")
            #expect(h.evaluator.state(of: RequestID(rawValue: 1)) == .outside)
        }
        // Faster than the maximum speed over the whole gap: the device went straight, and so does the reading —
        // through the region wherever in the fixes' confidence circles (10 m at 5 m accuracy) it was: the line
        // passes 15 m inside.
        let fast = try EvaluatorHarness()
        try fast.circle(radius: 20)
        fast.fix(east: -1000)
        _ = fast.take()
        fast.evaluator.holdStates(until: EngineInstant(.seconds(60)))
        fast.advance(by: .seconds(60))
        fast.fix(east: 1000, north: 5)
        #expect(fast.take() == [.entered, .exited])
        // Fixes a source gave that far apart on its own (an outage, a sparse source), no sleep planned: the same
        // rule, a road could have skirted the circle after 70 s.
        for (seconds, crossed) in [(67, true), (70, false)] {
            let sparse = try EvaluatorHarness()
            try sparse.circle()
            sparse.fix(east: -1000)
            _ = sparse.take()
            sparse.advance(by: .seconds(seconds))
            sparse.fix(east: 1000)
            #expect(sparse.take() == (crossed ? [.entered, .exited] : []), "after \(seconds) s without a planned sleep")
        }
    }

    @Test("a line between two fixes that grazes a region is no crossing: the device was anywhere in each fix's confidence circle")
    func aGrazingLineIsNoCrossing() throws {
        // A road 3 m north of the origin, a 50 m circle centred 52 m north of it: the road stays 1 m clear of it,
        // and so does the line between two fixes on the road — 1,000 m in 30 s, straight at more than the
        // maximum speed. A straight way 5 m south of each (one accuracy) stays 6 m clear of the circle.
        for (north, crossed) in [(3.0, false), (15.0, true)] {
            let h = try EvaluatorHarness()
            let centre = offset(h.origin, north: 52, east: 0)
            h.evaluator.add(RequestID(rawValue: 1), region: try GeofenceRegion.circle(centre: centre, radius: 50), options: GeofenceOptions())
            h.fix(east: -500, north: north)
            #expect(h.take() == [.determined(.outside)])
            h.advance(by: .seconds(30))
            h.fix(east: 500, north: north)
            // 15 m north the line is 13 m inside: deeper than either fix's 10 m confidence radius.
            #expect(h.take() == (crossed ? [.entered, .exited] : []), "a road \(north) m north")
        }
        // Between fixes a planned sleep apart, the line 150 m inside a 200 m circle. Straight at the maximum speed
        // (60 s): crossed. Slower (67 s: 2,010 m at 30 m/s for 2,000 m, at least 1,980 m between the true positions),
        // a way may stray h = √(2010² − 1980²) / 2 = 173 m from the line between them, which lies within 10 m of
        // the fixes': a road could have gone around the circle (reading the fixes as exact, h was 100 m).
        for (seconds, crossed) in [(60, true), (67, false)] {
            let h = try EvaluatorHarness()
            try h.circle()
            h.fix(east: -1000, north: 50)
            _ = h.take()
            h.evaluator.holdStates(until: EngineInstant(.seconds(seconds)))
            h.advance(by: .seconds(seconds))
            h.fix(east: 1000, north: 50)
            #expect(h.take() == (crossed ? [.entered, .exited] : []), "after \(seconds) s")
        }
    }

    @Test("a removed region says nothing more and leaves no wake-up behind")
    func removal() throws {
        let h = try EvaluatorHarness(GeofenceConfiguration(unknownAfter: nil))
        try h.circle(loitering: .seconds(60))
        h.fix(east: 0)
        #expect(h.take() == [.determined(.inside)])
        #expect(h.evaluator.nextDeadline == EngineInstant(.seconds(60)))
        let removed = h.evaluator.remove(RequestID(rawValue: 1))
        let removedAgain = h.evaluator.remove(RequestID(rawValue: 1))
        #expect(removed && !removedAgain)
        #expect(h.evaluator.nextDeadline == nil)
        h.advance(by: .seconds(60))
        h.fix(east: 1000)
        #expect(h.events.isEmpty)
        // Its slot is reused by the next region, which starts unknown.
        try h.circle(2)
        h.fix(east: 1000)
        #expect(h.take(2) == [.determined(.outside)])
    }

    @Test("an invalid fix decides nothing")
    func invalidFix() throws {
        let h = try EvaluatorHarness()
        try h.circle()
        h.evaluator.receiveFix(Location(latitude: .nan, longitude: 0, horizontalAccuracy: 5), now: .zero)
        h.evaluator.receiveFix(Location(latitude: 52.52, longitude: 13.405, horizontalAccuracy: -1), now: .zero)
        h.drain()
        #expect(h.take() == [])
    }

    @Test("the transitions one fix decides, and those of no fix for the unknown timeout, come in the order the monitors were made, slots reused or not")
    func oneFixDecidesInSubmissionOrder() throws {
        let h = try EvaluatorHarness()
        // Far and near circles, unknown until the first fix; some leave and newer ones take their slots.
        for id in 1...80 as ClosedRange<UInt64> {
            let centre = offset(h.origin, north: 0, east: id % 2 == 0 ? Double(id) * 1_000 : 0)
            h.evaluator.add(RequestID(rawValue: id), region: try GeofenceRegion.circle(centre: centre, radius: 200), options: GeofenceOptions())
        }
        for id in stride(from: 3, through: 80, by: 3) as StrideThrough<UInt64> { _ = h.evaluator.remove(RequestID(rawValue: id)) }
        for id in 81...100 as ClosedRange<UInt64> {
            h.evaluator.add(RequestID(rawValue: id), region: try GeofenceRegion.circle(centre: h.origin, radius: 200), options: GeofenceOptions())
        }
        h.fix(east: 0)
        let ids = h.events.map(\.id.rawValue)
        #expect(ids.count == 74)
        #expect(ids == ids.sorted())
        #expect(Set(h.events.map(\.transition)) == [.determined(.inside), .determined(.outside)])
        // No fix for the unknown timeout: every region goes unknown at once, in the same order.
        h.events.removeAll()
        h.advance(by: .seconds(121))
        #expect(h.events.map(\.id.rawValue) == ids)
        #expect(h.events.allSatisfy { $0.transition == .becameUnknown })
    }

    @Test("a large circle: two fixes both confidently outside, off its south-east edge, are no crossing (the local plane said one)")
    func largeCircleNoFalseCrossing() throws {
        var evaluator = try RegionEvaluator()
        let centre = GeoPoint(latitude: 45, longitude: 0)
        evaluator.add(RequestID(rawValue: 1), region: try .circle(centre: centre, radius: 50_000))
        let near = GeoPoint(latitude: 44.68, longitude: 0.4466), next = GeoPoint(latitude: 44.68001, longitude: 0.44661)
        // Both about 60 m outside by the haversine the circle is decided by; the decision distance at 5 m is 30 m.
        #expect(centre.distance(to: near) - 50_000 > 30 && centre.distance(to: next) - 50_000 > 30)
        var events: [GeofenceTransition] = []
        var now = EngineInstant.zero
        for point in [near, next, near, next] {
            evaluator.receiveFix(Location(latitude: point.latitude, longitude: point.longitude, horizontalAccuracy: 5), now: now)
            while let event = evaluator.nextEvent() { events.append(event.transition) }
            now = now + .seconds(1)
        }
        #expect(events == [.determined(.outside)])
        // A path that does pass inside is still found: a chord of 15 km off the same edge, between two points
        // about 300 m out, dips a few hundred metres in.
        let circle = try GeofenceRegion.circle(centre: centre, radius: 50_000)
        let angles = [-0.785 - 0.15, -0.785 + 0.15]
        let ends = angles.map { offset(centre, north: 50_300 * _sin($0), east: 50_300 * _cos($0)) }
        for end in ends { #expect(circle.signedDistance(to: end) > 30, "\(circle.signedDistance(to: end))") }
        #expect(circle.signedDistance(to: ends[0].along(to: ends[1], 0.5)) < 0)
        #expect(circle.isCrossed(from: ends[0], to: ends[1]))
    }
    @Test("a region that dwelled, went unknown and is found inside again is the same stay: no second dwell; one that had not dwelled counts afresh")
    func noSecondDwellAfterUnknown() throws {
        let h = try EvaluatorHarness()
        try h.circle(loitering: .seconds(60))
        h.fix(east: 0)
        h.advance(by: .seconds(60))
        h.advance(by: .seconds(60))
        #expect(h.take() == [.determined(.inside), .dwelled, .becameUnknown])
        h.fix(east: 0)
        h.advance(by: .seconds(60))
        #expect(h.take() == [.determined(.inside)], "found inside again, in the stay that dwelled")
        // Out and in again: a new stay, which dwells.
        h.fix(east: 1000)
        h.fix(east: 0)
        h.advance(by: .seconds(60))
        #expect(h.take() == [.exited, .entered, .dwelled])

        let g = try EvaluatorHarness()
        try g.circle(loitering: .seconds(150))
        g.fix(east: 0)
        g.advance(by: .seconds(120))
        // Fixes a minute apart from 120 s: inside again, its delay counted from there, due at 270 s.
        for _ in 0..<2 {
            g.fix(east: 0)
            g.advance(by: .seconds(60))
        }
        g.fix(east: 0)
        #expect(g.take() == [.determined(.inside), .becameUnknown, .determined(.inside)])
        g.advance(by: .seconds(29))
        #expect(g.take() == [], "not dwelled before its own delay from the fix that found it inside")
        g.advance(by: .seconds(1))
        #expect(g.take() == [.dwelled], "unknown before its dwell: counted afresh")
    }

    @Test("a region's own unknown timeout at the instant every region times out comes in the monitors' order with them")
    func unknownAtOneInstantInMonitorOrder() throws {
        let h = try EvaluatorHarness()
        try h.circle(1, radius: 200)
        try h.circle(2, radius: 100)
        h.fix(east: 0)
        // A second source's fix at the same instant leaves the small circle undecided: its own timeout runs from
        // the fix that decided it, as every other region's does.
        h.fix(east: 95)
        h.events.removeAll()
        h.advance(by: .seconds(120))
        #expect(h.events.map(\.id.rawValue) == [1, 2])
        #expect(h.events.allSatisfy { $0.transition == .becameUnknown })
    }

    @Test("an aged fix stamped at a deadline reported after it was taken: a crossing is read over the time the device had, not the stamps'")
    func agedFixCrossingUsesTheTimeTaken() throws {
        var configuration = GeofenceConfiguration()
        configuration.unknownAfter = nil
        let h = try EvaluatorHarness(configuration)
        try h.circle(1, radius: 20)
        try h.circle(2, radius: 5000, loitering: .seconds(30))
        h.fix(east: -150)
        h.advance(by: .seconds(30))
        #expect(h.events.map(\.transition) == [.determined(.outside), .determined(.inside), .dwelled])
        h.events.removeAll()
        // Taken at 10 s, it arrives at 31 s and is stamped 30 s (the dwell reported then).
        h.now = EngineInstant(.seconds(31))
        let west = offset(h.origin, north: 0, east: -150)
        h.evaluator.receiveFix(Location(latitude: west.latitude, longitude: west.longitude, horizontalAccuracy: 5), observedAt: EngineInstant(.seconds(10)), now: h.now)
        h.drain()
        h.now = EngineInstant(.seconds(35))
        h.fix(east: 150)
        // 300 m in 25 s: at 30 m/s the device can have gone 750 m, around a 20 m circle as well as through it
        // (in the stamps' 5 s it could only have gone straight).
        #expect(h.take(1) == [])
    }
    @Test("a dwell due at the instant every region times out comes first, whichever deadline was scheduled first")
    func dwellAtTheGlobalTimeoutComesFirst() throws {
        let h = try EvaluatorHarness()
        try h.circle(1, radius: 200)
        try h.circle(2, radius: 100)
        let east = try GeofenceRegion.circle(centre: offset(h.origin, north: 0, east: 200), radius: 150)
        h.evaluator.add(RequestID(rawValue: 3), region: east, options: GeofenceOptions(loiteringDelay: .seconds(120)))
        h.fix(east: 0)
        // At the same instant: the small circle left undecided (its own timeout at 120 s, scheduled first), the
        // east one entered (its dwell at 120 s).
        h.fix(east: 95)
        h.events.removeAll()
        h.advance(by: .seconds(120))
        #expect(h.events.map(\.transition) == [.dwelled, .becameUnknown, .becameUnknown, .becameUnknown])
        #expect(h.events.map(\.id.rawValue) == [3, 1, 2, 3])
    }

    @Test("a restored region a fix leaves undecided holds its state through the sleep planned after the fix, as any other")
    func restoredUndecidedRegionHoldsThroughTheSleep() throws {
        let h = try EvaluatorHarness()
        try h.circle(restored: GeofenceRestoredState(.outside, since: .zero), at: .zero)
        h.advance(by: .seconds(1))
        h.fix(east: 215)
        h.evaluator.holdStates(until: EngineInstant(.seconds(301)))
        h.advance(by: .seconds(199))
        #expect(h.take() == [], "no unknown timeout from the restart in the middle of the sleep")
        h.advance(by: .seconds(221))
        #expect(h.take() == [.becameUnknown], "from the sleep's end")
    }

    @Test("a region restored unknown after a stay that dwelled does not dwell again when a fix finds it inside; one that had not dwelled does")
    func restoredUnknownAfterADwell() throws {
        for dwelled in [true, false] {
            let h = try EvaluatorHarness()
            try h.circle(loitering: .seconds(60), restored: GeofenceRestoredState(.unknown, since: .zero, dwelled: dwelled))
            h.fix(east: 0)
            h.advance(by: .seconds(60))
            #expect(h.take() == (dwelled ? [.determined(.inside)] : [.determined(.inside), .dwelled]), "dwelled before: \(dwelled)")
        }
    }
}

import Foundation
import Testing
@_spi(Internals) @testable import LocationEngine

/// ``RegionReach``: how soon a boundary could be reached from a fix, and the states held meanwhile.
@Suite("Region reach")
struct RegionReachTests {
    // With a 5 m fix a region is decided 2 × 5 + max(20, 5) = 30 m across its boundary.

    /// The evaluator's own distance from the fix `east` metres from the origin to the boundary of a
    /// circle of `radius` around it (the test's reference, measured independently of the grid search).
    func boundaryDistance(_ h: EvaluatorHarness, east: Double, radius: Double) -> Double {
        abs(h.origin.distance(to: offset(h.origin, north: 0, east: east)) - radius)
    }

    /// The reach from a fix `east` (and `north`) metres from the origin, of `accuracy` metres.
    func reach(_ h: EvaluatorHarness, east: Double, north: Double = 0, accuracy: Double = 5) -> RegionReach? {
        let point = offset(h.origin, north: north, east: east)
        return h.evaluator.reach(from: Location(latitude: point.latitude, longitude: point.longitude, horizontalAccuracy: accuracy))
    }

    /// For a few maximum speeds and accuracies: the reach from a fix 1.5 km east of the origin, which decided a
    /// 200 m circle around it, and the distance to its boundary.
    func reachesFromAfar() throws -> [(speed: Double, accuracy: Double, found: RegionReach, distance: Double)] {
        try [(30.0, 5.0), (3.0, 5.0), (30.0, 40.0)].map { speed, accuracy in
            let h = try EvaluatorHarness(GeofenceConfiguration(maximumSpeed: speed))
            try h.circle(radius: 200)
            h.fix(east: 1500, accuracy: accuracy)
            let found = try #require(reach(h, east: 1500, accuracy: accuracy))
            return (speed, accuracy, found, boundaryDistance(h, east: 1500, radius: 200))
        }
    }

    @Test("the slack is the distance less the decision distance; the time is the slack over the maximum speed")
    func formula() throws {
        for (speed, accuracy, found, distance) in try reachesFromAfar() {
            let decision = 2 * accuracy + max(20, accuracy)
            #expect(abs(found.distance - distance) < 1e-6)
            #expect(abs(found.slack - (distance - decision)) < 1e-6)
            let seconds = Double(found.timeToReach.components.seconds) + Double(found.timeToReach.components.attoseconds) * 1e-18
            #expect(abs(seconds - (distance - decision) / speed) < 1e-6, "speed \(speed), accuracy \(accuracy)")
        }
    }

    @Test("with a maximum acceleration, a fix's speed bounds the time: from a standstill the device must first speed up")
    func acceleration() throws {
        let h = try EvaluatorHarness(GeofenceConfiguration(maximumSpeed: 30, maximumAcceleration: 2))
        try h.circle(radius: 200)
        h.fix(east: 1500)
        let point = offset(h.origin, north: 0, east: 1500)
        func seconds(speed: Double?) throws -> Double {
            var fix = Location(latitude: point.latitude, longitude: point.longitude, horizontalAccuracy: 5)
            fix.speed = speed
            let result = h.evaluator.reach(from: fix)
            let found = try #require(result)
            return Double(found.timeToReach.components.seconds) + Double(found.timeToReach.components.attoseconds) * 1e-18
        }
        let slack = boundaryDistance(h, east: 1500, radius: 200) - 30
        // At rest (plus the 1 m/s allowed for the speed's error): up to 30 m/s in 14.5 s, then on at 30 m/s.
        let rampTime = 29.0 / 2, rampDistance = 1 * rampTime + rampTime * rampTime
        #expect(abs(try seconds(speed: 0) - (rampTime + (slack - rampDistance) / 30)) < 1e-6)
        // Already at the maximum speed, or with no speed reported: the slack over the maximum speed.
        #expect(abs(try seconds(speed: 30) - slack / 30) < 1e-6)
        #expect(abs(try seconds(speed: nil) - slack / 30) < 1e-6)
        // A short slack is covered while still speeding up: s = v t + a t² / 2 from 1 m/s.
        let g = try EvaluatorHarness(GeofenceConfiguration(maximumSpeed: 30, maximumAcceleration: 2))
        try g.circle(radius: 200)
        g.fix(east: 330)
        var near = Location(latitude: offset(g.origin, north: 0, east: 330).latitude, longitude: offset(g.origin, north: 0, east: 330).longitude, horizontalAccuracy: 5)
        near.speed = 0
        let short = boundaryDistance(g, east: 330, radius: 200) - 30
        let result = g.evaluator.reach(from: near)
        let found = try #require(result)
        let time = Double(found.timeToReach.components.seconds) + Double(found.timeToReach.components.attoseconds) * 1e-18
        #expect(abs(time - ((1 + 4 * short).squareRoot() - 1) / 2) < 1e-6)
        #expect(throws: GeofenceError.invalidOption("maximumAcceleration")) { try GeofenceConfiguration(maximumAcceleration: 0).validate() }
    }

    @Test("the nearest boundary counts, inside or out, among regions near and far")
    func nearest() throws {
        let h = try EvaluatorHarness()
        try h.circle(1, radius: 3000)
        let farCentre = offset(h.origin, north: 20_000, east: 0)
        h.evaluator.add(RequestID(rawValue: 2), region: try .circle(centre: farCentre, radius: 100))
        h.fix(east: 500)
        // Inside the large circle, 2.5 km from its boundary; the small one is nearly 20 km away.
        let found = try #require(reach(h, east: 500))
        #expect(abs(found.distance - boundaryDistance(h, east: 500, radius: 3000)) < 1e-6)
        // Out of the large circle, 400 m from the small one.
        h.fix(east: 0, north: 19_500)
        let nearSmall = try #require(reach(h, east: 0, north: 19_500))
        let expected = offset(h.origin, north: 19_500, east: 0).distance(to: farCentre) - 100
        #expect(abs(nearSmall.distance - expected) < 1e-6)
    }

    @Test("a polygon's boundary from tens of kilometres poleward is no farther than the great circle says, so a sleep never outlasts the travel to it")
    func polygonFromAfarIsNeverFartherThanTheGreatCircle() throws {
        let east = [(500.0, 100_000.0), (-500, 100_000), (500, -100_000), (-500, -100_000), (0, 100_000), (0, -100_000)]
        // Far east or west at high latitude the great circle to the boundary bulges towards the pole, where a degree
        // of longitude is shortest.
        let cases: [(latitude: Double, points: [(Double, Double)], atLeast: Double)] = [
            (60, [(70_000, 70_000), (50_000, 0), (0, 80_000), (-70_000, 70_000), (2_000, 2_000)] + east, 0.97),
            (70, east + [(2_000, 2_000)], 0.97),
            (80, east + [(2_000, 2_000), (20_000, 20_000)], 0.95),
            (84.5, east + [(2_000, 2_000)], 0.95),
        ]
        for (latitude, points, atLeast) in cases {
            var evaluator = try RegionEvaluator(configuration: GeofenceConfiguration())
            let centre = GeoPoint(latitude: latitude, longitude: 10)
            let corners = [(-500.0, -500.0), (-500, 500), (500, 500), (500, -500)].map { offset(centre, north: $0.0, east: $0.1) }
            evaluator.add(RequestID(rawValue: 1), region: try .polygon(corners))
            for (north, east) in points {
                let point = offset(centre, north: north, east: east)
                let nearest = evaluator.distanceToNearestBoundary(from: point, within: 500_000)
                let found = try #require(nearest)
                // The great-circle distance to the boundary, sampled every metre along its edges.
                var truth = Double.infinity
                for (a, b) in zip(corners, corners.dropFirst() + [corners[0]]) {
                    for step in 0...1000 { truth = min(truth, a.along(to: b, Double(step) / 1000).distance(to: point)) }
                }
                #expect(found <= truth + 0.5, "at \(latitude)°, \(north) m north, \(east) m east: \(found) against \(truth)")
                #expect(found >= truth * atLeast, "at \(latitude)°, \(north) m north, \(east) m east: \(found), no shorter than it must be")
            }
        }
    }

    @Test("the pole-most latitude of a great-circle arc: an end's, or its vertex when the arc passes it")
    func poleMostLatitudeOfAnArc() {
        let a = GeoPoint(latitude: 80, longitude: 0), b = GeoPoint(latitude: 80, longitude: 10)
        // The vertex of the arc between two points at one latitude lies midway: tan φᵥ = tan φ / cos(Δλ/2).
        let vertex = atan(tan(80 * Double.pi / 180) / cos(5 * Double.pi / 180)) * 180 / .pi
        #expect(abs(a.poleMostLatitude(onArcTo: b) - vertex) < 1e-9)
        #expect(abs(b.poleMostLatitude(onArcTo: a) - vertex) < 1e-9)
        let south = GeoPoint(latitude: -80, longitude: 0), southEast = GeoPoint(latitude: -80, longitude: 10)
        #expect(abs(south.poleMostLatitude(onArcTo: southEast) - vertex) < 1e-9, "towards the south pole alike")
        // Along a meridian, or past the vertex, the arc is highest at an end.
        #expect(GeoPoint(latitude: 10, longitude: 3).poleMostLatitude(onArcTo: GeoPoint(latitude: 40, longitude: 3)) == 40)
        #expect(abs(GeoPoint(latitude: 60, longitude: 0).poleMostLatitude(onArcTo: GeoPoint(latitude: 0, longitude: 1)) - 60) < 1e-9)
        #expect(a.poleMostLatitude(onArcTo: a) == 80, "a point alone")
    }

    @Test("no boundary within the horizon's travel: it counts as the horizon away")
    func horizon() throws {
        let h = try EvaluatorHarness(GeofenceConfiguration(maximumSpeed: 2))
        try h.circle(radius: 100)
        // 30 km away at 2 m/s: more than the hour the search looks ahead (7.2 km).
        h.fix(east: 30_000)
        let found = try #require(reach(h, east: 30_000))
        #expect(found.timeToReach == RegionReach.horizon)
        #expect(found.distance == 30 + 2 * 3600)
    }

    @Test("a region in doubt — unknown, or left undecided by the fix — gives no reach")
    func doubt() throws {
        let h = try EvaluatorHarness()
        try h.circle(radius: 200)
        #expect(reach(h, east: 1000) == nil, "unknown before any fix")
        h.fix(east: 1000)
        #expect(reach(h, east: 1000) != nil)
        h.fix(east: 210)
        #expect(h.evaluator.state(of: RequestID(rawValue: 1)) == .outside)
        #expect(reach(h, east: 210) == nil, "undecided by the last fix")
        h.evaluator.remove(RequestID(rawValue: 1))
        #expect(reach(h, east: 210) == nil, "no region")
    }

    @Test("a region the last fix left undecided is in doubt without an unknown timeout too: the receiver is not let sleep, restored or decided")
    func doubtWithoutUnknownTimeout() throws {
        let h = try EvaluatorHarness(GeofenceConfiguration(unknownAfter: nil))
        try h.circle(radius: 200)
        h.fix(east: 1000)
        #expect(reach(h, east: 1000) != nil)
        h.fix(east: 210)
        #expect(h.evaluator.state(of: RequestID(rawValue: 1)) == .outside)
        #expect(reach(h, east: 210) == nil, "undecided by the last fix")
        #expect(h.evaluator.hasRegionInDoubt)
        h.fix(east: 1000)
        #expect(!h.evaluator.hasRegionInDoubt && reach(h, east: 1000) != nil, "decided again")
        let restored = try EvaluatorHarness(GeofenceConfiguration(unknownAfter: nil))
        try restored.circle(restored: GeofenceRestoredState(.outside, since: .zero), at: .zero)
        #expect(restored.evaluator.hasRegionInDoubt, "a restored state no fix has confirmed")
        #expect(restored.evaluator.nextDeadline == nil, "and it never becomes unknown")
    }

    /// A 200 m circle decided outside by a fix 5 km away at 0 s, its state held until 300 s.
    func heldFromAfar() throws -> EvaluatorHarness {
        let h = try EvaluatorHarness()
        try h.circle(radius: 200)
        h.fix(east: 5000)
        _ = h.take()
        h.evaluator.holdStates(until: EngineInstant(.seconds(300)))
        return h
    }

    @Test("held states outlast the unknown timeout until the hold, then time out from it; a fix ends the hold")
    func hold() throws {
        let h = try heldFromAfar()
        #expect(h.evaluator.nextDeadline == EngineInstant(.seconds(420)))
        h.advance(by: .seconds(419))
        #expect(h.take().isEmpty, "no unknown timeout while the state is certain")
        h.advance(by: .seconds(1))
        #expect(h.take() == [.becameUnknown])
        h.fix(east: 5000)
        h.evaluator.holdStates(until: h.now + .seconds(600))
        h.fix(east: 5000)
        #expect(h.evaluator.nextDeadline == h.now + .seconds(120), "the next fix forgets the hold")
    }

    @Test("the decision slack, every region decided: the distance plus the margin, since the truth lies within the confidence circle")
    func decisionSlack() throws {
        for (speed, accuracy, found, distance) in try reachesFromAfar() {
            // The truth is at least distance − 2a out; it is decidable inside 2a + margin in: distance + margin away.
            let margin = max(20, accuracy)
            #expect(abs(found.decisionSlack - (distance + margin)) < 1e-6)
            let seconds = Double(found.timeToDecidable.components.seconds) + Double(found.timeToDecidable.components.attoseconds) * 1e-18
            #expect(abs(seconds - (distance + margin) / speed) < 1e-6, "speed \(speed), accuracy \(accuracy)")
        }
        // Beyond the horizon's travel the time is the horizon.
        let far = try EvaluatorHarness(GeofenceConfiguration(maximumSpeed: 2))
        try far.circle(radius: 100)
        far.fix(east: 30_000)
        #expect(try #require(reach(far, east: 30_000)).timeToDecidable == RegionReach.horizon)
    }

    /// The reach from a fix `east` metres from the origin reporting `speed` (one the source derived from two
    /// fixes when `derived`), of 5 m.
    func reach(_ h: EvaluatorHarness, east: Double, speed: Double?, derived: Bool = false, inDoubtWhileMoving: Bool = false) -> RegionReach? {
        let point = offset(h.origin, north: 0, east: east)
        var fix = Location(latitude: point.latitude, longitude: point.longitude, horizontalAccuracy: 5)
        fix.speed = speed
        fix.motionIsDerived = derived
        return h.evaluator.reach(from: fix, inDoubtWhileMoving: inDoubtWhileMoving)
    }

    @Test("a speed the source derived from two fixes (their average over a sleep) bounds nothing: the reach is a fix's without a speed")
    func aDerivedSpeedBoundsNothing() throws {
        // A car that stood still through a 12 s sleep and set off 4 s before the fix, 6 m/s now: 12 m from the fix
        // before, 1 m/s as the source derives it. Taken as measured, it would say the car is still, and the plan
        // would have it speed up from 2 m/s.
        let h = try EvaluatorHarness(GeofenceConfiguration(maximumSpeed: 17.7, maximumAcceleration: 1.5))
        try h.circle(radius: 200)
        h.fix(east: 5000)
        h.fix(east: 340)
        let measured = try #require(reach(h, east: 340, speed: 1))
        let derived = try #require(reach(h, east: 340, speed: 1, derived: true))
        let unknownSpeed = try #require(reach(h, east: 340, speed: nil))
        #expect(derived == unknownSpeed)
        #expect(derived.timeToDecidable < measured.timeToDecidable)
        let seconds = Double(derived.timeToDecidable.components.seconds) + Double(derived.timeToDecidable.components.attoseconds) * 1e-18
        #expect(abs(seconds - derived.decisionSlack / 17.7) < 1e-6, "at the maximum speed throughout")
        // A region in doubt: a derived speed of zero does not say the device is still.
        h.fix(east: 210)
        h.fix(east: 195)
        #expect(reach(h, east: 195, speed: 0) != nil)
        #expect(reach(h, east: 195, speed: 0, derived: true) == nil)
    }

    @Test("a region in doubt, the fix saying the device is still: as far as the truth must go to be a perfect fix's margin across, less the fix's confidence radius")
    func doubtWhileStill() throws {
        let h = try EvaluatorHarness(GeofenceConfiguration(maximumSpeed: 30, maximumAcceleration: 2))
        try h.circle(radius: 200)
        // A 5 m fix: the truth may be 10 m (2 × 5) from where it says; a perfect fix decides 20 m across.
        // Unknown, 2 m out: decidable outside once the truth is 20 m out, and it may be 12 m out now.
        h.fix(east: 202)
        #expect(h.evaluator.state(of: RequestID(rawValue: 1)) == .unknown)
        let unknown = try #require(reach(h, east: 202, speed: 0))
        #expect(abs(unknown.decisionSlack - 8) < 1e-3)
        // From rest (plus the 1 m/s allowed for the speed's error) at 2 m/s²: s = t + t².
        let seconds = Double(unknown.timeToDecidable.components.seconds) + Double(unknown.timeToDecidable.components.attoseconds) * 1e-18
        #expect(abs(seconds - ((1 + 4 * unknown.decisionSlack).squareRoot() - 1) / 2) < 1e-6)
        #expect(unknown.slack == 0 && unknown.timeToReach == .zero, "the reach of the doubt band is zero, as before")
        // Unknown, 11 m out: the truth may be 21 m out already.
        #expect(reach(h, east: 211, speed: 0) == nil)
        // Known outside, 10 m out: the truth must get 20 m in, and it may be 10 m nearer than the fix: 20 m away.
        h.fix(east: 5000)
        h.fix(east: 210)
        #expect(h.evaluator.state(of: RequestID(rawValue: 1)) == .outside)
        #expect(abs(try #require(reach(h, east: 210, speed: 0.5)).decisionSlack - 20) < 1e-3)
        // Known outside, the fix 5 m in: 5 m to go; 12 m in: the truth may be decidable already.
        h.fix(east: 195)
        #expect(abs(try #require(reach(h, east: 195, speed: 0)).decisionSlack - 5) < 1e-3)
        h.fix(east: 188)
        #expect(reach(h, east: 188, speed: 0) == nil)
        // Moving, or no speed reported: only more fixes can settle it, unless the plan may take the maximum
        // speed instead (a latency budget); then the slack is the still device's.
        h.fix(east: 210)
        #expect(reach(h, east: 210, speed: 1.5) == nil)
        #expect(reach(h, east: 210, speed: nil) == nil)
        let moving = try #require(reach(h, east: 210, speed: 1.5, inDoubtWhileMoving: true))
        #expect(abs(moving.decisionSlack - 20) < 1e-3)
        #expect(try #require(reach(h, east: 210, speed: nil, inDoubtWhileMoving: true)).decisionSlack == moving.decisionSlack)
        h.fix(east: 188)
        #expect(reach(h, east: 188, speed: nil, inDoubtWhileMoving: true) == nil, "decidable already: no slack to plan by")
    }

    @Test("a region the fix after a hold leaves undecided goes unknown the timeout after the hold, not after the fix before it")
    func undecidedAfterHold() throws {
        let h = try heldFromAfar()
        h.advance(by: .seconds(290))
        h.fix(east: 210)
        #expect(h.evaluator.state(of: RequestID(rawValue: 1)) == .outside)
        // Fixes keep coming, all undecided (else every region would time out 2 min after the last one).
        h.advance(by: .seconds(110))
        h.fix(east: 210)
        #expect(h.evaluator.nextDeadline == EngineInstant(.seconds(420)))
        h.advance(by: .seconds(19))
        #expect(h.take().isEmpty)
        h.advance(by: .seconds(1))
        #expect(h.take() == [.becameUnknown])
    }

    @Test("the maximum speed must be finite and positive, with an error naming it")
    func validation() {
        for speed in [Double.nan, -1, 0, .infinity] {
            let configuration = GeofenceConfiguration(maximumSpeed: speed)
            #expect(throws: GeofenceError.invalidOption("maximumSpeed"), "\(speed)") { try configuration.validate() }
            #expect(throws: GeofenceError.invalidOption("maximumSpeed")) { try RegionEvaluator(configuration: configuration) }
        }
        #expect(GeofenceError.invalidOption("maximumSpeed").description.contains("maximumSpeed"))
        #expect(throws: Never.self) { try GeofenceConfiguration(maximumSpeed: 3).validate() }
    }
}

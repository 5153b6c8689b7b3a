import Foundation
import LocationEngine
import LocbenchModel
import Testing

/// A straight path east at 10 m/s from (52°, 13°), one sample a second, for exact expectations.
enum StraightPath {
    static let origin = GeoPoint(latitude: 52, longitude: 13)
    static let metresPerDegree = 6_371_008.8 * Double.pi / 180

    /// The point `east` and `north` metres from the origin.
    static func point(east: Double, north: Double = 0) -> GeoPoint {
        GeoPoint(
            latitude: origin.latitude + north / metresPerDegree,
            longitude: origin.longitude + east / (metresPerDegree * cos(origin.latitude * Double.pi / 180)))
    }

    /// `seconds` seconds of travel, stopping for `stop` seconds after `stopAt` seconds (if given).
    static func path(seconds: Int, speed: Double = 10) -> TruthPath {
        TruthPath(samples: (0...seconds).map { TruthPath.Sample(seconds: Double($0), point: point(east: speed * Double($0)), speed: speed) })
    }
}

/// The ground truth: exact crossings of the straight lines between samples, with each excursion's depth.
struct GroundTruthTests {
    @Test func aCircleAcrossThePathIsEnteredAndLeftWhereItsBoundaryIs() throws {
        let circle = try GeofenceRegion.circle(centre: StraightPath.point(east: 500), radius: 100)
        let truth = GroundTruth.truth(of: circle, along: StraightPath.path(seconds: 100))
        #expect(!truth.startsInside)
        #expect(truth.crossings.map(\.entering) == [true, false])
        #expect(abs(truth.crossings[0].seconds - 40) < 0.01)
        #expect(abs(truth.crossings[1].seconds - 60) < 0.01)
        // Inside, the path reaches the centre: 100 m deep (read every metre). After leaving, it gets 400 m away (capped).
        #expect(abs(truth.crossings[0].excursionDepth - 100) < 0.5)
        #expect(truth.crossings[1].excursionDepth == GroundTruth.depthLimit)
        #expect(truth.isInside(at: 50) && !truth.isInside(at: 39.9) && !truth.isInside(at: 61))
    }

    @Test func aCrossingIsDecidableOnceThePathIsTheMarginPastTheBoundary() throws {
        let circle = try GeofenceRegion.circle(centre: StraightPath.point(east: 500), radius: 100)
        let path = StraightPath.path(seconds: 100)
        let truth = GroundTruth.truth(of: circle, along: path).findingDecidableInstants(of: circle, along: path, margin: DecisionMargin(constant: 30))
        // 30 m inside after entering at 400 m (at 43 s), 30 m outside after leaving at 600 m (at 63 s).
        #expect(abs(try #require(truth.crossings[0].decidable) - 43) < 0.01)
        #expect(abs(try #require(truth.crossings[1].decidable) - 63) < 0.01)
        // Deeper than the excursion goes: never decidable.
        let deep = GroundTruth.truth(of: circle, along: path).findingDecidableInstants(of: circle, along: path, margin: DecisionMargin(constant: 120))
        #expect(deep.crossings[0].decidable == nil)
        #expect(abs(try #require(deep.crossings[1].decidable) - 72) < 0.01)
        // The path ends 20 m past the exit: not decidable before the end.
        let short = StraightPath.path(seconds: 62)
        let cut = GroundTruth.truth(of: circle, along: short).findingDecidableInstants(of: circle, along: short, margin: DecisionMargin(constant: 30))
        #expect(cut.crossings.count == 2 && cut.crossings[0].decidable != nil && cut.crossings[1].decidable == nil)
    }

    @Test func aCrossingWaitsForTheMarginAtTheAccuracyTheReceiverGaveThen() throws {
        let circle = try GeofenceRegion.circle(centre: StraightPath.point(east: 500), radius: 100)
        let path = StraightPath.path(seconds: 100)
        // The receiver's fixes degrade from 42 s to 44 s: the margin is 50 m then, 30 m before and after, read
        // linearly between seconds. 10 m/s from the entry at 40 s: 40 m deep at 44 s against 50 m, then 40 + 10 s
        // against 50 − 20 s, equal a third of a second later.
        var margin = DecisionMargin(constant: 30)
        margin.perSecond = (0...100).map { (42...44).contains($0) ? 50 : 30 }
        let truth = GroundTruth.truth(of: circle, along: path).findingDecidableInstants(of: circle, along: path, margin: margin)
        #expect(abs(try #require(truth.crossings[0].decidable) - (44 + 1.0 / 3)) < 0.01)
        #expect(abs(try #require(truth.crossings[0].decidableAtMedianAccuracy) - 43) < 0.01)
        // The exit at 60 s is past both margins 3 s later.
        #expect(abs(try #require(truth.crossings[1].decidable) - 63) < 0.01)
        #expect(abs(try #require(truth.crossings[1].decidableAtMedianAccuracy) - 63) < 0.01)
    }

    @Test func theMarginFollowsTheRulesAtEachFixAndTheMedianWhereThereIsNone() {
        let rules = GeofenceConfiguration()
        let margin = DecisionMargin(rules: rules, medianAccuracy: 2.5, accuracies: [nil, 10, 4])
        #expect(margin.median == rules.decisionDistance(accuracy: 2.5))
        #expect(margin.perSecond == [rules.decisionDistance(accuracy: 2.5), rules.decisionDistance(accuracy: 10), rules.decisionDistance(accuracy: 4)])
        #expect(abs(margin.at(1.5) - (rules.decisionDistance(accuracy: 10) + rules.decisionDistance(accuracy: 4)) / 2) < 1e-9)
        #expect(margin.at(7) == rules.decisionDistance(accuracy: 4), "past the last second: the last second's")
        #expect(DecisionMargin(constant: 30).at(12.5) == 30)
    }

    @Test func aTouchIsTwoCrossingsOfAShallowExcursion() throws {
        // The boundary reaches 4 m over the path: a chord of 2·√(100² − 96²) = 56 m.
        let circle = try GeofenceRegion.circle(centre: StraightPath.point(east: 300, north: 96), radius: 100)
        let truth = GroundTruth.truth(of: circle, along: StraightPath.path(seconds: 60))
        #expect(truth.crossings.map(\.entering) == [true, false])
        #expect(abs(truth.crossings[1].seconds - truth.crossings[0].seconds - 5.6) < 0.01)
        #expect(abs(truth.crossings[0].excursionDepth - 4) < 0.1)
    }

    @Test func aPolygonIsCrossedAtItsEdges() throws {
        let square = try GeofenceRegion.polygon([
            StraightPath.point(east: 200, north: -50), StraightPath.point(east: 300, north: -50),
            StraightPath.point(east: 300, north: 50), StraightPath.point(east: 200, north: 50),
        ])
        let truth = GroundTruth.truth(of: square, along: StraightPath.path(seconds: 60))
        #expect(truth.crossings.map(\.entering) == [true, false])
        #expect(abs(truth.crossings[0].seconds - 20) < 0.01)
        #expect(abs(truth.crossings[1].seconds - 30) < 0.01)
    }

    @Test func aFarRegionIsNeverCrossedAndAStartInsideIsKnown() throws {
        let far = try GeofenceRegion.circle(centre: StraightPath.point(east: 300, north: 2_000), radius: 300)
        #expect(GroundTruth.truth(of: far, along: StraightPath.path(seconds: 600)).crossings.isEmpty)
        let home = try GeofenceRegion.circle(centre: StraightPath.origin, radius: 50)
        let truth = GroundTruth.truth(of: home, along: StraightPath.path(seconds: 60))
        #expect(truth.startsInside)
        #expect(truth.crossings.map(\.entering) == [false])
        #expect(abs(truth.crossings[0].seconds - 5) < 0.01)
    }

    @Test func aSyntheticTrajectoryAndItsFencesAreTheSameForTheSameSeed() {
        let first = TruthPath(scenario: GeofenceShape.drive.scenario(seed: 7), duration: 900)
        let second = TruthPath(scenario: GeofenceShape.drive.scenario(seed: 7), duration: 900)
        #expect(first.samples == second.samples)
        #expect(first.samples.count == 901)
        let fences = FencePlacement.place(count: 60, along: first, seed: 7)
        #expect(fences == FencePlacement.place(count: 60, along: second, seed: 7))
        #expect(fences != FencePlacement.place(count: 60, along: first, seed: 8))
        #expect(fences.count == 60)
        // Every fence starts outside, clear of the start; the path crosses some, and the three placements all occur.
        let start = first.samples[0].point
        #expect(fences.allSatisfy { $0.region.signedDistance(to: start) > FencePlacement.clearanceAtStart })
        #expect(Set(fences.map(\.intent)) == Set(PlacedFence.Intent.allCases))
        #expect(fences.contains { if case .polygon = $0.region.shape { true } else { false } })
        let truth = GroundTruth.fences(fences.map(\.region), along: first)
        #expect(truth.allSatisfy { !$0.startsInside })
        #expect(truth.contains { !$0.crossings.isEmpty })
        // Crossings alternate in and out, in time order.
        for fence in truth {
            #expect(fence.crossings.enumerated().allSatisfy { $0.element.entering == ($0.offset % 2 == 0) })
            #expect(zip(fence.crossings, fence.crossings.dropFirst()).allSatisfy { $0.seconds < $1.seconds })
        }
    }

    @Test func shapesParseFromAList() throws {
        #expect(try GeofenceShape.list(parsing: "walk,commute,walk") == [.walk, .commute])
        #expect(throws: LocbenchError.self) { try GeofenceShape.list(parsing: "walk,bike") }
        #expect(throws: LocbenchError.self) { try GeofenceShape.list(parsing: "") }
    }
}

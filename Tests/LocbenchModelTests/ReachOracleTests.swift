import LocationEngine
import LocbenchModel
import Testing

/// The reach oracle: the receiver tracks only while a boundary is within reach of the true position.
struct ReachOracleTests {
    private static let profile = ReceiverPowerProfile(
        acquisition: 100, tracking: [.best: 100], standby: 10, off: 0,
        timeToFirstFix: [.hot: .seconds(1), .warm: .seconds(30), .cold: .seconds(30)], ephemerisValidity: .seconds(7200),
        offKeepsEphemerides: false)

    @Test func itTracksOnlyNearTheBoundaries() throws {
        // A 100 m circle centred 500 m along a 10 m/s path: boundaries at 400 m and 600 m; reach 55 m.
        let circle = try GeofenceRegion.circle(centre: StraightPath.point(east: 500), radius: 100)
        let oracle = ReachOracle(regions: [circle], along: StraightPath.path(seconds: 100), reach: 55)
        // Samples at 35…45 s and 55…65 s are within 55 m of a boundary: 22 fixes, each tracked for the second before it.
        #expect(oracle.samplesWithinReach == 22)
        #expect(oracle.demand.count == 2)
        #expect(oracle.demand.map { $0.interval.start } == [34_000_000_000, 54_000_000_000])
        let joules = oracle.joules(end: 100_000_000_000, profile: Self.profile, firstStart: .hot)
        // Tracking 2 × 11 s at 100 mW, a hot first start (0.1 J), the 8 s gap on standby then a hot restart (0.08 + 0.1 J),
        // off before and after: 2.2 + 0.1 + 0.18 J.
        #expect(abs(joules - 2.48) < 1e-6)
        let always = DesignCharge(.alwaysOn, segments: oracle.demand, end: 100_000_000_000, profile: Self.profile, firstStart: .hot).joules
        #expect(joules < always)
    }

    @Test func farRegionsNeedNoFix() throws {
        let far = try GeofenceRegion.circle(centre: StraightPath.point(east: 300, north: 3_000), radius: 100)
        let oracle = ReachOracle(regions: [far], along: StraightPath.path(seconds: 600), reach: 60)
        #expect(oracle.demand.isEmpty)
        #expect(oracle.joules(end: 600_000_000_000, profile: Self.profile, firstStart: .hot) == 0)
    }

    @Test func aDesignsExcessIsSplitIntoStoppedAndMovingSeconds() throws {
        // The oracle of the first test: on through seconds 35…45 and 55…65.
        let circle = try GeofenceRegion.circle(centre: StraightPath.point(east: 500), radius: 100)
        let oracle = ReachOracle(regions: [circle], along: StraightPath.path(seconds: 100), reach: 55)
        // The mover stands still through seconds 70…79.
        let path = TruthPath(
            samples: (0...100).map { second in
                TruthPath.Sample(
                    seconds: Double(second), point: StraightPath.point(east: 10 * Double(second)), speed: (70...79).contains(second) ? 0 : 10)
            })
        // A design on through seconds 30…50 and 70…79 (on after the fixes at 29…49 and 69…78), off through the
        // oracle's second stretch.
        let onAfter = (0...100).map { (29...49).contains($0) || (69...78).contains($0) }
        let excess = oracle.excess(onAfter: onAfter, along: path)
        #expect(excess == ReachOracle.Excess(stoppedSeconds: 10, movingSeconds: 10, missingSeconds: 11))
        #expect(oracle.excess(onAfter: [Bool](repeating: false, count: 101), along: path).missingSeconds == 22)
    }
}

import LocbenchModel
import Testing

@Suite struct PowerOracleTests {
    @Test func onTimeIsTheUnionAndEachInstantTakesTheMostDemandingLevel() {
        // Level 0 over [0, 100), level 3 over [20, 40), level 1 over [30, 120); idle until a level-2 need at [200, 210).
        let oracle = PowerOracle(
            demands: [
                Demand(.init(start: 0, end: 100), level: 0), Demand(.init(start: 20, end: 40), level: 3),
                Demand(.init(start: 30, end: 120), level: 1), Demand(.init(start: 200, end: 210), level: 2),
            ],
            levels: 5)
        #expect(oracle.onIntervals == [.init(start: 0, end: 120), .init(start: 200, end: 210)])
        #expect(oracle.onNanoseconds == 130)
        #expect(oracle.nanosecondsPerLevel == [20, 80, 10, 20, 0])
        #expect(oracle.idleGaps == 1)
        #expect(oracle.segments.map(\.level) == [0, 3, 1, 2])
        #expect(oracle.segments.map(\.interval) == [
            .init(start: 0, end: 20), .init(start: 20, end: 40), .init(start: 40, end: 120), .init(start: 200, end: 210),
        ])
    }

    @Test func needsThatEndAsOthersBeginLeaveNoGapAndEqualLevelsMerge() {
        let oracle = PowerOracle(
            demands: [Demand(.init(start: 0, end: 10), level: 2), Demand(.init(start: 10, end: 30), level: 2)], levels: 5)
        #expect(oracle.segments == [Demand(.init(start: 0, end: 30), level: 2)])
        #expect(oracle.idleGaps == 0)
    }

    @Test func emptyNeedsCostNothingAndEnergyFollowsTheLevels() {
        let oracle = PowerOracle(
            demands: [Demand(.init(start: 5, end: 5), level: 4), Demand(.init(start: 0, end: 2_000_000_000), level: 1)], levels: 5)
        #expect(oracle.nanosecondsPerLevel == [0, 2_000_000_000, 0, 0, 0])
        #expect(oracle.joules { $0 == 1 ? 500 : 1_000 } == 1.0)
        #expect(oracle.onTimeBound(factor: 1.1, lingerNanoseconds: 100) == 2_200_000_100)
    }

    @Test func rasterisingKeepsTheMostDemandingLevelPerColumnAndMarksEveryColumnTouched() {
        // Ten columns of 10 ns each: a level-1 need over [0, 35), a level-3 blip at [12, 13), nothing after 35 ns
        // but a level-0 need over [90, 100).
        let columns = Demand.rasterise(
            [Demand(.init(start: 0, end: 35), level: 1), Demand(.init(start: 12, end: 13), level: 3), Demand(.init(start: 90, end: 100), level: 0)],
            end: 100, columns: 10)
        #expect(columns == [1, 3, 1, 1, nil, nil, nil, nil, nil, 0])
        #expect(Demand.rasterise([], end: 0, columns: 3) == [nil, nil, nil])
    }
}

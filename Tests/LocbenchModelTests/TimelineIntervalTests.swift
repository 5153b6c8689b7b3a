import LocbenchModel
import Testing

@Suite struct TimelineIntervalTests {
    @Test func unionMergesOverlappingAndTouchingAndDropsEmpty() {
        let union = TimelineInterval.union([
            .init(start: 50, end: 60), .init(start: 0, end: 10), .init(start: 5, end: 20),
            .init(start: 20, end: 30), .init(start: 40, end: 40), .init(start: 55, end: 58),
        ])
        #expect(union == [.init(start: 0, end: 30), .init(start: 50, end: 60)])
        #expect(TimelineInterval.gaps(between: union) == [.init(start: 30, end: 50)])
    }

    @Test func anEndBeforeTheStartGivesAnEmptyInterval() {
        #expect(TimelineInterval(start: 10, end: 5).length == 0)
        #expect(TimelineInterval.union([.init(start: 10, end: 5)]).isEmpty)
    }
}

import LocationEngine
import LocbenchModel
import Testing

/// Reported transitions against the truth: detected with a latency, missed, excepted, duplicate, false.
struct TransitionComparisonTests {
    private static let here = GeoPoint(latitude: 52, longitude: 13)

    private func crossing(_ seconds: Double, _ entering: Bool, depth: Double = 100) -> TrueCrossing {
        TrueCrossing(seconds: seconds, entering: entering, point: Self.here, excursionDepth: depth)
    }

    private func report(_ fence: Int, _ kind: ReportedTransition.Kind, _ seconds: Double) -> ReportedTransition {
        ReportedTransition(fence: fence, kind: kind, seconds: seconds)
    }

    @Test func transitionsAfterTheirCrossingsAreDetectedWithTheirLatency() {
        let truth = [FenceTruth(startsInside: false, crossings: [crossing(100, true), crossing(200, false)])]
        let reports = [report(0, .determined(inside: false), 1), report(0, .entered, 102.5), report(0, .exited, 201), report(0, .dwelled, 222.5)]
        let comparison = TransitionComparison(reports: reports, truth: truth, margin: 30, end: 1000)
        #expect(comparison.trueCrossings == 2)
        #expect(comparison.detected == 2)
        #expect(comparison.missed == 0 && comparison.duplicates == 0 && comparison.falseTransitions == 0)
        #expect(comparison.latencies == [2.5, 1])
        #expect(comparison.latency(percentile: 50) == 1)
        #expect(comparison.latency(percentile: 99) == 2.5)
        #expect(comparison.dwells == 1)
        #expect(comparison.judged.map(\.verdict) == [.detected, .detected])
    }

    @Test func theLatencyFromTheDecidableInstantIsCountedWhereTheCrossingHasOne() {
        var entry = crossing(100, true)
        entry.decidable = 103
        let truth = [FenceTruth(startsInside: false, crossings: [entry, crossing(200, false)])]
        let reports = [report(0, .entered, 104.5), report(0, .exited, 201)]
        let comparison = TransitionComparison(reports: reports, truth: truth, margin: 30, end: 1000)
        #expect(comparison.latencies == [4.5, 1])
        #expect(comparison.latenciesFromDecidable == [1.5])
        #expect(comparison.latencyFromDecidable(percentile: 99) == 1.5)
    }

    @Test func jitterAcrossTheBoundaryIsFalseThenDuplicate() {
        // The path enters once, at 100 s; a point test flips out and back in under noise, and before it, in and out.
        let truth = [FenceTruth(startsInside: false, crossings: [crossing(100, true)])]
        let reports = [
            report(0, .entered, 50), report(0, .exited, 51),
            report(0, .entered, 100), report(0, .exited, 140), report(0, .entered, 141),
        ]
        let comparison = TransitionComparison(reports: reports, truth: truth, margin: 30, end: 1000)
        #expect(comparison.judged.map(\.verdict) == [.falseTransition, .falseTransition, .detected, .falseTransition, .duplicate])
        #expect(comparison.detected == 1 && comparison.falseTransitions == 3 && comparison.duplicates == 1)
        #expect(comparison.missed == 0)
    }

    @Test func anEnteredWhileInsideIsADuplicate() {
        let truth = [FenceTruth(startsInside: false, crossings: [crossing(10, true)])]
        let comparison = TransitionComparison(reports: [report(0, .entered, 11), report(0, .entered, 12)], truth: truth, margin: 30, end: 1000)
        #expect(comparison.detected == 1 && comparison.duplicates == 1)
    }

    @Test func unreportedCrossingsAreMissedUnlessShallowOrAtTheEnd() {
        let truth = [
            // Deep: missed.
            FenceTruth(startsInside: false, crossings: [crossing(100, true), crossing(150, false)]),
            // A 5 m touch: both crossings within the margin.
            FenceTruth(startsInside: false, crossings: [crossing(100, true, depth: 5), crossing(104, false)]),
            // In the last minute of the run: pending.
            FenceTruth(startsInside: false, crossings: [crossing(980, true)]),
        ]
        let comparison = TransitionComparison(reports: [], truth: truth, margin: 30, end: 1000)
        #expect(comparison.missed == 2)
        #expect(comparison.withinMargin == 2)
        #expect(comparison.pendingAtEnd == 1)
        #expect(comparison.unreported.count == 5)
        // The missed ones, listed with the crossing that ends each excursion; the second closes the first's.
        #expect(comparison.missedCrossings.map(\.fence) == [0, 0])
        #expect(comparison.missedCrossings.map(\.crossing.seconds) == [100, 150])
        #expect(comparison.missedCrossings.map { $0.next?.seconds } == [150, nil])
        #expect(comparison.missedCrossings.map(\.endsMissedExcursion) == [false, true])
    }

    @Test func missedCrossingsInARowOpenAndCloseExcursionsInTurn() {
        // In, out, in, out, all deep, none reported: two excursions missed, each opened and closed. A report of the
        // last exit and then a missed entry on another fence show that a close needs the miss just before it.
        let truth = [
            FenceTruth(startsInside: false, crossings: [crossing(100, true), crossing(150, false), crossing(200, true), crossing(250, false)]),
            FenceTruth(startsInside: false, crossings: [crossing(100, true), crossing(150, false), crossing(200, true)]),
        ]
        let comparison = TransitionComparison(reports: [report(1, .entered, 101)], truth: truth, margin: 30, end: 1000)
        #expect(comparison.missed == 6)
        #expect(comparison.missedCrossings.map(\.fence) == [0, 0, 0, 0, 1, 1])
        #expect(comparison.missedCrossings.map(\.endsMissedExcursion) == [false, true, false, true, false, true])
    }

    @Test func aLateReportMatchesTheLatestCrossingOfItsDirectionAndMissesThoseBefore() {
        // In, out, in again; only the last entry is reported, after it: the first two crossings are missed.
        let truth = [FenceTruth(startsInside: false, crossings: [crossing(100, true), crossing(150, false), crossing(200, true)])]
        let comparison = TransitionComparison(reports: [report(0, .entered, 203)], truth: truth, margin: 30, end: 1000)
        #expect(comparison.detected == 1 && comparison.missed == 2)
        #expect(comparison.latencies == [3])
        // A report before its crossing by more than the tolerance reports nothing that happened.
        let early = TransitionComparison(reports: [report(0, .entered, 98)], truth: [truth[0]], margin: 30, end: 1000)
        #expect(early.falseTransitions == 1 && early.missed == 3)
    }

    @Test func aDeterminationThatDiffersFromTheBeliefIsATransition() {
        // Unknown while the path entered; the next decision says inside: it reports that crossing.
        let truth = [FenceTruth(startsInside: false, crossings: [crossing(100, true)])]
        let reports = [report(0, .determined(inside: false), 1), report(0, .becameUnknown, 60), report(0, .determined(inside: true), 130)]
        let comparison = TransitionComparison(reports: reports, truth: truth, margin: 30, end: 1000)
        #expect(comparison.detected == 1 && comparison.unknowns == 1)
        #expect(comparison.latencies == [30])
        // A first decision of inside while the path is outside is false.
        let wrong = TransitionComparison(reports: [report(0, .determined(inside: true), 1)], truth: [FenceTruth(startsInside: false, crossings: [])], margin: 30, end: 1000)
        #expect(wrong.falseTransitions == 1)
    }
}

extension TransitionComparisonTests {
    @Test func aPercentileOfNoTransitionIsNoneNotZero() {
        let comparison = TransitionComparison(reports: [], truth: [], margin: 30, end: 100)
        #expect(comparison.latency(percentile: 99) == nil)
        #expect(comparison.latencyFromDecidable(percentile: 50) == nil)
        #expect(comparison.estimateError(percentile: 99) == nil)
    }

    @Test func enteredAndExitedAtOneFixAreACrossingBetweenFixes() throws {
        let here = GeoPoint(latitude: 52, longitude: 13)
        let truth = [
            FenceTruth(
                startsInside: false,
                crossings: [
                    TrueCrossing(seconds: 10.2, entering: true, point: here, excursionDepth: 40),
                    TrueCrossing(seconds: 10.8, entering: false, point: here, excursionDepth: 500),
                ])
        ]
        let reports = [ReportedTransition(fence: 0, kind: .entered, seconds: 11), ReportedTransition(fence: 0, kind: .exited, seconds: 11)]
        let comparison = TransitionComparison(reports: reports, truth: truth, margin: 30, end: 1000)
        #expect(comparison.crossedBetweenFixes == 1)
        #expect(comparison.detected == 2)
        #expect(abs(try #require(comparison.latency(percentile: 100)) - 0.8) < 1e-9)
    }
}

/// The energy/latency curve's Pareto front.
struct ParetoFrontTests {
    private func point(_ energy: Double, _ latency: Double, missed: Int = 0) -> ParetoFront.Point {
        ParetoFront.Point(energy: energy, latency: latency, missed: missed)
    }

    @Test func aPointBeatenOnBothIsOffTheFrontAndTiesStayOn() {
        let points = [point(10, 5), point(20, 1), point(15, 6), point(10, 5), point(30, 1)]
        // (15, 6) is beaten by (10, 5); (30, 1) by (20, 1); the two equal (10, 5) beat neither each other.
        #expect(ParetoFront.members(of: points) == [true, true, false, true, false])
        #expect(ParetoFront.dominates(point(10, 5), point(15, 6)))
        #expect(!ParetoFront.dominates(point(10, 5), point(10, 5)))
        #expect(!ParetoFront.dominates(point(10, 5), point(20, 1)))
    }

    @Test func aDesignThatMissesMoreTransitionsDominatesNone() {
        // Less energy and a lower latency over the few it delivered, but more missed: it beats neither the
        // design that missed fewer nor is beaten by it.
        let sparse = point(26, 8, missed: 84), steady = point(42, 44, missed: 10)
        #expect(!ParetoFront.dominates(sparse, steady))
        #expect(!ParetoFront.dominates(steady, sparse))
        #expect(ParetoFront.members(of: [sparse, steady]) == [true, true])
        // Missing fewer with the rest equal is better.
        #expect(ParetoFront.dominates(point(26, 8, missed: 1), sparse))
        #expect(ParetoFront.members(of: [sparse, point(26, 8, missed: 1)]) == [false, true])
        // A design that delivered nothing counts as infinitely late: cheaper, it still beats no design that delivered.
        let silent = point(10, .infinity, missed: 84)
        #expect(!ParetoFront.dominates(silent, sparse))
        #expect(ParetoFront.dominates(point(10, 300, missed: 84), silent))
    }
}

import LocbenchModel
import Testing

/// Settings that each pass their own check but together would run for hours are refused before the run.
struct RunBudgetTests {
    func budget(_ span: Double, onPeriods: Double = 0, fixRate: Double = 1, wall: Bool = false, operations: Int = 10_000) -> RunBudget {
        RunBudget(operations: operations, expectedSpan: span, expectedOnPeriods: onPeriods, fixRate: fixRate, wallClock: wall)
    }

    func refusal(_ budget: RunBudget) -> String? {
        do {
            try budget.check()
            return nil
        } catch {
            return error.description
        }
    }

    @Test func theMainJobAndTheDocumentedShapesPass() {
        let mainJob = OnOffArrivals(rate: 50, meanOn: 30, meanOff: 90)
        #expect(refusal(budget(mainJob.expectedSpan(of: 10_000), onPeriods: mainJob.expectedOnPeriods(of: 10_000))) == nil)
        let commute = CommuteArrivals(rate: 0.5)
        #expect(refusal(budget(commute.expectedSpan(of: 3_100), fixRate: 100)) == nil)
        // The default on/off arrivals on the wall clock: about 20 minutes.
        #expect(refusal(budget(mainJob.expectedSpan(of: 10_000), wall: true)) == nil)
    }

    @Test func aTinyRateOverShortOnPeriodsIsRefusedForItsDraws() throws {
        // One arrival in 5,000,000,000 on periods of 1 ms: minutes of drawing before the run began.
        let process = OnOffArrivals(rate: 2e-7, meanOn: 0.001, meanOff: 0.001)
        let message = try #require(refusal(budget(process.expectedSpan(of: 1), onPeriods: process.expectedOnPeriods(of: 1), operations: 1)))
        #expect(message.contains("on period"))
        #expect(message.contains("1 operation would draw about 5,000,000,001 on and off periods"))
        #expect(message.contains("holds 2.0E-10 arrivals"))
    }

    @Test func yearsOfReceiverStepsAreRefusedAndFasterFixesCountEachStep() throws {
        // A hundred operations a million seconds apart: three years of virtual time.
        let years = try #require(refusal(budget(1e8, operations: 100)))
        #expect(years.contains("synthetic receiver"))
        #expect(years.contains("3.2 years"))
        #expect(refusal(budget(1.9e7)) == nil)
        // The same span at ten fixes a second is ten times the steps.
        let message = try #require(refusal(budget(2e6 * 1.01, fixRate: 10)))
        #expect(message.contains("--fix-rate"))
        #expect(refusal(budget(2e6 * 0.99, fixRate: 10)) == nil)
    }

    @Test func theWallClockIsRefusedPastAnHour() throws {
        let commute = CommuteArrivals(rate: 0.5)
        let message = try #require(refusal(budget(commute.expectedSpan(of: 3_100), wall: true, operations: 3_100)))
        #expect(message.contains("real time"))
        #expect(message.contains("23.6 hours"))
        #expect(refusal(budget(3_500, wall: true)) == nil)
    }
}

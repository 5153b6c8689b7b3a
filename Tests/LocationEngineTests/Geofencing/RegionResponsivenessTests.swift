import Testing
@testable import LocationEngine

/// A monitor's latency budget (``GeofenceOptions/responsiveness``): the source sleeps until a fix is due at the
/// earliest instant a boundary could be decided plus the budget, near a boundary and in doubt too, and runs once a
/// region in doubt could be decidable and the budget is spent.
@Suite("Region monitors' responsiveness")
struct RegionResponsivenessTests {
    // The 200 m circle around the origin of RegionPowerTests, the MT3339 profile (a hot start in 1 s), the
    // default maximum speed of 30 m/s; a 5 m fix decides 30 m across the boundary.
    static let timeToFirstFix = Duration.seconds(1)

    @Test("near the fence, a budget of 30 s takes a fix every 32.7 s (2.7 s until the fence could be decided, then the budget); none, every 2.7 s")
    func nearSamplesByTheBudget() throws {
        var budget = MachineHarness(powerProfile: .mt3339)
        budget.monitor("depot", options: GeofenceOptions(responsiveness: .seconds(30)))
        let log = budget.drive(until: EngineInstant(.seconds(300)), timeToFirstFix: Self.timeToFirstFix, watched: "depot") { _ in 260 }
        // 60 m from the boundary: the truth must cover 60 + 20 m to be decidable, 2.67 s at 30 m/s; the next fix
        // is due the budget later.
        let gaps = zip(log.fixes, log.fixes.dropFirst()).map { $1 - $0 }
        #expect(gaps.count == 9)
        #expect(gaps.allSatisfy { abs(($0 - .seconds(30)) / .seconds(1) - 80.0 / 30) < 0.001 })
        #expect(log.transitions.map(\.0) == [.determined(.outside)], "the state is held between the fixes: never unknown")

        var immediate = MachineHarness(powerProfile: .mt3339)
        immediate.monitor("depot")
        let always = immediate.drive(until: EngineInstant(.seconds(300)), timeToFirstFix: Self.timeToFirstFix, watched: "depot") { _ in 260 }
        #expect(always.fixes.count == 113)
        #expect(zip(always.fixes, always.fixes.dropFirst()).allSatisfy { abs(($1 - $0) / .seconds(1) - 80.0 / 30) < 0.001 })
    }

    /// A device `east(now)` metres east of the fence's centre for `seconds`, its monitor with `budget`: the
    /// harness, what the drive saw, and the seconds between the fixes.
    static func drive(budget: Duration, seconds: Int, east: (EngineInstant) -> Double) -> (harness: MachineHarness, log: MachineHarness.DriveLog, gaps: [Double]) {
        var h = MachineHarness(powerProfile: .mt3339)
        h.monitor("depot", options: GeofenceOptions(responsiveness: budget))
        let log = h.drive(until: EngineInstant(.seconds(seconds)), timeToFirstFix: timeToFirstFix, watched: "depot", east: east)
        return (h, log, zip(log.fixes, log.fixes.dropFirst()).map { ($1 - $0) / .seconds(1) })
    }

    /// The same, the device standing at `east` metres.
    static func stand(at east: Double, budget: Duration, seconds: Int) -> (harness: MachineHarness, log: MachineHarness.DriveLog, gaps: [Double]) {
        drive(budget: budget, seconds: seconds) { _ in east }
    }

    @Test("a fix in doubt where the truth may be decidable already: the budget once from it, then tracking, the budget spent; none, tracking throughout")
    func inDoubtSpendsTheBudgetOnce() throws {
        // 11 m outside, fixes of 5 m: a perfect fix decides 20 m out, and the truth may be 21 m out already, so
        // the region stays unknown and only more fixes can settle it.
        let budget = Self.stand(at: 211, budget: .seconds(20), seconds: 100)
        let first = try #require(budget.gaps.first)
        // Woken a restart before the budget's end, its fix there.
        #expect(abs(first - 20) < 0.001, "the first gap is the budget: \(first) s")
        #expect(budget.gaps.dropFirst().allSatisfy { abs($0 - 1) < 0.001 }, "then a fix every second: a second budget would count from a fix that fell short")
        #expect(budget.log.fixes.count == 81)
        #expect(budget.log.transitions.isEmpty)

        let immediate = Self.stand(at: 211, budget: .zero, seconds: 100)
        #expect(immediate.log.fixes.count == 100)
        #expect(immediate.harness.sourceCommands == [.start(.best)])
    }

    @Test("a fix in doubt, saying nothing of the device's speed, where the truth cannot be decidable yet: with a budget the source sleeps by the decision slack at the maximum speed, then the budget; none, it tracks")
    func inDoubtMayBeMovingPlansByTheSlackWithABudget() {
        // 2 m outside, fixes of 5 m without a speed: the truth may be 12 m out, 8 m short of a perfect fix's
        // 20 m; at 30 m/s, 0.27 s away.
        let budget = Self.stand(at: 202, budget: .seconds(30), seconds: 300)
        #expect(budget.gaps.count == 9)
        #expect(budget.gaps.allSatisfy { abs($0 - (30 + 8.0 / 30)) < 0.001 }, "\(budget.gaps)")
        #expect(Self.stand(at: 202, budget: .zero, seconds: 300).log.fixes.count == 300)
    }

    @Test("a fix that finds the truth may be decidable already, after fixes that planned by the slack: the budget runs from their earliest instant, so the receiver tracks")
    func inDoubtTheBudgetRunsFromThePlanBefore() throws {
        // 2 m outside until 100 s (the truth cannot be decidable for 0.27 s after each fix), then 11 m outside
        // (it may be decidable already).
        let gaps = Self.drive(budget: .seconds(30), seconds: 200) { now in now < EngineInstant(.seconds(100)) ? 202 : 211 }.gaps
        #expect(gaps.count > 8)
        #expect(gaps.prefix(4).allSatisfy { abs($0 - (30 + 8.0 / 30)) < 0.001 }, "\(gaps)")
        // The first fix at 211 m comes a budget after the last plan's earliest instant: the budget is spent.
        #expect(gaps.dropFirst(4).allSatisfy { abs($0 - 1) < 0.001 }, "no second budget: \(gaps)")
    }

    @Test("approaching the fence, the entry comes within the budget after the instant it could be decided", arguments: [0, 10, 30, 60, 120, 300])
    func entryWithinTheBudget(seconds: Int) throws {
        var h = MachineHarness(powerProfile: .mt3339)
        h.monitor("depot", options: GeofenceOptions(responsiveness: .seconds(seconds)))
        // West at 10 m/s from 1 km east, stopping at the centre at 100 s: 30 m inside (decidable by a 5 m fix) at
        // 170 m, 83 s in.
        let log = h.drive(until: EngineInstant(.seconds(max(200, 83 + seconds + 20))), timeToFirstFix: Self.timeToFirstFix, watched: "depot") { now in
            max(0, 1000 - 10 * Double((now - EngineInstant(.zero)).components.seconds))
        }
        let entered = try #require(log.transitions.first { $0.0 == .entered }?.1)
        #expect(entered >= EngineInstant(.seconds(83)))
        #expect(entered <= EngineInstant(.seconds(83 + seconds + 1)))
        if seconds >= 30 { #expect(log.fixes.count < 40, "the budget let it sleep: \(log.fixes.count) fixes") }
    }

    @Test("the smallest budget of the monitored regions sets the plan, and the next smallest when it leaves")
    func smallestBudget() {
        var budgets = ResponsivenessBudgets()
        #expect(budgets.smallest == .zero)
        budgets.add(.seconds(30))
        budgets.add(.seconds(5))
        budgets.add(.seconds(5))
        #expect(budgets.smallest == .seconds(5))
        budgets.remove(.seconds(5))
        #expect(budgets.smallest == .seconds(5))
        budgets.remove(.seconds(5))
        #expect(budgets.smallest == .seconds(30))
        budgets.remove(.seconds(30))
        #expect(budgets.smallest == .zero)
    }

    @Test("a budget below zero or above five minutes is refused")
    func outOfRange() {
        #expect(throws: GeofenceError.invalidOption("responsiveness")) { try GeofenceOptions(responsiveness: .seconds(-1)).validate() }
        #expect(throws: GeofenceError.invalidOption("responsiveness")) { try GeofenceOptions(responsiveness: .seconds(301)).validate() }
        #expect(throws: Never.self) { try GeofenceOptions(responsiveness: GeofenceOptions.maximumResponsiveness).validate() }
    }
    @Test("a long budget: a region a fix leaves undecided before a planned sleep does not go unknown in the middle of it, and the receiver keeps sleeping")
    func undecidedRegionHoldsThroughTheSleep() throws {
        // Far out, then standing 15 m outside a 200 m fence: undecided, the truth not decidable until it moves.
        let run = Self.drive(budget: .seconds(300), seconds: 1300) { $0 < EngineInstant(.seconds(60)) ? 1000 : 215 }
        #expect(run.log.transitions.map(\.0) == [.determined(.outside)])
        #expect(run.gaps.dropFirst().allSatisfy { $0 > 250 }, "sleeps by the budget, not tracking: \(run.gaps)")
    }
}

@testable import LocationEngine
import Testing

/// The restart-aware plan keeps where it sent the receiver down, never whether the source runs: through the
/// linger the policy's state says the source runs and the plan has taken no step.
@Suite("The idle plan's record")
struct IdlePlanRecordTests {
    @Test("through the linger no step is taken while the policy lingers; a step down is recorded, and a confirmation beside it")
    func lingerIsThePolicysAndAStepIsThePlans() throws {
        var planner = PowerPlanner(linger: .zero, powerDown: .restartAware(trust: 1), profile: PowerPlannerPartTests.profile, confirmsReceiverState: true)
        #expect(planner.reconcile(demand: PowerPlannerPartTests.demand(.best), now: .zero, cap: nil, monitoring: false, isShutDown: false) == .start(.best))
        #expect(planner.idle?.state == nil && planner.idle?.sentDownTo == nil)
        let ended = EngineInstant.zero + .seconds(60)
        #expect(planner.reconcile(demand: PowerDemand(), now: ended, cap: nil, monitoring: false, isShutDown: false) == nil)
        let stepAt = try #require(planner.nextWakeup)
        guard case .lingering(.best, since: .zero, until: stepAt) = planner.state else {
            Issue.record("expected the policy to linger until the first step down, got \(planner.state)")
            return
        }
        #expect(planner.idle?.sentDownTo == nil && planner.idle?.isGapWithoutStep == true)
        #expect(planner.idle?.state == .on, "the statistic reads on until the first step down")
        #expect(planner.idle?.nextDeeperStep == nil, "no step deeper is due before the first")
        _ = planner.reconcile(demand: PowerDemand(), now: stepAt, cap: nil, monitoring: false, isShutDown: false)
        #expect(planner.state == .off)
        #expect(planner.idle?.sentDownTo == .standby && planner.idle?.state == .standby && planner.idle?.isGapWithoutStep == false)
        // The receiver confirms it stayed on: the plan's record is unchanged, nothing is stepped deeper.
        planner.receiverConfirmed(.on, now: stepAt + .seconds(1))
        #expect(planner.idle?.sentDownTo == .standby && planner.idle?.confirmedState == .on)
        #expect(planner.idle?.nextDeeperStep == nil)
        // Demand returns: the gap ends, and was not bridged on.
        #expect(planner.reconcile(demand: PowerPlannerPartTests.demand(.best), now: stepAt + .seconds(5), cap: nil, monitoring: false, isShutDown: false) == .start(.best))
        #expect(planner.idle?.state == nil && planner.idle?.sentDownTo == nil && planner.idle?.gapsBridgedOn == 0)
    }
}

@testable import LocationEngine
import Testing

/// The power policy's state carries when the source started: one fact for whether it runs, in which mode and
/// since when, kept through everything that leaves it running and ended by what powers it down.
@Suite("A source's run in the policy's state")
struct SourceRunStateTests {
    static func demand(_ mode: PowerMode) -> PowerDemand { PowerPlannerPartTests.demand(mode) }

    @Test("a change of mode, a refusal, a linger and a return from it keep the run's start; a stop ends it, a restart starts anew")
    func runStartIsKeptUntilTheSourceStops() {
        var planner = PowerPlanner(linger: .seconds(30), powerDown: .fixedLinger, profile: PowerPlannerPartTests.profile, confirmsReceiverState: true)
        let started = EngineInstant.zero + .seconds(2)
        #expect(planner.reconcile(demand: Self.demand(.best), now: started, cap: nil, monitoring: false, isShutDown: false) == .start(.best))
        #expect(planner.state == .running(.best, since: started))
        let lowered = started + .seconds(5)
        #expect(planner.reconcile(demand: Self.demand(.lowest), now: lowered, cap: nil, monitoring: false, isShutDown: false) == .setMode(.lowest))
        #expect(planner.state == .running(.lowest, since: started))
        // The receiver kept tracking in `best`: a refusal, the plan goes on in what it kept.
        planner.receiverTracking(.best, now: lowered + .seconds(1))
        #expect(planner.state == .running(.best, since: started))
        let ended = lowered + .seconds(2)
        #expect(planner.reconcile(demand: PowerDemand(), now: ended, cap: nil, monitoring: false, isShutDown: false) == nil)
        #expect(planner.state == .lingering(.best, since: started, until: ended + .seconds(30)))
        #expect(planner.reconcile(demand: Self.demand(.best), now: ended + .seconds(1), cap: nil, monitoring: false, isShutDown: false) == nil)
        #expect(planner.state == .running(.best, since: started))
        _ = planner.reconcile(demand: PowerDemand(), now: ended + .seconds(2), cap: nil, monitoring: false, isShutDown: false)
        let stopped = ended + .seconds(32)
        #expect(planner.reconcile(demand: PowerDemand(), now: stopped, cap: nil, monitoring: false, isShutDown: false) == .stop)
        #expect(planner.state == .off && planner.runningSince == nil)
        #expect(planner.policy.onTime(at: stopped + .seconds(100)) == stopped - started)
        let restarted = stopped + .seconds(10)
        #expect(planner.reconcile(demand: Self.demand(.low), now: restarted, cap: nil, monitoring: false, isShutDown: false) == .start(.low))
        #expect(planner.state == .running(.low, since: restarted) && planner.runningSince == restarted)
        #expect(planner.policy.onTime(at: restarted + .seconds(3)) == stopped - started + .seconds(3))
    }
}

@testable import LocationEngine
import Testing

/// A source that failed for good, as its power planner keeps it: one state beside off, running and lingering,
/// which no demand starts until demand ends, and which keeps whatever restart-aware plan its receiver waits in.
@Suite("A failed source's state")
struct FailedSourceStateTests {
    static func demand(_ mode: PowerMode) -> PowerDemand { PowerPlannerPartTests.demand(mode) }

    @Test("a running source that fails is stopped, knows no run start any more, and no demand starts it until it recovers")
    func failedWhileRunning() {
        var planner = PowerPlanner(linger: .seconds(30), powerDown: .fixedLinger, profile: nil)
        let started = EngineInstant.zero + .seconds(3)
        #expect(planner.reconcile(demand: Self.demand(.best), now: started, cap: nil, monitoring: false, isShutDown: false) == .start(.best))
        #expect(planner.runningSince == started)
        #expect(planner.fail(now: started + .seconds(5), monitoring: false) == .stop)
        #expect(planner.state == .failed && planner.hasFailed && !planner.isOn && planner.runningSince == nil)
        #expect(planner.reconcile(demand: Self.demand(.best), now: started + .seconds(6), cap: nil, monitoring: false, isShutDown: false) == nil)
        #expect(planner.state == .failed)
        // Its time on ended with the failure.
        #expect(planner.policy.onTime(at: started + .seconds(60)) == .seconds(5))
        planner.recoverFromFailure()
        #expect(planner.state == .off && !planner.hasFailed)
        let again = started + .seconds(7)
        #expect(planner.reconcile(demand: Self.demand(.low), now: again, cap: nil, monitoring: false, isShutDown: false) == .start(.low))
        #expect(planner.runningSince == again)
    }

    @Test("recovering changes nothing for a source that did not fail")
    func recoveringWithoutFailure() {
        var planner = PowerPlanner(linger: .seconds(30), powerDown: .fixedLinger, profile: nil)
        _ = planner.reconcile(demand: Self.demand(.best), now: .zero, cap: nil, monitoring: false, isShutDown: false)
        planner.recoverFromFailure()
        #expect(planner.state == .running(.best, since: .zero) && planner.runningSince == .zero)
    }

    @Test("a source that fails while its receiver waits in standby still steps deeper when the plan says, and stays failed")
    func failedWhileDownGoesOnDownItsPlan() throws {
        var (planner, stepAt) = PowerPlannerPartTests.sentDown()
        #expect(planner.fail(now: stepAt + .seconds(1), monitoring: false) == nil, "it is down already")
        #expect(planner.state == .failed)
        let due = try #require(planner.nextWakeup)
        let command = planner.reconcile(demand: PowerDemand(), now: due, cap: nil, monitoring: false, isShutDown: false)
        guard case .idle(let step) = command else {
            Issue.record("expected a step deeper, got \(String(describing: command))")
            return
        }
        #expect(step.state == .off)
        #expect(planner.state == .failed)
    }
}

@testable import LocationEngine
import Testing

/// The receiver's energy takes whether the source runs from the policy: a step deeper while the receiver waits is
/// no stop of a running receiver.
@Suite("The receiver's energy, told by the policy whether the source runs")
struct EnergyFromPolicyStateTests {
    @Test("a step deeper from a confirmed standby is costed at standby until off is confirmed, not as a stop from tracking")
    func stepDeeperIsCostedFromWhereTheReceiverWaits() throws {
        var (planner, stepAt) = PowerPlannerPartTests.sentDown()
        planner.receiverConfirmed(.standby, now: stepAt)
        let deeperAt = try #require(planner.nextWakeup)
        guard case .idle(let step)? = planner.reconcile(demand: PowerDemand(), now: deeperAt, cap: nil, monitoring: false, isShutDown: false) else {
            Issue.record("expected a step deeper")
            return
        }
        #expect(step.state == .off && planner.state == .off)
        let before = try #require(planner.energy?.joules(at: deeperAt))
        let after = try #require(planner.energy?.joules(at: deeperAt + .seconds(100)))
        // Unconfirmed, off is costed at the dearer of standby (where it waits) and off: standby.
        let standby = PowerPlannerPartTests.profile.idlePower(.standby, mode: .best)
        #expect(abs((after - before) - standby * 100 / 1000) < 1e-9)
        planner.receiverConfirmed(.off, now: deeperAt + .seconds(100))
        let off = PowerPlannerPartTests.profile.idlePower(.off, mode: .best)
        let confirmed = try #require(planner.energy?.joules(at: deeperAt + .seconds(200)))
        #expect(abs((confirmed - after) - off * 100 / 1000) < 1e-9)
    }
}

@testable import LocationEngine
import Testing

/// The power planner on its own, with a source that confirms its receiver's state: the energy it counts
/// and the plan it goes on with follow what the receiver confirmed.
@Suite("Power planner part")
struct PowerPlannerPartTests {
    /// An MT3339 whose off keeps nothing: its plan waits in standby, then goes off when the ephemerides go stale.
    static let profile: ReceiverPowerProfile = {
        var profile = ReceiverPowerProfile.mt3339
        profile.offKeepsEphemerides = false
        return profile
    }()

    /// A planner whose receiver tracked in `best` from 0 to 60 s (its cold start took 35 s) and was then sent down
    /// at its first step.
    static func sentDown() -> (PowerPlanner, stepAt: EngineInstant) {
        var planner = PowerPlanner(linger: .zero, powerDown: .restartAware(trust: 1), profile: profile, confirmsReceiverState: true)
        var demand = PowerDemand()
        demand.add(.best)
        #expect(planner.reconcile(demand: demand, now: .zero, cap: nil, monitoring: false, isShutDown: false) == .start(.best))
        let ended = EngineInstant.zero + .seconds(60)
        _ = planner.reconcile(demand: PowerDemand(), now: ended, cap: nil, monitoring: false, isShutDown: false)
        let stepAt = planner.nextWakeup!
        let command = planner.reconcile(demand: PowerDemand(), now: stepAt, cap: nil, monitoring: false, isShutDown: false)
        guard case .idle(let step) = command else {
            Issue.record("expected a step down, got \(String(describing: command))")
            return (planner, stepAt)
        }
        #expect(step.state == .standby)
        return (planner, stepAt)
    }

    @Test("until the receiver confirms, it is costed as tracking; confirmed in standby, at standby")
    func costedFromConfirmation() throws {
        var (planner, stepAt) = Self.sentDown()
        let later = stepAt + .seconds(100)
        let unconfirmed = try #require(planner.energy?.joules(at: later))
        planner.receiverConfirmed(.standby, now: stepAt)
        let confirmed = try #require(planner.energy?.joules(at: later))
        // 100 s at tracking (66 mW) against 100 s in standby (6.6 mW).
        #expect(abs((unconfirmed - confirmed) - 100 * (66 - 6.6) / 1000) < 1e-6)
    }

    @Test("a receiver that stayed on is not stepped deeper, and restarts without a restart")
    func stayedOn() {
        var (planner, stepAt) = Self.sentDown()
        #expect(planner.nextWakeup != nil, "the plan goes deeper when the ephemerides go stale")
        planner.receiverConfirmed(.on, now: stepAt)
        #expect(planner.nextWakeup == nil)
        var demand = PowerDemand()
        demand.add(.best)
        _ = planner.reconcile(demand: demand, now: stepAt + .seconds(60), cap: nil, monitoring: false, isShutDown: false)
        var statistics = SchedulerStatistics()
        planner.addStatistics(to: &statistics, now: stepAt + .seconds(60))
        #expect(statistics.lastRestartCondition == nil)
    }

    @Test("a receiver stopped while acquiring is costed as tracking until it confirms, not as acquiring")
    func stoppedWhileAcquiring() throws {
        var planner = PowerPlanner(linger: .zero, powerDown: .restartAware(trust: 1), profile: Self.profile, confirmsReceiverState: true)
        var demand = PowerDemand()
        demand.add(.lowest)
        _ = planner.reconcile(demand: demand, now: .zero, cap: nil, monitoring: false, isShutDown: false)
        planner.receiverTracking(.lowest, now: .zero + .seconds(1))
        // Demand ends at 5 s, inside the 35 s cold start; the source goes down at once.
        let down = EngineInstant.zero + .seconds(5)
        _ = planner.forceOff(now: down, monitoring: false)
        let before = try #require(planner.energy?.joules(at: down))
        let after = try #require(planner.energy?.joules(at: down + .seconds(100)))
        #expect(abs((after - before) - 100 * Self.profile.trackingPower(.lowest) / 1000) < 1e-6)
    }

    @Test("a running receiver is costed in the dearest mode until it confirms a setting, then at the dearer of what it confirmed and what it was asked")
    func runningCostedFromConfirmation() throws {
        var planner = PowerPlanner(linger: .seconds(600), powerDown: .fixedLinger, profile: Self.profile, confirmsReceiverState: true)
        var demand = PowerDemand()
        demand.add(.lowest)
        #expect(planner.reconcile(demand: demand, now: .zero, cap: nil, monitoring: false, isShutDown: false) == .start(.lowest))
        let profile = Self.profile
        let dearest = PowerMode.allCases.map { profile.trackingPower($0) }.max()!
        // Past the 35 s cold start: 100 s tracking, nothing confirmed (the dearest), then confirmed lowest.
        let tracking = EngineInstant.zero + .seconds(40)
        let unconfirmed = try #require(planner.energy?.joules(at: tracking + .seconds(100)))
        var confirmed = planner
        confirmed.receiverTracking(.lowest, now: tracking)
        let lowest = try #require(confirmed.energy?.joules(at: tracking + .seconds(100)))
        #expect(abs((unconfirmed - lowest) - 100 * (dearest - profile.trackingPower(.lowest)) / 1000) < 1e-6)

        // Asked for best: costed at best at once (the dearer); asked back down to lowest, the receiver that has
        // not confirmed it (a refused command) stays costed at best, and at lowest once it confirms.
        var up = PowerDemand()
        up.add(.best)
        let raised = tracking + .seconds(10)
        #expect(confirmed.reconcile(demand: up, now: raised, cap: nil, monitoring: false, isShutDown: false) == .setMode(.best))
        confirmed.receiverTracking(.best, now: raised)
        let lowered = raised + .seconds(10)
        #expect(confirmed.reconcile(demand: demand, now: lowered, cap: nil, monitoring: false, isShutDown: false) == .setMode(.lowest))
        let start = try #require(confirmed.energy?.joules(at: lowered))
        let kept = try #require(confirmed.energy?.joules(at: lowered + .seconds(100)))
        #expect(abs((kept - start) - 100 * profile.trackingPower(.best) / 1000) < 1e-6)
        confirmed.receiverTracking(.lowest, now: lowered)
        let obeyed = try #require(confirmed.energy?.joules(at: lowered + .seconds(100)))
        #expect(abs((obeyed - start) - 100 * profile.trackingPower(.lowest) / 1000) < 1e-6)
    }

    // MARK: The mode plan from the confirmed setting

    /// A planner whose receiver started in `best` at 0 and confirmed it at 1 s, then was asked for `lowest` at 10 s.
    static func askedDown() -> PowerPlanner {
        var planner = PowerPlanner(linger: .seconds(600), powerDown: .fixedLinger, profile: Self.profile, confirmsReceiverState: true)
        #expect(planner.reconcile(demand: Self.demand(.best), now: .zero, cap: nil, monitoring: false, isShutDown: false) == .start(.best))
        planner.receiverTracking(.best, now: .zero + .seconds(1))
        let lowered = EngineInstant.zero + .seconds(10)
        #expect(planner.reconcile(demand: Self.demand(.lowest), now: lowered, cap: nil, monitoring: false, isShutDown: false) == .setMode(.lowest))
        return planner
    }

    static func demand(_ mode: PowerMode) -> PowerDemand {
        var demand = PowerDemand()
        demand.add(mode)
        return demand
    }

    @Test("a mode the receiver refused is not judged silent: its run ends unjudged, the fixes coming in the mode kept")
    func aRefusedModeIsNotJudgedSilent() {
        var planner = PowerPlanner(
            linger: .seconds(600), powerDown: .fixedLinger,
            capabilities: SourceCapabilities(
                providesCourse: true, powerProfile: Self.profile, confirmsReceiverState: true, firstFixByMode: [.lowest: .seconds(2), .best: .seconds(2)]))
        #expect(planner.reconcile(demand: Self.demand(.best), now: .zero, cap: nil, monitoring: false, isShutDown: false) == .start(.best))
        planner.fixArrived(accuracy: 3, now: .zero + .seconds(40))
        let lowered = EngineInstant.zero + .seconds(50)
        #expect(planner.reconcile(demand: Self.demand(.lowest), now: lowered, cap: nil, monitoring: false, isShutDown: false) == .setMode(.lowest))
        #expect(planner.delivery.nextWakeup == lowered + .seconds(4), "the change is judged")
        planner.receiverTracking(.best, now: lowered + .seconds(1))
        #expect(planner.delivery.nextWakeup == nil, "refused: not judged")
        #expect(!planner.delivery.look(now: lowered + .seconds(10)) && !planner.delivery.isSilent(.lowest))
    }

    @Test("a receiver that refused a mode is planned in the setting it kept, and asked again after a doubling backoff")
    func refusedModeIsAskedAgainAfterABackoff() {
        var planner = Self.askedDown()
        let refusedAt = EngineInstant.zero + .seconds(11)
        planner.receiverTracking(.best, now: refusedAt)
        #expect(planner.state == .running(.best, since: .zero))
        #expect(planner.nextWakeup == nil, "the retry is the next request's or fix's reconciliation past the backoff")
        // Inside the backoff the plan keeps what the receiver kept: nothing is sent, whatever reconciles.
        #expect(planner.reconcile(demand: Self.demand(.lowest), now: refusedAt + .seconds(4), cap: nil, monitoring: false, isShutDown: false) == nil)
        #expect(planner.state == .running(.best, since: .zero))
        // Past it, asked again; refused again, the next wait is twice as long.
        let retried = refusedAt + .seconds(5)
        #expect(planner.reconcile(demand: Self.demand(.lowest), now: retried, cap: nil, monitoring: false, isShutDown: false) == .setMode(.lowest))
        planner.receiverTracking(.best, now: retried)
        #expect(planner.reconcile(demand: Self.demand(.lowest), now: retried + .seconds(9), cap: nil, monitoring: false, isShutDown: false) == nil)
        // A demand for another mode is sent at once: only the refused mode waits.
        #expect(planner.reconcile(demand: Self.demand(.medium), now: retried + .seconds(9), cap: nil, monitoring: false, isShutDown: false) == .setMode(.medium))
        planner.receiverTracking(.medium, now: retried + .seconds(9))
        // Obeyed: the refusal is forgotten, and a change back to the mode refused before is sent at once.
        #expect(planner.reconcile(demand: Self.demand(.lowest), now: retried + .seconds(9), cap: nil, monitoring: false, isShutDown: false) == .setMode(.lowest))
        var statistics = SchedulerStatistics()
        planner.addStatistics(to: &statistics, now: retried + .seconds(9))
        #expect(statistics.sourceModesRefused == 2)
        #expect(statistics.sourceMode == .lowest)
    }

    @Test("the backoff doubles to five minutes and stays there")
    func backoffIsBounded() {
        #expect((1...8).map { ModeRefusal.backoff(inARow: $0) } == [5, 10, 20, 40, 80, 160, 300, 300].map { Duration.seconds($0) })
        #expect(ModeRefusal.backoff(inARow: 1_000_000) == .seconds(300))
    }

    @Test("a failed return to tracking leaves the plan in the power save the receiver kept: demand ended, it lingers there")
    func failedReturnToTracking() {
        var planner = PowerPlanner(linger: .seconds(600), powerDown: .fixedLinger, profile: Self.profile, confirmsReceiverState: true)
        #expect(planner.reconcile(demand: Self.demand(.lowest), now: .zero, cap: nil, monitoring: false, isShutDown: false) == .start(.lowest))
        planner.receiverTracking(.lowest, now: .zero + .seconds(1))
        let raised = EngineInstant.zero + .seconds(20)
        #expect(planner.reconcile(demand: Self.demand(.best), now: raised, cap: nil, monitoring: false, isShutDown: false) == .setMode(.best))
        planner.receiverTracking(.lowest, now: raised + .seconds(2))
        #expect(planner.state == .running(.lowest, since: .zero))
        var statistics = SchedulerStatistics()
        planner.addStatistics(to: &statistics, now: raised + .seconds(2))
        #expect(statistics.sourceMode == .lowest)
        #expect(planner.reconcile(demand: PowerDemand(), now: raised + .seconds(3), cap: nil, monitoring: false, isShutDown: false) == nil)
        #expect(planner.state == .lingering(.lowest, since: .zero, until: raised + .seconds(603)))
        #expect(planner.nextWakeup == raised + .seconds(603))
    }

    @Test("a confirmation whose evidence predates the last command answers an earlier one: not a refusal")
    func staleConfirmationIsNoRefusal() {
        var planner = Self.askedDown()
        // Evidence from 9 s, before the command at 10 s, arriving at 12 s (a receiver answering late).
        planner.receiverTracking(.best, age: .seconds(3), now: .zero + .seconds(12))
        #expect(planner.state == .running(.lowest, since: .zero))
        #expect(planner.nextWakeup == nil)
    }

    @Test("a stopped receiver is started in what is demanded, the mode it refused included: the backoff is for a running one")
    func stoppedReceiverStartsInWhatIsDemanded() {
        var planner = Self.askedDown()
        planner.receiverTracking(.best, now: .zero + .seconds(11))
        #expect(planner.forceOff(now: .zero + .seconds(12), monitoring: false) == .stop)
        #expect(planner.reconcile(demand: Self.demand(.lowest), now: .zero + .seconds(13), cap: nil, monitoring: false, isShutDown: false) == .start(.lowest))
    }
}

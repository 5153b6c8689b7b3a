import LocationEngine
import Testing

/// The restart-aware power-down decision, pure: plans for gaps below, at and above break-even, the 2× bound,
/// and the adjustment to observed gaps.
struct PowerDownDeciderTests {
    /// 100 mW tracking; standby 10 mW with a 1 s hot start; off 0 mW with a 30 s cold start (acquisition 100 mW).
    static let profile = ReceiverPowerProfile(
        acquisition: 100, tracking: [.high: 100], standby: 10, off: 0,
        timeToFirstFix: [.hot: .seconds(1), .warm: .seconds(30), .cold: .seconds(30)], ephemerisValidity: .seconds(1_000_000),
        offKeepsEphemerides: false)

    @Test func thePlanFollowsTheLowerEnvelope() {
        let plan = PowerDownDecider(profile: Self.profile).plan(mode: .high)
        #expect(plan.map(\.state) == [.on, .standby, .off])
        // on → standby when 90 mW × t = 100 mJ; standby → off when 10 mW × t = 3000 − 100 mJ.
        #expect(abs(Double(plan[1].after.saturatingNanoseconds) / 1e9 - 100.0 / 90) < 1e-6)
        #expect(abs(Double(plan[2].after.saturatingNanoseconds) / 1e9 - 290) < 1e-6)
        #expect(plan[1].reason.contains("break-even"))
    }

    /// The energy of `plan` over a gap of `seconds`, restart included.
    private func online(_ plan: [PowerDownDecider.Step], gap seconds: Double) -> Double {
        var energy = 0.0
        var state = ReceiverPowerProfile.IdleState.on
        for (index, step) in plan.enumerated() {
            let start = Double(step.after.saturatingNanoseconds) / 1e9
            guard start < seconds else { break }
            let end = index + 1 < plan.count ? min(seconds, Double(plan[index + 1].after.saturatingNanoseconds) / 1e9) : seconds
            energy += Self.profile.idlePower(step.state, mode: .high) * (end - start)
            state = step.state
        }
        return energy + Self.profile.restartEnergy(after: .zero, in: state)
    }

    private func offline(gap seconds: Double) -> Double {
        ReceiverPowerProfile.IdleState.allCases.map {
            Self.profile.restartEnergy(after: .zero, in: $0) + Self.profile.idlePower($0, mode: .high) * seconds
        }.min()!
    }

    @Test(arguments: [0.1, 0.5, 100.0 / 90, 2, 30, 290, 291, 1000, 100_000])
    func everyGapCostsAtMostTwiceTheOfflineOptimum(gap: Double) {
        let plan = PowerDownDecider(profile: Self.profile).plan(mode: .high)
        #expect(online(plan, gap: gap) <= 2 * offline(gap: gap) + 1e-6, "gap \(gap) s")
    }

    @Test func observedLongGapsBringTheSwitchForwardAndShortOnesPutItBack() {
        var long = PowerDownDecider(profile: Self.profile, trust: 0.5)
        for _ in 0..<5 { long.observe(gap: .seconds(5000)) }
        let forward = long.plan(mode: .high)
        #expect(forward[1].after < PowerDownDecider(profile: Self.profile).plan(mode: .high)[1].after)
        #expect(forward[1].reason.contains("brought forward"))

        var short = PowerDownDecider(profile: Self.profile, trust: 0.5)
        for _ in 0..<5 { short.observe(gap: .milliseconds(200)) }
        #expect(short.plan(mode: .high)[1].reason.contains("put back"))
        #expect(short.predictedGap == .milliseconds(200))
    }

    @Test func aReceiverWithNoCheaperStateStaysOn() {
        var flat = Self.profile
        flat.standby = 200
        flat.off = 200
        #expect(PowerDownDecider(profile: flat).plan(mode: .high).map(\.state) == [.on])
    }

    @Test func aLongStandbyRestartsWarm() {
        var profile = Self.profile
        profile.ephemerisValidity = .seconds(7200)
        #expect(profile.startCondition(after: .seconds(60), in: .standby) == .hot)
        #expect(profile.startCondition(after: .seconds(3 * 3600), in: .standby) == .warm)
        #expect(profile.restartDelay(after: .seconds(3 * 3600), in: .standby) == .seconds(30))
        #expect(profile.restartDelay(after: .seconds(3 * 3600), in: .on) == .zero)
    }
}

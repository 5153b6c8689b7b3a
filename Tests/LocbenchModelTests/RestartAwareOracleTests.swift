import LocationEngine
import LocbenchModel
import Testing

/// The restart-aware offline optimum: per gap, stay on, stand by or go off, restarts paid.
struct RestartAwareOracleTests {
    private static let profile = ReceiverPowerProfile(
        acquisition: 100, tracking: [.high: 100], standby: 10, off: 0,
        timeToFirstFix: [.hot: .seconds(1), .warm: .seconds(30), .cold: .seconds(30)], ephemerisValidity: .seconds(7200),
        offKeepsEphemerides: false)

    private func interval(_ start: Double, _ end: Double) -> TimelineInterval {
        TimelineInterval(start: Int64(start * 1e9), end: Int64(end * 1e9))
    }

    @Test func eachGapTakesTheCheapestStateAndPaysItsRestart() {
        let oracle = RestartAwareOracle(
            onIntervals: [interval(0, 10), interval(10.5, 20), interval(22, 30), interval(1010, 1020)], profile: Self.profile, mode: .high)
        // 0.5 s: a 1 s hot start does not fit, stay on. 2 s: standby (10 mW × 1 s + 100 mJ). 980 s: off (a 30 s cold start, 3000 mJ).
        #expect(oracle.gaps.map(\.state) == [.on, .standby, .off])
        #expect(abs(oracle.gaps[1].energy - 110) < 1e-6)
        #expect(abs(oracle.gaps[2].energy - 3000) < 1e-6)
        #expect(abs(oracle.trackingEnergy - 100 * 37.5) < 1e-6)
        #expect(abs(oracle.firstStartEnergy - 3000) < 1e-6)
        #expect(abs(oracle.energy - (3750 + 3000 + 50 + 110 + 3000)) < 1e-6)
    }

    @Test func noDemandCostsNothing() {
        #expect(RestartAwareOracle(onIntervals: [], profile: Self.profile, mode: .high).energy == 0)
    }
}

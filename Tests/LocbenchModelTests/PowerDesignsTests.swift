import LocationEngine
import LocationEngineTestKit
import LocbenchModel
import Testing

/// The designs locbench charges beside the engine, the oracle on demand at several modes, and the commute.
struct PowerDesignsTests {
    /// 100 mW tracking in high, 50 in medium; standby 10 mW with a 1 s hot start; off 0 mW with a 30 s cold start.
    private static let profile = ReceiverPowerProfile(
        acquisition: 100, tracking: [.high: 100, .medium: 50], standby: 10, off: 0,
        timeToFirstFix: [.hot: .seconds(1), .warm: .seconds(30), .cold: .seconds(30)], ephemerisValidity: .seconds(7200),
        offKeepsEphemerides: false)

    private func segment(_ start: Double, _ end: Double, _ mode: PowerMode) -> Demand {
        Demand(TimelineInterval(start: Int64(start * 1e9), end: Int64(end * 1e9)), level: mode.rawValue)
    }

    @Test func theOracleTracksEachSegmentInItsMode() {
        let oracle = RestartAwareOracle(segments: [segment(0, 10, .high), segment(10, 20, .medium), segment(22, 30, .medium)], profile: Self.profile, firstStart: .hot)
        #expect(abs(oracle.trackingEnergy - (1000 + 500 + 400)) < 1e-6)
        #expect(abs(oracle.firstStartEnergy - 100) < 1e-6)
        // A 2 s gap after a medium segment: standby (10 mW × 1 s + 100 mJ) beats staying on (50 mW × 2 s)? No: 110 > 100.
        #expect(oracle.gaps.map(\.state) == [.on])
    }

    @Test func stopImmediatelyPaysEveryRestartAndItsDelay() {
        let segments = [segment(10, 20, .high), segment(30, 40, .high)]
        let charge = DesignCharge(.stopImmediately, segments: segments, end: 50_000_000_000, profile: Self.profile)
        // Deepest state: off (0 mW), cold every time (30 s): acquiring costs what tracking in high does, so 20 s
        // of tracking and nothing more.
        #expect(charge.restarts == 1 && charge.restartDelays == [.seconds(30)])
        #expect(abs(charge.joules - 2) < 1e-9)
    }

    @Test("a start is charged what acquiring costs above tracking, over its time to first fix: the receiver acquires in place of tracking")
    func aStartCostsAcquisitionAboveTracking() {
        let profile = ReceiverPowerProfile(
            acquisition: 120, tracking: [.best: 100, .high: 100], standby: 10, off: 0,
            timeToFirstFix: [.hot: .seconds(2), .warm: .seconds(30), .cold: .seconds(30)], ephemerisValidity: .seconds(7200),
            offKeepsEphemerides: true)
        let segments = [segment(0, 10, .high), segment(100, 110, .high)]
        // 20 s tracking (2 J), two hot starts at 20 mW above tracking for 2 s (0.04 J each): 2.08 J, not 2.48 J.
        let charge = DesignCharge(.stopImmediately, segments: segments, end: 110_000_000_000, profile: profile, firstStart: .hot)
        #expect(abs(charge.joules - 2.08) < 1e-9 && charge.restartDelays == [.seconds(2)])
        #expect(abs(DesignCharge(.alwaysOn, segments: segments, end: 110_000_000_000, profile: profile, firstStart: .hot).joules - 11.04) < 1e-9)
    }

    @Test func gpsdBridgesGapsUnderAMinuteInTheBestMode() {
        let segments = [segment(10, 20, .medium), segment(30, 40, .medium), segment(200, 210, .medium)]
        let charge = DesignCharge(.gpsdRelease, segments: segments, end: 300_000_000_000, profile: Self.profile)
        #expect(charge.restarts == 1)
        // Tracking 30 s + the 10 s gap + 60 s after each of the last two stretches, at best (100 mW); acquiring costs
        // no more than that.
        #expect(abs(charge.joules - (30 + 10 + 60 + 60) * 0.1) < 1e-9)
        #expect(abs(DesignCharge(.alwaysOn, segments: segments, end: 300_000_000_000, profile: Self.profile).joules - 30) < 1e-9)
    }

    @Test func aCommuteDayHasItsWindowsAndGapsOfHours() {
        var process = CommuteArrivals(rate: 0.5)
        var generator = SplitMix64(seed: 11)
        var arrivals: [Int64] = []
        while arrivals.count < 20_000 { arrivals.append(process.next(using: &generator)) }
        #expect(zip(arrivals, arrivals.dropFirst()).allSatisfy { $0 <= $1 })
        let hours = arrivals.map { Double($0) / 3.6e12 }
        #expect(hours.first! >= 7.3 && hours.contains { $0 > 24 })
        let longGaps = zip(hours, hours.dropFirst()).filter { $1 - $0 > 2 }.count
        #expect(longGaps >= 3, "gaps longer than the ephemerides stay valid")
    }
}

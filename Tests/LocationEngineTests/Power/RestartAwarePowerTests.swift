import Testing

@testable import LocationEngine

/// The restart-aware rule wired into the core, on the virtual clock: gaps below, at and above the break-even,
/// gaps longer than the ephemerides stay valid, the fixed-linger override, and a source without a profile.
@Suite("Restart-aware power")
struct RestartAwarePowerTests {
    /// 100 mW tracking; standby 10 mW with a 1 s hot start; off 0 mW with a 30 s cold start (acquisition 200 mW).
    /// A restart acquires in place of tracking, so it costs 100 mW above tracking over its time to first fix:
    /// on → standby breaks even after 100 mJ / 90 mW = 1.111 s, standby → off after 2900 mJ / 10 mW = 290 s.
    static let profile = ReceiverPowerProfile(
        acquisition: 200, tracking: [.high: 100], standby: 10, off: 0,
        timeToFirstFix: [.hot: .seconds(1), .warm: .seconds(30), .cold: .seconds(30)], ephemerisValidity: .seconds(7200),
        offKeepsEphemerides: false)
    static let breakEven = Duration.nanoseconds(1_111_111_111)

    /// A harness following `profile` by the plain break-even (trust 1), after one house request ended at 10 s.
    static func afterDemand(_ profile: ReceiverPowerProfile = profile, rule: PowerDownRule = .restartAware(trust: 1)) -> MachineHarness {
        var h = MachineHarness(linger: .seconds(5), powerProfile: profile, powerDown: rule)
        h.advance(by: .seconds(10))
        h.oneShot("first", .house, timeout: nil)
        h.fix(12)
        #expect(h.onlyResult("first")?.status == .success)
        return h
    }

    @Test("a gap shorter than the break-even is bridged on: no stop, no restart")
    func belowBreakEven() {
        var h = Self.afterDemand()
        #expect(h.machine.statistics(now: h.now).idleState == .on)
        #expect(h.machine.nextWakeup == h.now + Self.breakEven)
        h.advance(by: .seconds(1))
        // (Finer than the cached fix, so that it needs the source: the mode goes up, the receiver stays on.)
        h.oneShot("second", .room, timeout: nil)
        #expect(h.sourceCommands == [.start(.high), .setMode(.best)])
        let stats = h.machine.statistics(now: h.now)
        #expect(stats.gapsBridgedOn == 1 && stats.idleState == nil && stats.powerDownsToStandby == 0)
        #expect(stats.predictedGap == .seconds(1))
    }

    @Test("with a coarse source first and the receiver second, the engine's power-down figures are the receiver's: summed over the sources, not the first one's")
    func figuresOfAReceiverThatIsNotTheFirstSource() {
        let coarse = SourceCapabilities(providesCourse: false, reach: 1000, cost: SourceCost(watts: 0.005))
        let receiver = SourceCapabilities(providesCourse: true, powerProfile: Self.profile)
        var h = MachineHarness(linger: .seconds(5), powerDown: .restartAware(trust: 1), sources: [coarse, receiver])
        h.advance(by: .seconds(10))
        h.oneShot("house", .house, timeout: nil)
        h.fix(Location(latitude: 48, longitude: 11, horizontalAccuracy: 12), source: 1)
        #expect(h.onlyResult("house")?.status == .success)
        h.advance(by: Self.breakEven)
        let stats = h.machine.statistics(now: h.now)
        #expect(stats.powerDownsToStandby == 1 && stats.idleState == .standby && stats.lastPowerDown?.rule == .breakEven, "\(stats)")
        #expect(stats.sources.map(\.stops) == [0, 1] && stats.sourceMode == nil)
    }

    @Test("at the break-even the receiver goes to standby, not a nanosecond before")
    func atBreakEven() {
        var h = Self.afterDemand()
        h.advance(by: Self.breakEven - .nanoseconds(1))
        #expect(h.sourceCommands == [.start(.high)])
        #expect(h.machine.isSourceOn)
        h.advance(by: .nanoseconds(1))
        #expect(h.sourceCommands == [.start(.high), .idle(.standby)])
        #expect(!h.machine.isSourceOn)
        let stats = h.machine.statistics(now: h.now)
        #expect(stats.idleState == .standby && stats.powerDownsToStandby == 1 && stats.sourceStops == 1)
        #expect(stats.lastPowerDown?.rule == .breakEven && stats.lastPowerDown?.reason.contains("break-even of on → standby") == true)
    }

    @Test("above the break-even: standby, a hot restart; far above: off at 290 s, a cold restart")
    func aboveBreakEven() {
        var h = Self.afterDemand()
        h.advance(by: .seconds(100))
        h.oneShot("second", .house, timeout: nil)
        #expect(h.sourceCommands == [.start(.high), .idle(.standby), .start(.high)])
        #expect(h.machine.statistics(now: h.now).lastRestartCondition == .hot)
        h.fix(12)
        #expect(h.machine.nextWakeup == h.now + Self.breakEven)
        h.advance(by: .seconds(290) - .nanoseconds(1))
        #expect(h.sourceCommands.last == .idle(.standby))
        #expect(h.machine.nextWakeup == h.now + .nanoseconds(1))
        h.advance(by: .nanoseconds(1))
        #expect(h.sourceCommands.suffix(2) == [.idle(.standby), .idle(.off)])
        h.advance(by: .seconds(1000))
        #expect(h.machine.nextWakeup == nil)
        h.oneShot("third", .house, timeout: nil)
        let stats = h.machine.statistics(now: h.now)
        #expect(stats.lastRestartCondition == .cold && stats.powerDownsToOff == 1 && stats.powerDownsToStandby == 2)
        #expect(stats.sourceStarts == 3 && stats.sourceStops == 2)
    }

    @Test("past the ephemerides' validity standby keeps no hot start: the receiver goes off then")
    func longerThanEphemerisValidity() {
        // Off is so expensive to leave (cold, 3000 mJ) against 1 mW of standby that the break-even is 2900 s,
        // later than the 600 s the ephemerides stay valid.
        var profile = Self.profile
        profile.standby = 1
        profile.ephemerisValidity = .seconds(600)
        var h = Self.afterDemand(profile)
        h.advance(by: .seconds(599))
        #expect(h.sourceCommands == [.start(.high), .idle(.standby)])
        h.advance(by: .seconds(1))
        #expect(h.sourceCommands == [.start(.high), .idle(.standby), .idle(.off)])
        #expect(h.powerDowns.last?.rule == .ephemerisStale)
        h.advance(by: .seconds(3 * 3600))
        h.oneShot("later", .house, timeout: nil)
        #expect(h.machine.statistics(now: h.now).lastRestartCondition == .cold)

        // With no cheaper state than standby it stays there, and restarts warm.
        profile.off = 1
        var standbyOnly = Self.afterDemand(profile)
        standbyOnly.advance(by: .seconds(3 * 3600))
        standbyOnly.oneShot("later", .house, timeout: nil)
        #expect(standbyOnly.sourceCommands == [.start(.high), .idle(.standby), .start(.high)])
        #expect(standbyOnly.machine.statistics(now: standbyOnly.now).lastRestartCondition == .warm)
    }

    @Test("recent long gaps bring the switch forward to the end of demand (trust 0.5)")
    func recentGapsAdjustTheSwitch() {
        var h = Self.afterDemand(rule: .restartAware(trust: 0.5))
        for round in 0..<4 {
            h.advance(by: .seconds(60))
            h.oneShot("r\(round)", .house, timeout: nil)
            h.fix(12)
        }
        h.advance(by: .seconds(60))
        // Standing by at once would have cost half of what the break-even did over those gaps: taken at trust 0.5.
        let last = h.powerDowns.last
        #expect(last?.rule == .broughtForward)
        #expect(last?.after == .zero)
        #expect(h.machine.statistics(now: h.now).predictedGap == .seconds(60))
    }

    @Test("the fixed linger overrides the profile")
    func fixedLingerOverride() {
        var h = Self.afterDemand(rule: .fixedLinger)
        h.advance(by: .seconds(5) - .nanoseconds(1))
        #expect(h.sourceCommands == [.start(.high)])
        h.advance(by: .nanoseconds(1))
        #expect(h.sourceCommands == [.start(.high), .stop])
        let stats = h.machine.statistics(now: h.now)
        #expect(stats.idleState == nil && stats.lastPowerDown == nil && h.powerDowns.isEmpty)
    }

    @Test("a source that describes no profile behaves as before: the fixed linger, a plain stop")
    func noProfileIsToday() {
        func script(_ rule: PowerDownRule) -> ([MachineHarness.SourceCommand], SchedulerStatistics) {
            var h = MachineHarness(linger: .seconds(1), powerDown: rule)
            for round in 0..<20 {
                h.oneShot("r\(round)", round % 2 == 0 ? .house : .block, timeout: .seconds(2))
                h.advanceThroughWakeups(by: .milliseconds(round % 3 == 0 ? 1500 : 4000))
            }
            h.advanceThroughWakeups(by: .seconds(10))
            return (h.sourceCommands, h.machine.statistics(now: h.now))
        }
        let (automatic, stats) = script(.restartAware)
        let (fixed, fixedStats) = script(.fixedLinger)
        #expect(automatic == fixed)
        #expect(stats == fixedStats)
        #expect(automatic.filter { $0 == .stop }.count == stats.sourceStops && stats.sourceStops > 1)
        #expect(!automatic.contains(.idle(.standby)) && !automatic.contains(.idle(.off)))
        #expect(stats.idleState == nil && stats.lastPowerDown == nil)
    }

    @Test("a receiver with no state cheaper than tracking lingers, then stops")
    func noCheaperState() {
        var flat = Self.profile
        flat.standby = 200
        flat.off = 200
        var h = Self.afterDemand(flat)
        h.advance(by: .seconds(5))
        #expect(h.sourceCommands == [.start(.high), .stop])
    }

    @Test("forced off in a gap (a fatal error) takes no step down, and the restart is no bridged gap")
    func forcedOffInAGap() {
        var h = Self.afterDemand()
        h.fatalError()
        #expect(h.sourceCommands == [.start(.high), .stop])
        h.advance(by: .seconds(1))
        h.oneShot("again", .room, timeout: nil)
        h.advance(by: .seconds(400))
        #expect(h.sourceCommands == [.start(.high), .stop, .start(.best)])
        #expect(h.machine.statistics(now: h.now).gapsBridgedOn == 0)
        h.shutdown()
        h.advance(by: .seconds(400))
        #expect(h.sourceCommands.last == .stop)
    }

    @Test("shut down while the receiver waits in standby: its next step is not taken and nothing wakes the owner")
    func shutdownInStandby() {
        var h = Self.afterDemand()
        h.advance(by: Self.breakEven)
        #expect(h.sourceCommands == [.start(.high), .idle(.standby)])
        h.shutdown()
        // Past the step down to off (290 s): one pass, which returns, and no wake-up left.
        h.advance(by: .seconds(400))
        #expect(h.machine.nextWakeup == nil)
        #expect(h.sourceCommands == [.start(.high), .idle(.standby)])
    }
}

extension MachineHarness {
    /// Lets `duration` pass as an owner with a timer does: through each wake-up the machine asks for.
    mutating func advanceThroughWakeups(by duration: Duration) {
        let end = now + duration
        while let next = machine.nextWakeup, next > now, next < end { advance(by: next - now) }
        advance(by: end - now)
    }

}

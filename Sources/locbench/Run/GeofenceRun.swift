@_spi(Internals) import LocationEngine
import LocationEngineTestKit
import LocbenchModel
import Logging
import SyntheticGPS

/// What one design did over one geofence trajectory, on the run's timeline.
struct GeofenceDesignRun: Sendable {
    /// Every transition reported, in delivery order.
    var reports: [ReportedTransition]
    /// The fix at each second of the trajectory, `nil` where there was none (receiver off or acquiring).
    var fixes: [GeoPoint?]
    /// The horizontal accuracy of the fix at each second of the trajectory, `nil` where there was none.
    var fixAccuracies: [Double?]
    /// The fixes' horizontal accuracies, metres, in order.
    var accuracies: [Double] { fixAccuracies.compactMap { $0 } }
    /// The receiver's mode at each second of the trajectory (`nil`: off).
    var modes: [PowerMode?]
    /// The energy the synthetic receiver metered over the trajectory, joules.
    var meteredJoules: Double
    /// The synthetic receiver's meter at the trajectory's end: where that energy went, and how many starts acquired.
    var meter: ReceiverEnergyMeter?
    /// Process CPU time of the whole run loop (the synthetic receiver included) per fix, microseconds.
    var cpuMicrosecondsPerFix: Double
    /// Broken invariants.
    var violations: [String]
}

/// Runs the engine over one geofence trajectory: a monitor per fence (all with one responsiveness), a manual clock moved a second (or an engine
/// deadline) at a time, the synthetic receiver metered; then every monitor force-completed and the engine wound
/// down, checking that each ended exactly once and that the source ends off.
enum GeofenceRun {
    /// How long a monitor must be inside before it reports `dwelled`.
    static let loiteringDelay = Duration.seconds(120)

    /// Moves the clock, then the source (fixes due now are stamped at `instant`), and lets the engine process —
    /// all on the engine's actor. The engine's own loop wakes when the clock passes its timer or a fix reaches
    /// its inbox; run from outside, it could take the actor between the two moves and command the source at
    /// the clock's new instant while the source's time was still the old one (a stop metered a second early,
    /// a fix one start later), so that two runs of one seed differed. On the actor, the loop finds everything
    /// done when it gets its turn.
    private static func step(_ engine: isolated LocationEngine<ManualClock>, to instant: Int64, clock: ManualClock, source: SyntheticLocationSource) {
        clock.advance(to: ManualClock.Instant(offset: .nanoseconds(instant)))
        source.advance(to: .nanoseconds(instant))
        engine.sync()
    }

    static func engine(
        scenario: Scenario, fences: [PlacedFence], duration: Double, persona: ReceiverPersona, configuration: LocationEngineConfiguration,
        responsiveness: Duration
    ) async -> GeofenceDesignRun {
        var logger = Logger(label: "LocationEngine")
        logger.logLevel = .warning
        let clock = ManualClock()
        let source = SyntheticLocationSource(scenario: scenario, drive: .manual, persona: persona)
        let engine = LocationEngine(source: source, clock: clock, configuration: configuration, logger: logger)
        Task { try await engine.run() }
        let ledger = MonitorLedger(count: fences.count, now: { Double(clock.now.offset.saturatingNanoseconds) / 1e9 })
        let cpuStart = ProcessStats.cpuSeconds()
        let ids = fences.indices.map { engine.monitor(fences[$0].region, options: GeofenceOptions(loiteringDelay: loiteringDelay, responsiveness: responsiveness), handler: ledger.handler(for: $0)) }
        await engine.sync()
        let seconds = Int(duration)
        var fixes = [GeoPoint?](repeating: nil, count: seconds + 1)
        var modes = [PowerMode?](repeating: nil, count: seconds + 1)
        var fixCount = 0
        var fixAccuracies = [Double?](repeating: nil, count: seconds + 1)
        modes[0] = source.mode
        var time: Int64 = 0
        func advance(to instant: Int64) async {
            time = instant
            await step(engine, to: instant, clock: clock, source: source)
        }
        for second in 1...max(1, seconds) {
            let target = Int64(second) * 1_000_000_000
            // Engine deadlines between fixes (a dwell, a region going unknown, the power policy) fire at their instant.
            while let wake = await engine.nextWakeup()?.offset.saturatingNanoseconds, wake > time, wake < target { await advance(to: wake) }
            await advance(to: target)
            modes[second] = source.mode
            if let epoch = source.lastEpoch, Int(epoch.elapsed.rounded()) == second, let fix = epoch.fix {
                fixes[second] = GeoPoint(latitude: fix.latitude, longitude: fix.longitude)
                fixCount += 1
                fixAccuracies[second] = fix.horizontalAccuracy
            }
        }
        let meter = source.energyMeter
        let meteredJoules = meter?.energy ?? 0
        let cpu = ProcessStats.cpuSeconds() - cpuStart
        for id in ids { engine.forceComplete(id) }
        await engine.sync()
        // Let the power policy's stay-on pass: the source must end off.
        let end = time + 130_000_000_000
        while time < end { await advance(to: min(end, await engine.nextWakeup().map { max($0.offset.saturatingNanoseconds, time + 1) } ?? end)) }
        var violations = ledger.violations(afterForceCompletingAll: true)
        let statistics = await engine.statistics()
        if statistics.activeSubscriptions != 0 { violations.append("\(statistics.activeSubscriptions) monitors still active after all were force-completed") }
        if source.mode != nil { violations.append("the source is still on 130 s after the last monitor ended") }
        return GeofenceDesignRun(
            reports: ledger.reports, fixes: fixes, fixAccuracies: fixAccuracies, modes: modes, meteredJoules: meteredJoules, meter: meter,
            cpuMicrosecondsPerFix: fixCount == 0 ? 0 : cpu * 1e6 / Double(fixCount), violations: violations)
    }
}

@_spi(Internals) import LocationEngine
import LocbenchModel
import NIOConcurrencyHelpers
import SyntheticGPS

/// A fixed-interval polling design: the receiver takes a fix every `interval` seconds and waits in standby
/// between (``PollingSchedule``: restarted so that its fix comes on time, restarts paid by the meter; an interval
/// within the longest restart keeps it tracking and takes every `interval`-th second's fix),
/// and every fence is decided by the engine's own rules (``RegionEvaluator``: confidence, hysteresis, dwell, and
/// across a wait the crossing rule and the held states the engine's sleeps get), so that it differs from the
/// engine only in when it takes fixes.
enum PollingGeofenceMonitor {
    static func run(
        interval: Int, scenario: Scenario, fences: [PlacedFence], duration: Double, persona: ReceiverPersona,
        configuration: GeofenceConfiguration, loiteringDelay: Duration
    ) -> GeofenceDesignRun {
        let source = SyntheticLocationSource(scenario: scenario, drive: .manual, persona: persona)
        let received = NIOLockedValueBox<[Location]>([])
        let sink = SourceEventSink { event in
            if case .location(let location, _) = event { received.withLockedValue { $0.append(location) } }
        }
        var evaluator = try! RegionEvaluator(configuration: configuration)  // the engine ran with it
        for (index, fence) in fences.enumerated() {
            evaluator.add(RequestID(rawValue: UInt64(index)), region: fence.region, options: GeofenceOptions(loiteringDelay: loiteringDelay))
        }
        // The receiver is restarted this long before a fix is due: its longest time to first fix after standby
        // (ephemerides kept: a hot start), so that the fix is on time whatever this restart takes.
        let restartLead = persona.powerProfile == nil ? 1 : Int(SyntheticGPS.StartCondition.hot.timeToFirstFix.upperBound.rounded(.up))
        var schedule = PollingSchedule(interval: interval, lead: restartLead)
        let seconds = Int(duration)
        var reports: [ReportedTransition] = []
        var fixes = [GeoPoint?](repeating: nil, count: seconds + 1)
        var fixAccuracies = [Double?](repeating: nil, count: seconds + 1)
        var modes = [PowerMode?](repeating: nil, count: seconds + 1)
        var fixCount = 0
        var restartAt: Int?
        let cpuStart = ProcessStats.cpuSeconds()
        source.start(mode: .best, events: sink)
        modes[0] = source.mode
        func take() {
            while let event = evaluator.nextEvent() {
                reports.append(
                    ReportedTransition(
                        fence: Int(event.id.rawValue), kind: ReportedTransition.Kind(event.transition), seconds: Double(event.at.nanoseconds) / 1e9,
                        estimatedCrossing: event.estimatedCrossing.map { Double($0.nanoseconds) / 1e9 }))
            }
        }
        for second in 1...max(1, seconds) {
            let now = EngineInstant(.seconds(second))
            evaluator.advanceTime(now: now)
            take()
            source.advance(to: .seconds(second))
            let batch = received.withLockedValue { batch in
                defer { batch.removeAll(keepingCapacity: true) }
                return batch
            }
            var took = false
            for location in batch where schedule.take(fixAt: second) {
                fixes[second] = GeoPoint(location)
                fixAccuracies[second] = location.horizontalAccuracy
                fixCount += 1
                evaluator.receiveFix(location, now: now)
                take()
                took = true
            }
            if took, let due = schedule.due {
                if let restart = schedule.restartAt {
                    source.stop(into: .standby)
                    restartAt = restart
                }
                // As the engine's monitors do when they let the receiver sleep: the next fix is due then, so the
                // states hold until it, and a crossing read off the straight line across the wait is reported
                // only when every way at the maximum speed passes through the region.
                if due > second + 1 { evaluator.holdStates(until: EngineInstant(.seconds(due))) }
            }
            if restartAt == second {
                restartAt = nil
                source.start(mode: .best, events: sink)
            }
            modes[second] = source.mode
        }
        let cpu = ProcessStats.cpuSeconds() - cpuStart
        let meter = source.energyMeter
        let meteredJoules = meter?.energy ?? 0
        source.stop()
        return GeofenceDesignRun(
            reports: reports, fixes: fixes, fixAccuracies: fixAccuracies, modes: modes, meteredJoules: meteredJoules, meter: meter,
            cpuMicrosecondsPerFix: fixCount == 0 ? 0 : cpu * 1e6 / Double(fixCount), violations: [])
    }
}

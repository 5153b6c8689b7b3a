import Foundation
@_spi(Internals) import LocationEngine
import LocationEngineTestKit
import LocbenchModel
import Logging
import NIOConcurrencyHelpers
import SyntheticGPS

/// The several-sources workload: mostly coarse requests — nine in ten city or neighbourhood one-shots or
/// significant-change subscriptions, one in ten house or room one-shots — arriving on and off as the default
/// shape's, served by the engine over a metered synthetic GNSS receiver with a coarse source beside it, or over
/// the GNSS alone. Optionally the sky goes dark for a stretch (indoors) or the GNSS fails for good mid-run.
enum SeveralSourcesRun {
    struct Settings: Sendable {
        var requests: Int
        var seed: UInt64
        var scenario: Scenario
        var persona: ReceiverPersona
        var withCoarse: Bool
        /// When the GNSS fails for good, seconds into the run.
        var gnssFailsAt: Double?
    }

    /// What one run did.
    struct Outcome: Sendable {
        var meteredJoules: Double
        /// The restart-aware oracle for the GNSS (see ``run(_:)``), joules.
        var oracleJoules: Double
        var engineJoules: Double?
        var gnssStarts: Int
        /// Starts and changes of the GNSS into a mode the coarse source serves (with it beside: none may happen).
        var gnssRunsForCoarse: Int
        var coarseStarts: Int
        /// Precise one-shots that timed out, and those of them that carried a coarse fix as their best effort.
        var preciseTimedOut: Int
        var preciseTimedOutWithFix: Int
        var outcomes: [String: Int]
        var coarseServableFailed: Int
        var seconds: Double
        var violations: [String]
        /// Submission → success of the one-shots that waited for a fix, by level (city, neighbourhood, house, room).
        var timeToAnswer: [(level: LocationAccuracy, summary: LatencySummary)]
    }

    /// One request of the workload.
    struct Planned: Sendable {
        var at: Int64
        var accuracy: LocationAccuracy?
        var timeout: Duration
        var isPrecise: Bool { accuracy == .house || accuracy == .room }
    }

    /// The workload, the same for every run with the same settings.
    static func plan(_ settings: Settings) -> [Planned] {
        var rng = SeededGenerator(seed: settings.seed)
        var arrivals = OnOffArrivals(rate: max(10, Double(settings.requests) / 200), meanOn: 30, meanOff: 90)
        return (0..<settings.requests).map { _ in
            let at = arrivals.next(using: &rng)
            let draw = Int.random(in: 0..<100, using: &rng)
            let accuracy: LocationAccuracy? =
                switch draw {
                case 0..<40: .city
                case 40..<80: .neighborhood
                case 80..<90: nil  // a significant-change subscription
                case 90..<95: .house
                default: .room
                }
            return Planned(at: at, accuracy: accuracy, timeout: .seconds(Int64.random(in: 5...60, using: &rng)))
        }
    }

    static func run(_ settings: Settings) async -> Outcome {
        var logger = Logger(label: "LocationEngine")
        logger.logLevel = .critical
        let clock = ManualClock()
        let receiver = SyntheticLocationSource(scenario: settings.scenario, drive: .manual, persona: settings.persona)
        let gnss = FailingSource(receiver, catchUp: { receiver.advance(to: clock.now.offset) })
        // Wi-Fi and IP locate indoors too: the coarse source has no sky outage.
        var coarseScenario = settings.scenario
        coarseScenario.outages = OutagePlan()
        let coarse = CoarseSyntheticSource(scenario: coarseScenario)
        let sources: [any LocationSource] = settings.withCoarse ? [gnss, coarse] : [gnss]
        let engine = LocationEngine(sources: sources, clock: clock, configuration: LocationEngineConfiguration(), logger: logger)
        Task { try await engine.run() }
        let plan = Self.plan(settings)
        let endings = NIOLockedValueBox([[LocationResult]](repeating: [], count: plan.count))
        let subscriptionEnds = NIOLockedValueBox([Int](repeating: 0, count: plan.count))
        let endedAt = NIOLockedValueBox([Int64?](repeating: nil, count: plan.count))
        var time: Int64 = 0
        func advance(to instant: Int64) async {
            time = instant
            clock.advance(to: ManualClock.Instant(offset: .nanoseconds(time)))
            gnss.base.advance(to: .nanoseconds(time))
            coarse.advance(to: .nanoseconds(time))
            await engine.sync()
        }
        var next = 0
        var failed = false
        let lastArrival = plan.last?.at ?? 0
        let horizon = lastArrival + 200_000_000_000
        while time < horizon {
            while next < plan.count, plan[next].at <= time {
                let index = next
                let request = plan[index]
                let now: @Sendable () -> Int64 = { clock.now.offset.saturatingNanoseconds }
                if let accuracy = request.accuracy {
                    engine.location(accuracy: accuracy, timeout: request.timeout) { result in
                        endings.withLockedValue { $0[index].append(result) }
                        endedAt.withLockedValue { $0[index] = now() }
                    }
                } else {
                    engine.updates(SubscriptionOptions(kind: .significantChange, duration: .seconds(60))) { _, event in
                        guard case .ended = event else { return }
                        subscriptionEnds.withLockedValue { $0[index] += 1 }
                        endedAt.withLockedValue { $0[index] = now() }
                    }
                }
                next += 1
            }
            // Taken at the instant they were made, before the clock moves on.
            await engine.sync()
            // The receiver is unplugged at the first instant past `gnssFailsAt` that it runs.
            if let failAt = settings.gnssFailsAt, !failed, Double(time) / 1e9 >= failAt, gnss.base.mode != nil {
                failed = true
                gnss.fail(SourceError(code: "gnss.gone", message: "the receiver was unplugged"))
                await engine.sync()
            }
            var target = (time / 1_000_000_000 + 1) * 1_000_000_000
            if next < plan.count { target = min(target, max(time + 1, plan[next].at)) }
            if let wake = await engine.nextWakeup()?.offset.saturatingNanoseconds, wake > time { target = min(target, wake) }
            await advance(to: target)
        }
        let statistics = await engine.statistics()
        await engine.shutdown()

        // The oracle runs the GNSS exactly while a request the coarse source cannot serve waits in this run (with it
        // beside; alone, while any request does), tracking, and pays a restart ahead of each stretch it powers down
        // between: the main workload's oracle. A wait here includes the engine's own acquisition after a start, so for
        // one-shots that end at their first fix the oracle pays that time twice (tracking, and its own restart): a
        // loose bound for this workload, which the engine may come in under.
        let ends = endedAt.withLockedValue { $0 }
        let demands: [Demand] = plan.indices.compactMap { index in
            let request = plan[index]
            guard let end = ends[index], end > request.at else { return nil }
            let mode = request.accuracy?.requiredPowerMode ?? .lowest
            if settings.withCoarse && CoarseSyntheticSource.capabilitiesForBench.serves(mode) { return nil }
            return Demand(TimelineInterval(start: request.at, end: end), level: mode.rawValue)
        }
        let oracle = PowerOracle(demands: demands, levels: PowerMode.allCases.count)
        let oracleJoules = RestartAwareOracle.joules(
            segments: oracle.segments, end: time, profile: settings.persona.powerProfile!,
            firstStart: .init(rawValue: settings.scenario.startCondition.rawValue) ?? .cold)
        var violations: [String] = []
        var outcomes: [String: Int] = [:]
        var preciseTimedOut = 0
        var preciseTimedOutWithFix = 0
        var coarseServableFailed = 0
        var answerTimes: [LocationAccuracy: LatencyRecorder] = [:]
        let results = endings.withLockedValue { $0 }
        let subscriptionEndCounts = subscriptionEnds.withLockedValue { $0 }
        for index in plan.indices {
            let request = plan[index]
            if request.accuracy == nil {
                if subscriptionEndCounts[index] != 1 { violations.append("subscription #\(index + 1) ended \(subscriptionEndCounts[index]) times") }
                continue
            }
            guard results[index].count == 1, let result = results[index].first else {
                violations.append("one-shot #\(index + 1) ended \(results[index].count) times")
                continue
            }
            outcomes[result.status.outcome, default: 0] += 1
            if result.status == .success, let accuracy = request.accuracy, let end = ends[index], end > request.at {
                answerTimes[accuracy, default: LatencyRecorder()].record(nanoseconds: end - request.at)
            }
            if request.isPrecise, result.status == .timedOut {
                preciseTimedOut += 1
                if result.location != nil { preciseTimedOutWithFix += 1 }
            }
            if !request.isPrecise, case .failed = result.status { coarseServableFailed += 1 }
        }
        let metered = gnss.base.energyMeter?.energy ?? 0
        let engineJoules = statistics.sources.first?.receiverEnergy ?? statistics.receiverEnergy
        // An unplugged receiver confirms nothing after its failure, and the engine costs what it cannot confirm as the
        // dearest it could be: its figure is checked against the meter only while the receiver lives.
        if !failed, let figure = engineJoules, metered > 0, abs(figure / metered - 1) > 0.02 {
            violations.append(String(format: "the engine's energy figure for the GNSS, %.2f J, is %+.1f %% off its meter", figure, (figure / metered - 1) * 100))
        }
        let gnssModes = gnss.modes.withLockedValue { $0 }
        let forCoarse = settings.withCoarse ? gnssModes.filter { CoarseSyntheticSource.capabilitiesForBench.serves($0) }.count : 0
        if forCoarse > 0 { violations.append("the GNSS ran \(forCoarse) times in a mode the coarse source serves") }
        if settings.withCoarse && settings.gnssFailsAt != nil && coarseServableFailed > 0 {
            violations.append("\(coarseServableFailed) requests the coarse source could serve failed with the GNSS")
        }
        return Outcome(
            meteredJoules: metered, oracleJoules: oracleJoules, engineJoules: engineJoules,
            gnssStarts: statistics.sources.first?.starts ?? statistics.sourceStarts, gnssRunsForCoarse: forCoarse,
            coarseStarts: statistics.sources.count > 1 ? statistics.sources[1].starts : 0, preciseTimedOut: preciseTimedOut,
            preciseTimedOutWithFix: preciseTimedOutWithFix, outcomes: outcomes, coarseServableFailed: coarseServableFailed,
            seconds: Double(time) / 1e9, violations: violations,
            timeToAnswer: [LocationAccuracy.city, .neighborhood, .house, .room].compactMap { level in
                answerTimes[level].map { (level, $0.summary) }
            })
    }
}

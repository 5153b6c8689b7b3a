import ArgumentParser
import Foundation
import LocationEngine
import LocationEngineTestKit
import LocationSources
import LocbenchModel
import Logging
import SyntheticGPS

/// `locbench`: drives the engine with N requests from a deterministic workload over the synthetic GPS,
/// checks every invariant, and reports what it measured: power against an oracle and always-on, and
/// the naive design side by side.
@main
struct LocBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "locbench",
        abstract: "Load-test the LocationEngine scheduler: N requests over one synthetic GPS, invariants checked.",
        discussion: manual)

    @Option(parsing: .unconditional, help: "Number of operations: one-shots, subscriptions, cancels and force-completes, drawn per --mix (at most 20,000,000).")
    var requests: Int = 10_000

    @Option(help: "virtual (a manual clock jumping from event to event: as fast as possible, exact) or wall (real time and timers, for real latencies).")
    var clock: String = "virtual"

    @Option(
        parsing: .upToNextOption,
        help: "The location source: synthetic (built in), nmea FILE (a recorded NMEA log, replayed in real time), or gpsd HOST:PORT. Real sources need --clock wall.")
    var source: [String] = ["synthetic"]

    @Option(help: "Synthetic scenario: \(Scenario.names.joined(separator: ", ")); tunnel is a drive with a 60 s outage every 5 minutes.")
    var scenario: String = "drive"

    @Option(help: "Synthetic fixes per second in the finest modes (more than 0, at most 100).")
    var fixRate: Double = 1

    @Option(name: .customLong("mix"), help: "Operation weights as comma-separated name=weight: oneshot, subscription, cancel, force (default \(Mix.standard.description); oneshot=1 for --shape trickle).")
    var mixOption: String?

    /// The mix, after the shape's default.
    var mix: String { mixOption ?? (shape == "trickle" ? "oneshot=1" : Mix.standard.description) }

    @Option(help: "The workload's shape: default (on/off arrivals per --arrival), trickle (one request at a time, gaps around the receiver's break-even) or commute (a day of commuting: windows at fixed times of day, hours between them).")
    var shape: String = "default"

    @Option(help: "The synthetic receiver whose current is metered and whose power profile the engine follows: mtk (MediaTek MT3339), ublox (u-blox SAM-M8Q) or plain (takes no command: the engine's fixed linger).")
    var receiver: String = "mtk"

    @Option(help: "How the engine powers the source down: restart-aware (the break-even of a restart, adjusted by recent gaps trusted 0.75), restart-aware:TRUST (0.5…1; 1 is the plain break-even) or linger (the fixed --linger, the override).")
    var powerDown: String = "restart-aware"

    @Option(
        name: .customLong("arrival"),
        help: "When operations arrive: onoff (bursts and idle gaps; the default on the virtual clock), steady (--arrival-rate per second) or burst (all at once; the default on the wall clock, where an on/off run would last about 20 minutes).")
    var arrivalOption: String?

    /// The arrival model's name, after defaults.
    var arrival: String { arrivalOption ?? (clock == "wall" ? "burst" : "onoff") }

    @Option(help: "Operations per second: while on (onoff; default N / 200 s, at least 10) or throughout (steady; default 1000).")
    var arrivalRate: Double?

    @Option(help: "Mean length of an on period (onoff; exponentially distributed, at least 1 ms).")
    var onPeriod: String = "30s"

    @Option(help: "Mean length of an idle gap (onoff; exponentially distributed, at least 1 ms).")
    var offPeriod: String = "90s"

    @Option(help: "One-shot timeouts, uniformly drawn from MIN-MAX (e.g. 1s-30s, 100ms-2s).")
    var timeouts: String = "1s-30s"

    @Option(help: "Fraction of one-shots with no timeout (0…1).")
    var noTimeoutFraction: Double = 0.05

    @Option(help: "How long the source lingers after the last request needing it (e.g. 5s).")
    var linger: String = "5s"

    @Option(help: "Seed of the workload and of the synthetic GPS.")
    var seed: UInt64 = 42

    @Option(help: "The design run beside the engine on the same workload: naive (one Task sleeping per request, a locked array scanned per fix, the source in its best mode whenever a request exists) or none. Default: naive up to 100,000 operations without --authorization, else none.")
    var baseline: String?

    @Option(name: .customLong("repeat"), help: "Runs of each design, interleaved; wall and CPU figures are their median (default 3 up to 100,000 operations, else 1).")
    var repeats: Int?

    @Option(
        help: ArgumentHelp(
            "A simulated user for the engine: comma-separated start=STATE, answer=ANSWER[@DELAY] (repeatable), at=TIME:STATE. Not with --baseline naive.",
            discussion: "STATE: authorized, reduced, not-determined, denied, restricted, disabled. ANSWER: allow-once, while-using, always, coarse (allowed with precise location off), deny, dismiss. DELAY and TIME: durations on the engine's clock, up to 24 h. Example: start=not-determined,answer=while-using@2s,at=60s:reduced,at=120s:denied"))
    var authorization: String?

    @Option(
        help: ArgumentHelp(
            "Measure concurrent submission instead of running the workload: --requests one-shots submitted by one thread, then by this many threads at once (1-64), each on a fresh engine.",
            discussion: "Reports each run's aggregate submissions and processed requests per second and checks that every request ended exactly once."))
    var submitters: Int?

    @Option(
        help: ArgumentHelp(
            "Measure geofence monitoring instead of running the workload: N fences (1-20,000) along each --geofence-shapes trajectory, a monitor per fence on the engine, and the naive design beside it.",
            discussion: "Reports missed, duplicate and false transitions against the ground truth, latency from the true crossing, and the receiver's energy against always-on and the reach oracle."))
    var geofences: Int?

    @Option(help: "With --geofences: the trajectories, comma-separated: drive, walk, commute (a car with long stops).")
    var geofenceShapes: String = "drive,walk,commute"

    @Option(help: "With --geofences: how long each trajectory runs (1m to 24h).")
    var geofenceDuration: String = "1h"

    @Option(
        help: ArgumentHelp(
            "With --geofences: the engine's GeofenceConfiguration.maximumSpeed: 'trajectory' (each trajectory's top speed), 'default' (30 m/s) or m/s.",
            discussion: "Far from every boundary the monitors let the receiver sleep until a boundary could be reached at this speed."))
    var geofenceMaxSpeed: String = "trajectory"

    @Option(help: "Write every figure as JSON to this file.")
    var json: String?

    @Option(help: "Write an HTML report to this file: the demand timeline with the oracle's and both designs' source mode, energy and on-time bars, latency histograms, the invariant summary.")
    var report: String?

    mutating func validate() throws {
        guard requests >= 1 else { throw ValidationError("--requests must be at least 1 (got \(requests))") }
        guard requests <= 20_000_000 else { throw ValidationError("--requests is capped at 20,000,000 (got \(requests))") }
        guard ClockKind(rawValue: clock) != nil else { throw ValidationError("--clock must be virtual or wall (got '\(clock)')") }
        let kind = try sourceKind()
        if kind != .synthetic && ClockKind(rawValue: clock) == .virtual {
            throw ValidationError("--source \(source.joined(separator: " ")) is a real source and runs in real time: add --clock wall")
        }
        guard Scenario.names.contains(scenario) else {
            throw ValidationError("--scenario must be one of \(Scenario.names.joined(separator: ", ")) (got '\(scenario)')")
        }
        guard fixRate.isFinite, fixRate > 0, fixRate <= 100 else { throw ValidationError("--fix-rate must be in (0, 100] (got \(fixRate))") }
        if let arrivalRate, !(arrivalRate.isFinite && arrivalRate > 0) {
            throw ValidationError("--arrival-rate must be a positive number (got \(arrivalRate))")
        }
        guard ["default", "trickle", "commute"].contains(shape) else {
            throw ValidationError("--shape must be default, trickle or commute (got '\(shape)')")
        }
        guard ReceiverPersona(name: receiver) != nil else { throw ValidationError("--receiver must be mtk, ublox or plain (got '\(receiver)')") }
        guard powerDownRule() != nil else {
            throw ValidationError("--power-down must be restart-aware, restart-aware:TRUST (TRUST in 0.5…1) or linger (got '\(powerDown)')")
        }
        if shape != "default" && arrivalOption != nil { throw ValidationError("--arrival does not apply to --shape \(shape), which sets the arrivals") }
        guard ["onoff", "steady", "burst"].contains(arrival) else { throw ValidationError("--arrival must be onoff, steady or burst (got '\(arrival)')") }
        if arrival == "burst" && arrivalRate != nil { throw ValidationError("--arrival-rate does not apply to --arrival burst") }
        if let geofences {
            guard (1...20_000).contains(geofences) else { throw ValidationError("--geofences must be within 1…20,000 (got \(geofences))") }
            guard fixRate == 1 else { throw ValidationError("--geofences runs at one fix per second: leave out --fix-rate") }
            guard clock == "virtual", submitters == nil, authorization == nil else {
                throw ValidationError("--geofences runs on the virtual clock and cannot be combined with --clock wall, --submitters or --authorization")
            }
        }
        if let submitters, !(1...64).contains(submitters) { throw ValidationError("--submitters must be within 1…64 (got \(submitters))") }
        if let repeats, !(1...20).contains(repeats) { throw ValidationError("--repeat must be within 1…20 (got \(repeats))") }
        guard (0...1).contains(noTimeoutFraction) else { throw ValidationError("--no-timeout-fraction must be within 0…1 (got \(noTimeoutFraction))") }
        if let baseline, baseline != "naive" && baseline != "none" { throw ValidationError("--baseline must be naive or none (got '\(baseline)')") }
        if baseline == "naive" && authorization != nil {
            throw ValidationError("--authorization cannot be combined with --baseline naive: the naive baseline has no authorization model")
        }
        do throws(LocbenchError) {
            _ = try Mix(parsing: mix)
            _ = try timeoutRange()
            _ = try lingerDuration()
            _ = try arrivalModel()
            if let authorization { _ = try AuthorizationScript(parsing: authorization) }
            _ = try GeofenceShape.list(parsing: geofenceShapes)
            _ = try DurationOptions.geofenceDuration(parsing: geofenceDuration)
            _ = try GeofenceSpeed(parsing: geofenceMaxSpeed)
        } catch {
            throw ValidationError(error.description.replacingOccurrences(of: "error: ", with: ""))
        }
    }

    /// The parsed `--source`.
    func sourceKind() throws -> SourceKind {
        switch source.first {
        case "synthetic" where source.count == 1:
            return .synthetic
        case "nmea" where source.count == 2:
            guard FileManager.default.isReadableFile(atPath: source[1]) else {
                throw ValidationError("--source nmea: cannot read the NMEA log '\(source[1])'")
            }
            return .nmea(path: source[1])
        case "gpsd" where source.count == 2:
            // The same HOST:PORT syntax as gpsgen's --listen, IPv6 in brackets.
            guard let address = try? ListenAddress(parsing: source[1]), address.port != 0 else {
                throw ValidationError("--source gpsd: expected HOST:PORT with a port in 1...65535, e.g. 127.0.0.1:2947 or [::1]:2947 (got '\(source[1])')")
            }
            return .gpsd(host: address.host, port: address.port)
        default:
            throw ValidationError("--source must be 'synthetic', 'nmea FILE' or 'gpsd HOST:PORT' (got '\(source.joined(separator: " "))')")
        }
    }

    /// The parsed `--timeouts`.
    func timeoutRange() throws(LocbenchError) -> ClosedRange<Duration> { try DurationOptions.timeoutRange(parsing: timeouts) }

    /// The parsed `--arrival`, `--arrival-rate`, `--on-period` and `--off-period`.
    func arrivalModel() throws(LocbenchError) -> ArrivalModel {
        switch shape {
        // One request at a time: an on period of 0.5 s (mostly one arrival) and exponential gaps of mean 3 s, about
        // the break-even of the MediaTek (2.8 s) and the u-blox (2.2 s): the adversarial case for ski rental.
        case "trickle": return .onOff(OnOffArrivals(rate: arrivalRate ?? 2, meanOn: 0.5, meanOff: 3))
        case "commute": return .commute(CommuteArrivals(rate: arrivalRate ?? 0.5))
        default: break
        }
        switch arrival {
        case "burst": return .burst
        case "steady": return .steady(rate: arrivalRate ?? 1_000)
        default:
            let periods = try DurationOptions.onOffPeriods(on: onPeriod, off: offPeriod)
            return .onOff(OnOffArrivals(rate: arrivalRate ?? max(10, Double(requests) / 200), meanOn: periods.on, meanOff: periods.off))
        }
    }

    /// The parsed `--power-down`.
    func powerDownRule() -> PowerDownRule? {
        if powerDown == "linger" { return .fixedLinger }
        if powerDown == "restart-aware" { return .restartAware }
        let parts = powerDown.split(separator: ":")
        guard parts.count == 2, parts[0] == "restart-aware", let trust = Double(parts[1]), (0.5...1).contains(trust) else { return nil }
        return .restartAware(trust: trust)
    }

    /// Whether the naive design runs beside the engine: asked for, or by default up to 100,000 operations.
    var runsBaseline: Bool { baseline.map { $0 == "naive" } ?? (requests <= 100_000 && authorization == nil) }

    /// The parsed `--linger`.
    func lingerDuration() throws(LocbenchError) -> Duration { try DurationOptions.linger(parsing: linger) }

    func run() async throws {
        if let geofences {
            try await runGeofences(count: geofences)
            return
        }
        if let submitters {
            let results = await ConcurrentSubmission(requests: requests, threads: submitters).run()
            print(ConcurrentSubmission.render(results))
            if let failed = results.first(where: { $0.endedOtherThanOnce > 0 }) {
                throw LocbenchError.invariantViolated("\(failed.endedOtherThanOnce) requests did not end exactly once with \(failed.threads) submitters")
            }
            return
        }
        let processStart = ContinuousClock.now
        let settings = WorkloadSettings(
            operations: requests, mix: try Mix(parsing: mix), arrival: try arrivalModel(),
            timeoutRange: try timeoutRange(), noTimeoutFraction: noTimeoutFraction, seed: seed)
        let plan = WorkloadPlan(settings)
        let lingerDuration = try lingerDuration()
        var scenario = try Scenario.named(self.scenario, seed: seed)
        scenario.fixInterval = 1 / fixRate
        let progress = ProcessStats.stderrIsTerminal && json == nil ? Progress() : nil
        let authorizationScript = try authorization.map { text throws(LocbenchError) in try AuthorizationScript(parsing: text) }
        var runner = Runner(plan: plan, linger: lingerDuration, progress: progress)
        if let authorizationScript { runner.initialAuthorization = authorizationScript.script.initial }
        let clockKind = ClockKind(rawValue: clock)!

        let sourceKind = try sourceKind()
        let persona = ReceiverPersona(name: receiver)!
        let powerDownRule = powerDownRule()!
        // The designs run interleaved (engine, naive, engine, …) so that a noisy machine slows both alike.
        let rounds = repeats ?? (requests <= 100_000 ? 3 : 1)
        var engineRuns: [RunMeasurements] = []
        var baselineRuns: [RunMeasurements] = []
        for round in 1...rounds {
            let label = rounds > 1 ? " \(round)/\(rounds)" : ""
            engineRuns.append(
                await Self.run(
                    design: "engine", label: "engine" + label, runner: runner, clockKind: clockKind, source: sourceKind, scenario: scenario,
                    linger: lingerDuration, authorization: authorizationScript, persona: persona, powerDown: powerDownRule))
            if runsBaseline {
                baselineRuns.append(
                    await Self.run(
                        design: "naive", label: "naive" + label, runner: runner, clockKind: clockKind, source: sourceKind, scenario: scenario,
                        linger: lingerDuration, authorization: nil, persona: persona, powerDown: powerDownRule))
            }
        }
        let engineRun = engineRuns[0]
        // Stop-immediately metered like the engine: the engine as INTULocationManager (off the moment no request
        // waits, in the demanded mode) on the same workload and receiver, so that both pay a restart alike.
        var stopImmediatelyRun: RunMeasurements?
        if clockKind == .virtual, sourceKind == .synthetic, persona.powerProfile != nil {
            stopImmediatelyRun = await Self.run(
                design: "engine", label: "stop-immediately", runner: runner, clockKind: clockKind, source: sourceKind, scenario: scenario,
                linger: .zero, authorization: authorizationScript, persona: persona, powerDown: .fixedLinger)
        }

        var report = Report(
            command: CommandLine.arguments.joined(separator: " "), clock: clock, arrival: arrivalDescription,
            scenario: sourceKind == .synthetic ? self.scenario : source.joined(separator: " "), seed: seed,
            requests: plan.requestCount, operations: plan.operations.count, peakRSSBytes: ProcessStats.peakRSS(),
            processWallSeconds: Double(processStart.duration(to: .now).saturatingNanoseconds) / 1e9,
            authorization: authorization,
            power: Report.power(engine: engineRun, naive: baselineRuns.first, linger: lingerDuration),
            receiver: Report.receiverPower(
                engine: engineRun, naive: baselineRuns.first, stopImmediately: stopImmediatelyRun, shape: shape,
                persona: sourceKind == .synthetic ? persona : nil, powerDown: powerDownRule, firstStart: scenario.startCondition),
            engine: Report.design(engineRuns),
            baseline: baselineRuns.isEmpty ? nil : Report.design(baselineRuns))
        report.adoptMeteredEnergy()
        print(TableReport.render(report))
        if let json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            try write(try encoder.encode(report), to: json)
        }
        if let path = self.report {
            try write(Data(HTMLReport.render(report, engine: engineRun, naive: baselineRuns.first).utf8), to: path)
        }
        if let violated = (engineRuns + [stopImmediatelyRun].compactMap { $0 }).first(where: { $0.violationCount > 0 }) {
            throw LocbenchError.invariantViolated(violated.violations.joined(separator: "\n"))
        }
    }

    /// The arrival model as the report names it.
    var arrivalDescription: String {
        guard let model = try? arrivalModel() else { return arrival }
        switch model {
        case .burst: return "all-at-once"
        case .steady(let rate): return "steady \(rate.formatted())/s"
        case .onOff(let process) where shape == "trickle":
            return "trickle (\(process.rate.formatted())/s while on, on 0.5 s / off 3 s mean)"
        case .onOff(let process):
            return "on/off Poisson (\(process.rate.formatted())/s while on, on \(onPeriod) / off \(offPeriod) mean)"
        case .commute(let process):
            return "commute (\(process.rate.formatted())/s in windows at 07:30, 08:40, 12:15, 17:30, 21:00)"
        }
    }

    static func run(
        design: String, label: String, runner: Runner, clockKind: ClockKind, source sourceKind: SourceKind, scenario: Scenario, linger: Duration,
        authorization: AuthorizationScript?, persona: ReceiverPersona, powerDown: PowerDownRule
    ) async -> RunMeasurements {
        // The synthetic receiver loses its fix now and then (a transient error the engine logs at notice): not news here.
        var logger = Logger(label: "LocationEngine")
        logger.logLevel = .warning
        /// The engine's configuration: with a script, a simulated user whose changes the ledger follows.
        func configuration(_ recording: RecordingSource) -> LocationEngineConfiguration {
            var configuration = LocationEngineConfiguration(linger: linger)
            if let authorization {
                let ledger = recording.ledger
                configuration = .init(
                    linger: linger, authorizationProvider: SimulatedAuthorizationProvider(authorization.script),
                    usage: UsageDeclarations(whenInUse: "locbench"),
                    onAuthorizationChange: { ledger.authorizationChanged($0) })
            }
            configuration.powerDown = powerDown
            return configuration
        }
        switch clockKind {
        case .virtual:
            let clock = ManualClock()
            let source = SyntheticLocationSource(scenario: scenario, drive: .manual, persona: persona)
            let offset: @Sendable (ManualClock.Instant) -> Int64 = { $0.offset.saturatingNanoseconds }
            return await runner.runVirtual(
                design: design, label: label,
                makeService: { clock, recording -> any LocationService in
                    if design == "engine" {
                        EngineService(
                            running: LocationEngine(source: recording, clock: clock, configuration: configuration(recording), logger: logger),
                            offset: offset)
                    } else {
                        NaiveLocationManager(source: recording, clock: clock)
                    }
                },
                source: source, clock: clock)
        case .wall:
            let start = ContinuousClock.now
            let source: any LocationSource =
                switch sourceKind {
                case .synthetic: SyntheticLocationSource(scenario: scenario, drive: .realTime, persona: persona)
                case .nmea(let path): NMEAStreamSource(.file(path: path, pacing: .recorded()))
                case .gpsd(let host, let port): GPSDLocationSource(configuration: GPSDConfiguration(host: host, port: port))
                }
            let offset: @Sendable (ContinuousClock.Instant) -> Int64 = { start.duration(to: $0).saturatingNanoseconds }
            return await runner.runWall(
                design: design, label: label,
                makeService: { recording -> any LocationService in
                    if design == "engine" {
                        EngineService(running: LocationEngine(source: recording, configuration: configuration(recording), logger: logger), offset: offset)
                    } else {
                        NaiveLocationManager(source: recording, clock: ContinuousClock())
                    }
                },
                source: source, start: start)
        }
    }

    func write(_ data: Data, to path: String) throws {
        do {
            try data.write(to: URL(fileURLWithPath: path))
        } catch {
            throw LocbenchError.io("cannot write \(path): \(error.localizedDescription)")
        }
    }
}

/// The source a run drives.
enum SourceKind: Equatable {
    case synthetic
    case nmea(path: String)
    case gpsd(host: String, port: Int)
}

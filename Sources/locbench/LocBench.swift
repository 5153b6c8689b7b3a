import ArgumentParser
import Foundation
import LocationEngine
import LocationEngineTestKit
import LocationSources
import SyntheticGPS

/// `locbench`: drives the engine with N requests from a deterministic workload over the synthetic GPS,
/// checks every invariant, and reports what it measured (issue #4).
@main
struct LocBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "locbench",
        abstract: "Load-test the LocationEngine scheduler: N requests over one synthetic GPS, invariants checked.",
        discussion: """
            Exits non-zero, printing the offending request's history, if any request ended more than once, \
            never ended without being cancelled, was delivered after a cancel, got a fix its accuracy or \
            filters reject, timed out early or despite a satisfying fix, or if the source was on at the end.
            """)

    @Option(parsing: .unconditional, help: "Number of operations (requests, cancels and force-completes, per --mix).")
    var requests: Int = 10_000

    @Option(help: "virtual (as fast as possible, exact) or wall (real time and timers).")
    var clock: String = "virtual"

    @Option(
        parsing: .upToNextOption,
        help: "The location source: synthetic (built in), nmea FILE (a recorded NMEA log, replayed in real time), or gpsd HOST:PORT. Real sources need --clock wall.")
    var source: [String] = ["synthetic"]

    @Option(help: "Synthetic scenario: \(Scenario.names.joined(separator: ", ")).")
    var scenario: String = "drive"

    @Option(help: "Synthetic fixes per second.")
    var fixRate: Double = 1

    @Option(help: "Operation mix as name=weight: oneshot, subscription, cancel, force.")
    var mix: String = Mix.standard.description

    @Option(help: "Operations arriving per second; omit to submit everything at once.")
    var arrivalRate: Double?

    @Option(help: "One-shot timeouts, uniformly drawn from MIN-MAX (e.g. 1s-30s, 100ms-2s).")
    var timeouts: String = "1s-30s"

    @Option(help: "Fraction of one-shots with no timeout (0…1).")
    var noTimeoutFraction: Double = 0.05

    @Option(help: "How long the source lingers after the last request needing it (e.g. 5s).")
    var linger: String = "5s"

    @Option(help: "Seed of the workload and of the synthetic GPS.")
    var seed: UInt64 = 42

    @Option(help: "Also run the same workload on a baseline design and print ratios: naive.")
    var baseline: String?

    @Option(
        help: ArgumentHelp(
            "A simulated user for the engine: comma-separated start=STATE, answer=ANSWER[@DELAY], at=TIME:STATE.",
            discussion: "STATE: authorized, reduced, not-determined, denied, restricted, disabled. ANSWER: allow-once, while-using, always, coarse, deny, dismiss. Example: start=not-determined,answer=while-using@2s,at=60s:reduced,at=120s:denied"))
    var authorization: String?

    @Option(help: "Write the report as JSON to this file.")
    var json: String?

    @Option(help: "Write an HTML report (latency histogram, pending/power timeline) to this file.")
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
        guard (0...1).contains(noTimeoutFraction) else { throw ValidationError("--no-timeout-fraction must be within 0…1 (got \(noTimeoutFraction))") }
        if let baseline, baseline != "naive" { throw ValidationError("--baseline must be naive (got '\(baseline)')") }
        if baseline != nil && authorization != nil {
            throw ValidationError("--authorization cannot be combined with --baseline: the naive baseline has no authorization model")
        }
        do throws(LocbenchError) {
            _ = try Mix(parsing: mix)
            _ = try timeoutRange()
            _ = try lingerDuration()
            if let authorization { _ = try AuthorizationScript(parsing: authorization) }
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

    func timeoutRange() throws(LocbenchError) -> ClosedRange<Duration> {
        let parts = timeouts.split(separator: "-", maxSplits: 1).map(String.init)
        guard parts.count == 2, let low = try? DurationText.seconds(parsing: parts[0]), let high = try? DurationText.seconds(parsing: parts[1]),
            low > 0, high >= low, high <= 86_400
        else {
            throw .badArgument("--timeouts must be MIN-MAX with 0 < MIN <= MAX <= 24h, e.g. 1s-30s (got '\(timeouts)')")
        }
        return .seconds(low)...(.seconds(high))
    }

    func lingerDuration() throws(LocbenchError) -> Duration {
        guard let seconds = try? DurationText.seconds(parsing: linger), seconds >= 0, seconds <= 3600 else {
            throw .badArgument("--linger must be a duration from 0s to 1h, e.g. 5s (got '\(linger)')")
        }
        return .seconds(seconds)
    }

    func run() async throws {
        let processStart = ContinuousClock.now
        let settings = WorkloadSettings(
            operations: requests, mix: try Mix(parsing: mix), arrivalRate: arrivalRate,
            timeoutRange: try timeoutRange(), noTimeoutFraction: noTimeoutFraction, seed: seed)
        let plan = WorkloadPlan(settings)
        let lingerDuration = try lingerDuration()
        var scenario = try Scenario.named(self.scenario, seed: seed)
        scenario.fixInterval = 1 / fixRate
        let progress = ProcessStats.stderrIsTerminal ? Progress() : nil
        let authorizationScript = try authorization.map { text throws(LocbenchError) in try AuthorizationScript(parsing: text) }
        var runner = Runner(plan: plan, linger: lingerDuration, progress: progress)
        if let authorizationScript { runner.initialAuthorization = authorizationScript.script.initial }
        let clockKind = ClockKind(rawValue: clock)!

        let sourceKind = try sourceKind()
        let engineRun = await Self.run(
            design: "engine", runner: runner, clockKind: clockKind, source: sourceKind, scenario: scenario, linger: lingerDuration,
            authorization: authorizationScript)
        let baselineRun: RunMeasurements? =
            baseline == nil
            ? nil
            : await Self.run(
                design: "naive", runner: runner, clockKind: clockKind, source: sourceKind, scenario: scenario, linger: lingerDuration,
                authorization: nil)

        let report = Report(
            command: CommandLine.arguments.joined(separator: " "), clock: clock,
            scenario: sourceKind == .synthetic ? self.scenario : source.joined(separator: " "), seed: seed,
            requests: plan.requestCount, operations: plan.operations.count, peakRSSBytes: ProcessStats.peakRSS(),
            processWallSeconds: Double(processStart.duration(to: .now).saturatingNanoseconds) / 1e9,
            authorization: authorization,
            engine: Report.design(engineRun), baseline: baselineRun.map(Report.design))
        print(TableReport.render(report))
        if let json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            try write(try encoder.encode(report), to: json)
        }
        if let path = self.report {
            try write(Data(HTMLReport.render(report, engine: engineRun).utf8), to: path)
        }
        if engineRun.violationCount > 0 {
            throw LocbenchError.invariantViolated(engineRun.violations.joined(separator: "\n"))
        }
    }

    static func run(
        design: String, runner: Runner, clockKind: ClockKind, source sourceKind: SourceKind, scenario: Scenario, linger: Duration,
        authorization: AuthorizationScript?
    ) async -> RunMeasurements {
        /// The engine's configuration: with a script, a simulated user whose changes the ledger follows.
        func configuration(_ recording: RecordingSource) -> LocationEngineConfiguration {
            guard let authorization else { return .init(linger: linger) }
            let ledger = recording.ledger
            return .init(
                linger: linger, authorizationProvider: SimulatedAuthorizationProvider(authorization.script),
                usage: UsageDeclarations(whenInUse: "locbench"),
                onAuthorizationChange: { ledger.authorizationChanged($0) })
        }
        switch clockKind {
        case .virtual:
            let clock = ManualClock()
            let source = SyntheticLocationSource(scenario: scenario, drive: .manual)
            let offset: @Sendable (ManualClock.Instant) -> Int64 = { $0.offset.saturatingNanoseconds }
            return await runner.runVirtual(
                design: design,
                makeService: { clock, recording -> any LocationService in
                    if design == "engine" {
                        EngineService(engine: LocationEngine(source: recording, clock: clock, configuration: configuration(recording)), offset: offset)
                    } else {
                        NaiveLocationManager(source: recording, clock: clock)
                    }
                },
                source: source, clock: clock)
        case .wall:
            let start = ContinuousClock.now
            let source: any LocationSource =
                switch sourceKind {
                case .synthetic: SyntheticLocationSource(scenario: scenario, drive: .realTime)
                case .nmea(let path): NMEAStreamSource(.file(path: path, pacing: .recorded()))
                case .gpsd(let host, let port): GPSDLocationSource(configuration: GPSDConfiguration(host: host, port: port))
                }
            let offset: @Sendable (ContinuousClock.Instant) -> Int64 = { start.duration(to: $0).saturatingNanoseconds }
            return await runner.runWall(
                design: design,
                makeService: { recording -> any LocationService in
                    if design == "engine" {
                        EngineService(engine: LocationEngine(source: recording, configuration: configuration(recording)), offset: offset)
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

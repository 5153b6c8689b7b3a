import ArgumentParser
import Foundation
@_spi(Internals) import LocationEngine
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
        discussion: LocbenchManual.summary)

    @Option(parsing: .unconditional, help: "Number of operations: one-shots, subscriptions, cancels and force-completes, drawn per --mix (at most 20,000,000).")
    var requests: Int = 10_000

    @Option(help: "virtual (a manual clock jumping from event to event: as fast as possible, exact) or wall (real time and timers, for real latencies).")
    var clock: String = "virtual"

    @Option(
        parsing: .upToNextOption,
        help: "The location source: synthetic (built in), nmea FILE (a recorded NMEA log, replayed in real time), gpsd HOST:PORT, or geoclue [DESKTOP_ID] (GeoClue2 on the system bus, or the bus DBUS_SYSTEM_BUS_ADDRESS names). Real sources need --clock wall.")
    var source: [String] = ["synthetic"]

    @Option(help: "Synthetic scenario: \(Scenario.names.joined(separator: ", ")); tunnel is a drive with a 60 s outage every 5 minutes.")
    var scenario: String = "drive"

    @Option(parsing: .unconditional, help: "Synthetic fixes per second in the finest modes (0.001 to 100).")
    var fixRate: Double = 1

    @Option(name: .customLong("mix"), help: "Operation weights as comma-separated name=weight: oneshot, subscription, cancel, force (default \(Mix.standard.description); oneshot=1 for --shape trickle).")
    var mixOption: String?

    /// The mix, after the shape's default.
    var mix: String { mixOption ?? (shape == "trickle" ? "oneshot=1" : Mix.standard.description) }

    @Option(help: "The workload's shape: default (on/off arrivals per --arrival), trickle (one request at a time, gaps of 3 s mean) or commute (a day of commuting: windows at fixed times of day, hours between them).")
    var shape: String = "default"

    @Option(help: "The synthetic receiver whose current is metered and whose power profile the engine follows: mtk (MediaTek MT3339), ublox (u-blox SAM-M8Q) or plain (takes no command: the engine's fixed linger).")
    var receiver: String = "mtk"

    @Option(help: "The synthetic receiver misbehaves as hardware does: refuses-power-down (keeps tracking), refuses-power-save (keeps continuous tracking when a duty-cycled mode is asked), answers-late (confirms every command 2 s late) or loses-waking-bytes (is set up 1 s late after each wake). The engine's energy figure must still match its meter; with a fault that leaves the receiver controllable (the last two) the engine must stay within 1.1× the restart-aware oracle.")
    var receiverFault: String?

    @Option(help: "How the engine powers the source down: restart-aware (the break-even of a restart, adjusted by recent gaps trusted 0.75), restart-aware:TRUST (0.5…1; 1 is the plain break-even) or linger (the fixed --linger, the override).")
    var powerDown: String = "restart-aware"

    @Option(
        name: .customLong("arrival"),
        help: "When operations arrive: onoff (bursts and idle gaps; the default on the virtual clock), steady (--arrival-rate per second) or burst (all at once; the default on the wall clock, where an on/off run would last about 20 minutes).")
    var arrivalOption: String?

    /// The arrival model's name, after defaults.
    var arrival: String { arrivalOption ?? (clock == "wall" ? "burst" : "onoff") }

    @Option(parsing: .unconditional, help: "Operations per second: while on (onoff; default N / 200 s, at least 10) or throughout (steady; default 1000). Refused when the run would take more than about 230 days of virtual time (less above one fix a second), an hour on the wall clock, or 100 million on periods to draw.")
    var arrivalRate: Double?

    @Option(parsing: .unconditional, help: "Mean length of an on period (onoff; exponentially distributed, at least 1 ms).")
    var onPeriod: String = "30s"

    @Option(parsing: .unconditional, help: "Mean length of an idle gap (onoff; exponentially distributed, at least 1 ms).")
    var offPeriod: String = "90s"

    @Option(parsing: .unconditional, help: "One-shot timeouts, uniformly drawn from MIN-MAX (e.g. 1s-30s, 100ms-2s).")
    var timeouts: String = "1s-30s"

    @Option(parsing: .unconditional, help: "Fraction of one-shots with no timeout (0…1).")
    var noTimeoutFraction: Double = 0.05

    @Option(parsing: .unconditional, help: "How long the source lingers after the last request needing it (e.g. 5s).")
    var linger: String = "5s"

    @Option(parsing: .unconditional, help: "Seed of the workload and of the synthetic GPS.")
    var seed: UInt64 = 42

    @Option(help: "The design run beside the engine on the same workload: naive (one Task sleeping per request, a locked array scanned per fix, the source in its best mode whenever a request exists) or none. Default: naive up to 100,000 operations without --authorization, else none.")
    var baseline: String?

    @Flag(
        help: "With --clock wall: keep a bare thread sleeping to deadlines 1 ms apart through the runs and print how late it woke, the operating system's floor under the timeout lateness (its wake-ups cost CPU time, counted in the runs' figures).")
    var timerFloor = false

    @Option(name: .customLong("repeat"), parsing: .unconditional, help: "Runs of each design, interleaved; wall and CPU figures are their median (default 3 up to 100,000 operations, else 1).")
    var repeats: Int?

    @Option(
        help: ArgumentHelp(
            "A simulated user for the engine: comma-separated start=STATE, answer=ANSWER[@DELAY] (repeatable), at=TIME:STATE. Not with --baseline naive.",
            discussion: "STATE: authorized, reduced, not-determined, denied, restricted, disabled. ANSWER: allow-once, while-using, always, coarse (allowed with precise location off), deny, dismiss. DELAY and TIME: durations on the engine's clock, up to 24 h. Example: start=not-determined,answer=while-using@2s,at=60s:reduced,at=120s:denied"))
    var authorization: String?

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Measure concurrent submission instead of running the workload: --requests one-shots submitted by one thread, then by this many threads at once (1-64), each on a fresh engine.",
            discussion: "Reports each run's aggregate submissions and processed requests per second and checks that every request ended exactly once."))
    var submitters: Int?

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Measure geofence monitoring instead of running the workload: N fences (1-20,000) along each --geofence-shapes trajectory, a monitor per fence on the engine, and the naive design beside it.",
            discussion: "Reports missed, duplicate and false transitions against the ground truth, latency from the true crossing, and the receiver's energy against always-on and the reach oracle."))
    var geofences: Int?

    @Option(help: "With --geofences: the trajectories, comma-separated: drive, walk, commute (a car with long stops).")
    var geofenceShapes: String = "drive,walk,commute"

    @Option(parsing: .unconditional, help: "With --geofences: how long each trajectory runs (1m to 24h).")
    var geofenceDuration: String = "1h"

    @Option(
        help: ArgumentHelp(
            "With --geofences: the engine's GeofenceConfiguration.maximumSpeed: 'trajectory' (each trajectory's top speed), 'default' (30 m/s) or m/s.",
            discussion: "The monitors let the receiver sleep until a region could be decided at this speed."))
    var geofenceMaxSpeed: String = "trajectory"

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "With --geofences: every monitor's GeofenceOptions.responsiveness, the latency budget the engine may spend to save energy (0 to 5m).",
            discussion: "0, the engine's default, decides as soon as the fixes allow."))
    var geofenceResponsiveness: String = "0s"

    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "With --geofences: how much of the receiver's position and velocity error its fixes carry, 0 to 1.",
            discussion: "0 puts every fix on the truth (the reported accuracy and everything else stay the receiver's): what the noise alone costs each design."))
    var geofenceFixError: Double = 1

    @Flag(
        help: ArgumentHelp(
            "With --geofences: sweep the engine's responsiveness (0 s to 5 min) and fixed-interval polling designs (a fix every 1 s to 5 min, standby between) on each trajectory.",
            discussion: "Prints energy against latency p99 from the decidable instant and missed transitions, the Pareto front of the three marked; --report plots it."))
    var geofenceCurve = false

    @Flag(
        help: ArgumentHelp(
            "Run the several-sources workload instead: mostly coarse requests on the metered synthetic GNSS with a coarse source beside it, against the GNSS alone, then indoors (no GNSS fix for 10 minutes) and with the GNSS failing mid-run.",
            discussion: "Uses --requests, --scenario, --fix-rate, --receiver (mtk or ublox) and --seed."))
    var severalSources = false

    @Option(help: "Write every figure as JSON to this file.")
    var json: String?

    @Option(help: "Write an HTML report to this file: the demand timeline with the oracle's and both designs' source mode, energy and on-time bars, latency histograms, the invariant summary.")
    var report: String?

    @Flag(help: "Print the manual — what a run does, what it prints and what it checks — and exit.")
    var manual = false

    func run() async throws {
        if manual {
            print(LocbenchManual.text)
            return
        }
        if let geofences {
            try await runGeofences(count: geofences)
            return
        }
        if severalSources {
            try await runSeveralSources()
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
        let fault = receiverFault.flatMap(ReceiverFault.init(rawValue:))
        let powerDownRule = powerDownRule()!
        // On the wall clock, if asked, a bare thread sleeping to deadlines through the runs: the floor under the lateness.
        let floor = timerFloor && clockKind == .wall && TimerFloor.isAvailable ? TimerFloor() : nil
        // The designs run interleaved (engine, naive, engine, …) so that a noisy machine slows both alike.
        let rounds = repeats ?? (requests <= 100_000 ? 3 : 1)
        var engineRuns: [RunMeasurements] = []
        var baselineRuns: [RunMeasurements] = []
        for round in 1...rounds {
            let label = rounds > 1 ? " \(round)/\(rounds)" : ""
            engineRuns.append(
                await Self.run(
                    design: "engine", label: "engine" + label, runner: runner, clockKind: clockKind, source: sourceKind, scenario: scenario,
                    linger: lingerDuration, authorization: authorizationScript, persona: persona, powerDown: powerDownRule, fault: fault))
            if runsBaseline {
                baselineRuns.append(
                    await Self.run(
                        design: "naive", label: "naive" + label, runner: runner, clockKind: clockKind, source: sourceKind, scenario: scenario,
                        linger: lingerDuration, authorization: nil, persona: persona, powerDown: powerDownRule, fault: fault))
            }
        }
        let floorMeasured = await floor?.stop()
        let engineRun = engineRuns[0]
        // Stop-immediately metered like the engine: the engine as INTULocationManager (off the moment no request
        // waits, in the demanded mode) on the same workload and receiver, so that both pay a restart alike.
        var stopImmediatelyRun: RunMeasurements?
        if runsStopImmediately, clockKind == .virtual, sourceKind == .synthetic, persona.powerProfile != nil {
            stopImmediatelyRun = await Self.run(
                design: "engine", label: "stop-immediately", runner: runner, clockKind: clockKind, source: sourceKind, scenario: scenario,
                linger: .zero, authorization: authorizationScript, persona: persona, powerDown: .fixedLinger,
                fault: fault)
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
                persona: sourceKind == .synthetic ? persona : nil, powerDown: powerDownRule, firstStart: scenario.startCondition,
                fault: fault),
            engine: Report.design(engineRuns),
            baseline: baselineRuns.isEmpty ? nil : Report.design(baselineRuns))
        report.timerFloor = floorMeasured
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
        // A fault that leaves the receiver controllable only delays what the engine asks: the engine must still
        // come within 1.1× the restart-aware oracle (which pays no fault).
        if let receiver = report.receiver, receiver.faultLeavesReceiverControllable == true, receiver.engineVsOracle > 1.1 {
            throw LocbenchError.invariantViolated(
                String(format: "with a receiver that %@ the engine spent %.2f× the restart-aware oracle (goal ≤ 1.1×)", fault!.rawValue, receiver.engineVsOracle))
        }
    }
}

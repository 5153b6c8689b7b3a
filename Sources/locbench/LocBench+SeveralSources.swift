import Foundation
import LocationEngine
import LocbenchModel
import SyntheticGPS

extension LocBench {
    /// `--several-sources`: the mostly-coarse workload (``SeveralSourcesRun``) on the metered synthetic GNSS
    /// with a coarse source beside it and on the GNSS alone, then indoors (no GNSS fix for 10 minutes) and with
    /// the GNSS failing mid-run; prints the table and fails when an invariant broke or a goal was missed.
    func runSeveralSources() async throws {
        var scenario = try Scenario.named(self.scenario, seed: seed)
        scenario.fixInterval = 1 / fixRate
        let persona = ReceiverPersona(name: receiver)!
        guard persona.powerProfile != nil else { throw LocbenchError.badArgument("--several-sources meters the GNSS: give --receiver mtk or ublox") }
        let base = SeveralSourcesRun.Settings(requests: requests, seed: seed, scenario: scenario, persona: persona, withCoarse: true)
        var alone = base
        alone.withCoarse = false
        var indoors = base
        indoors.scenario.outages.windows.append(Outage(start: 120, duration: 600))
        var failing = base
        let lastArrival = Double(SeveralSourcesRun.plan(base).last?.at ?? 0) / 1e9
        failing.gnssFailsAt = lastArrival / 3
        let runs = [
            ("GNSS + coarse", await SeveralSourcesRun.run(base)), ("GNSS alone", await SeveralSourcesRun.run(alone)),
            ("indoors 10 min, + coarse", await SeveralSourcesRun.run(indoors)),
            (String(format: "GNSS fails after %.0f s, + coarse", failing.gnssFailsAt!), await SeveralSourcesRun.run(failing)),
        ]
        func joules(_ value: Double?) -> String { value.map { String(format: "%.1f J", $0) } ?? "-" }
        var lines = [
            "several sources: \(requests) requests (90 % city, neighbourhood or significant change; 10 % house or room), on/off arrivals, "
                + "\(receiver) GNSS metered, a coarse source (reach 1 km, a fix every 5 s) beside it",
            "",
            "run                               GNSS metered   engine's figure   oracle      ×oracle   GNSS starts   for coarse   coarse starts   precise timed out (with a fix)   outcomes",
        ]
        for (index, (name, run)) in runs.enumerated() {
            // After the GNSS failed, what waited for it is no need it could have met: no oracle for that run.
            let oracle = index == 3 ? nil : run.oracleJoules
            let outcomes = run.outcomes.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
            lines.append(
                name.padding(toLength: 34, withPad: " ", startingAt: 0)
                    + joules(run.meteredJoules).padding(toLength: 15, withPad: " ", startingAt: 0)
                    + joules(run.engineJoules).padding(toLength: 18, withPad: " ", startingAt: 0)
                    + joules(oracle).padding(toLength: 12, withPad: " ", startingAt: 0)
                    + (oracle.map { String(format: "%.2f", run.meteredJoules / max($0, 1e-9)) } ?? "-").padding(toLength: 10, withPad: " ", startingAt: 0)
                    + "\(run.gnssStarts)".padding(toLength: 14, withPad: " ", startingAt: 0)
                    + "\(run.gnssRunsForCoarse)".padding(toLength: 13, withPad: " ", startingAt: 0)
                    + "\(run.coarseStarts)".padding(toLength: 16, withPad: " ", startingAt: 0)
                    + "\(run.preciseTimedOut) (\(run.preciseTimedOutWithFix))".padding(toLength: 33, withPad: " ", startingAt: 0) + outcomes)
        }
        lines.append("")
        lines.append("time to answer, one-shots that waited for a fix, p50/p99 (virtual timeline)")
        for (name, run) in runs {
            let levels = run.timeToAnswer.map { "\($0.level) \(TableReport.micro($0.summary.p50))/\(TableReport.micro($0.summary.p99))" }
            lines.append("  " + name.padding(toLength: 32, withPad: " ", startingAt: 0) + levels.joined(separator: ", "))
        }
        let withCoarse = runs[0].1
        let gnssAlone = runs[1].1
        lines.append("")
        lines.append(
            String(
                format: "GNSS energy with the coarse source beside it: %.2f× the GNSS alone's, %.2f× the oracle that runs the GNSS exactly while a request the coarse source cannot serve waits; GNSS runs for requests the coarse source serves: %d",
                withCoarse.meteredJoules / max(gnssAlone.meteredJoules, 1e-9), withCoarse.meteredJoules / max(withCoarse.oracleJoules, 1e-9),
                withCoarse.gnssRunsForCoarse))
        print(lines.joined(separator: "\n"))
        var violations = runs.flatMap { name, run in run.violations.map { "\(name): \($0)" } }
        if withCoarse.meteredJoules > 1.1 * withCoarse.oracleJoules {
            violations.append(String(format: "the GNSS beside the coarse source spent %.2f× the oracle (goal ≤ 1.1×)", withCoarse.meteredJoules / withCoarse.oracleJoules))
        }
        let indoor = runs[2].1
        if indoor.preciseTimedOutWithFix != indoor.preciseTimedOut {
            violations.append("indoors, \(indoor.preciseTimedOut - indoor.preciseTimedOutWithFix) precise one-shots timed out with no fix")
        }
        if indoor.outcomes["failed", default: 0] > 0 { violations.append("indoors, \(indoor.outcomes["failed"]!) requests failed") }
        if !violations.isEmpty { throw LocbenchError.invariantViolated(violations.prefix(20).joined(separator: "\n")) }
    }
}

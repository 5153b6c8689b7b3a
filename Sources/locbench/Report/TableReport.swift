import Foundation
import LocationEngine
import LocbenchModel

/// The human-readable report printed by default: the power headline, then the designs side by side.
enum TableReport {
    static func render(_ report: Report) -> String {
        var lines: [String] = []
        let designs = [report.engine] + (report.baseline.map { [$0] } ?? [])
        let virtual = report.clock == "virtual"
        lines.append(
            "locbench — \(report.requests.formatted()) requests (\(report.operations.formatted()) operations), \(report.arrival) arrivals, \(report.clock) clock, scenario \(report.scenario), seed \(report.seed)")
        if let authorization = report.authorization { lines.append("authorization script: \(authorization)") }
        lines.append("")
        lines.append(contentsOf: powerLines(report))
        if let receiver = report.receiver {
            lines.append("")
            lines.append(contentsOf: receiverLines(receiver))
        }
        lines.append("")
        var rows: [(String, [String])] = []
        func row(_ name: String, _ value: (Report.Design) -> String) { rows.append((name, designs.map(value))) }
        row("source on-time") { String(format: "%.1f s (×%.2f oracle)", $0.sourceOnSeconds, ratio($0.sourceOnSeconds, report.power.oracleOnSeconds)) }
        row(report.receiver == nil ? "energy (model)" : "energy (metered)") { String(format: "%.1f J (%.1f %% of always-on)", $0.energyJoules, 100 * ratio($0.energyJoules, $0.alwaysOnEnergyJoules)) }
        if report.receiver != nil, designs.contains(where: { $0.ownEnergyJoules != nil }) {
            row("energy, the engine's own figure") { design in
                design.ownEnergyJoules.map { String(format: "%.1f J (%+.2f %% vs the meter)", $0, 100 * ratio($0 - design.energyJoules, design.energyJoules)) } ?? "—"
            }
        }
        row("source starts/stops/mode changes") { "\($0.sourceStarts)/\($0.sourceStops)/\($0.sourceModeChanges)" }
        row("time in lowest/low/medium/high/best") { modes($0.secondsInMode) }
        let runs = report.engine.runs
        row(runs > 1 ? "wall time (median of \(runs), min–max)" : "wall time") { spread($0.wallSeconds, $0.wallSecondsMinMax, runs) }
        row(runs > 1 ? "CPU time (median of \(runs), min–max)" : "CPU time") { spread($0.cpuSeconds, $0.cpuSecondsMinMax, runs) }
        row("processing time per operation (CPU)") { String(format: "%.2f µs", $0.cpuMicrosecondsPerOperation) }
        row("context switches per 1,000 operations") {
            String(format: "%.1f voluntary, %.1f involuntary", $0.voluntaryContextSwitchesPerThousandOperations, $0.involuntaryContextSwitchesPerThousandOperations)
        }
        row("engine loop wake-ups per 1,000 operations") {
            $0.loopWakeupsPerThousandOperations.map { String(format: "%.1f", $0) } ?? "—"
        }
        row("timeline covered") { String(format: "%.1f s", $0.timelineSeconds) }
        row("submit throughput (caller's side)") { "\(Int($0.submitThroughputPerSecond).formatted()) ops/s" }
        row("max pending") { "\($0.maxPending.formatted())" }
        row("heap above baseline at peak pending") { "\(($0.heapBytesAtPeakPending / 1024).formatted()) KiB" }
        row("heap per pending request") {
            $0.maxPending >= Report.minimumPendingForHeapFigure
                ? "\(Int($0.heapBytesPerPendingRequest.rounded())) B" : "— (< \(Report.minimumPendingForHeapFigure.formatted()) pending)"
        }
        var outcomes = ["succeeded", "timedOut", "forceCompleted", "cancelled", "failed", "ended"]
        if report.authorization != nil { outcomes.insert(contentsOf: ["unauthorized", "accuracyReduced"], at: 4) }
        for outcome in outcomes {
            row(outcome == "ended" ? "subscriptions ended" : "one-shots \(outcome)") { "\(($0.outcomes[outcome] ?? 0).formatted())" }
        }
        row("one-shots answered from cache") { "\($0.oneShotsAnsweredFromCache.formatted())" }
        row("subscription updates") { "\($0.subscriptionUpdates.formatted())" }
        let timeline = virtual ? "virtual timeline" : "wall clock"
        row("fix→delivery delay, \(timeline) p50/p99/max") { latency($0.fixToDeliveryLatencyMicroseconds) }
        row("timeout lateness, \(timeline) p50/p99/max") { latency($0.timeoutLatenessMicroseconds) }
        for level in WorkloadPlan.levels.map({ "\($0)" }).reversed() + ["custom"] where designs.contains(where: { $0.timeToAnswerMicroseconds[level] != nil }) {
            row("time to answer, \(level), p50/p99/max") { $0.timeToAnswerMicroseconds[level].map(latency) ?? "—" }
        }
        row("source off at end") { $0.sourceOffAtEnd ? "yes" : "NO" }
        if report.authorization != nil {
            row("authorization prompts/changes") { "\($0.authorizationPrompts)/\($0.authorizationChanges)" }
            row("deliveries checked coarse") { "\($0.coarseDeliveriesChecked.formatted())" }
        }
        row("invariant violations") { "\($0.invariantViolations)" }

        let nameWidth = rows.map(\.0.count).max() ?? 0
        let columnWidth = max(24, rows.flatMap(\.1).map(\.count).max() ?? 0)
        lines.append(pad("", nameWidth) + "  " + designs.map { pad($0.design, columnWidth) }.joined(separator: "  "))
        for (name, values) in rows {
            lines.append(pad(name, nameWidth) + "  " + values.map { pad($0, columnWidth) }.joined(separator: "  "))
        }
        let withdrawals = report.operations - report.requests
        if withdrawals > 0 {
            lines.append(
                "The workload's \(withdrawals.formatted()) cancels and force-completes aim at requests at random: most find theirs already ended and change nothing; those that ended one are the cancelled and forceCompleted above.")
        }
        if report.receiver != nil {
            lines.append(
                "Source starts count every start; the receiver's restarts (above) only those into continuous tracking after the first, each a wait for a first fix after a power-down.")
        }
        if let baseline = report.baseline {
            lines.append("")
            lines.append(
                "engine vs naive: energy ÷\(format(ratio(baseline.energyJoules, report.engine.energyJoules))), CPU time ÷\(format(ratio(baseline.cpuSeconds, report.engine.cpuSeconds))), heap at peak pending ÷\(format(ratio(Double(baseline.heapBytesAtPeakPending), Double(report.engine.heapBytesAtPeakPending)))), timeout lateness p99 \(micro(report.engine.timeoutLatenessMicroseconds.p99)) vs \(micro(baseline.timeoutLatenessMicroseconds.p99)), invariant violations \(report.engine.invariantViolations) vs \(baseline.invariantViolations)")
        }
        if let measured = report.timerFloor, measured.lateness.count > 0 {
            let floor = measured.lateness
            lines.append("")
            lines.append(
                "timer floor: a bare thread of this process sleeping to deadlines 1 ms apart through the runs woke p50/p99/max \(latency(floor)) after them (\(floor.count.formatted()) deadlines): the tail the operating system gives a thread that sleeps until its deadline under this load (its \(String(format: "%.0f", measured.cpuSeconds * 1000)) ms of CPU are in the CPU times above)")
        }
        if virtual {
            lines.append(
                "On the virtual clock a fix reaches its handlers at the instant it is made: the delay and lateness above are on that timeline; the cost of the work is the CPU time per operation.")
        }
        lines.append("")
        lines.append(
            "peak RSS (VmHWM) \(report.peakRSSBytes / 1_048_576) MiB; heap measured by \(report.engine.heapMeasuredBy); process wall time \(String(format: "%.2f s", report.processWallSeconds))")
        return lines.joined(separator: "\n")
    }

    /// The headline: power saved against always-on, distance to the oracle, the naive design.
    static func powerLines(_ report: Report) -> [String] {
        let power = report.power
        var lines = [
            String(
                format: "power: the engine spent %.1f %% of an always-on source's energy (%.1f J vs %.1f J over %.0f s) and %.2f× the oracle's",
                100 * power.engineEnergyVsAlwaysOn, report.engine.energyJoules, power.alwaysOnEnergyJoules, power.alwaysOnSeconds,
                power.engineEnergyVsOracle),
            report.receiver?.powerDown.hasPrefix("restart-aware") == true
                ? String(
                    format: "       source on %.1f s = %.2f× the oracle's %.1f s (the restart-aware rule stays on up to the break-even of the mode it tracked in, not a fixed linger)",
                    report.engine.sourceOnSeconds, power.engineOnTimeVsOracle, power.oracleOnSeconds)
                : String(
                    format: "       source on %.1f s = %.2f× the oracle's %.1f s (1.1× the oracle's plus a %.0f s linger after each of its %d stretches of demand: %.1f s)",
                    report.engine.sourceOnSeconds, power.engineOnTimeVsOracle, power.oracleOnSeconds, power.lingerSeconds, power.oracleOnIntervals,
                    power.engineOnTimeBoundSeconds),
        ]
        if let naive = report.baseline, let energy = power.naiveEnergyVsEngine, let onTime = power.naiveOnTimeVsOracle {
            lines.append(
                String(format: "       the naive design: %.1f J, ×%.2f the engine's energy, on %.2f× the oracle", naive.energyJoules, energy, onTime))
        }
        lines.append(
            report.receiver == nil
                ? "       oracle: on exactly while some request waits for a fix, in the mode of the most demanding (\(modes(power.oracleSecondsInMode)) s in lowest/low/medium/high/best)"
                : "       energy metered by the synthetic receiver; oracle: the restart-aware one (below), tracking exactly while some request waits (\(modes(power.oracleSecondsInMode)) s in lowest/low/medium/high/best), each gap on, in standby or off, each restart paid and started a time to first fix early"
        )
        return lines
    }

    static func modes(_ seconds: [String: Double]) -> String {
        PowerMode.allCases.map { String(format: "%.0f", seconds["\($0)"] ?? 0) }.joined(separator: "/")
    }

    static func spread(_ median: Double, _ minMax: [Double], _ runs: Int) -> String {
        runs > 1 ? String(format: "%.3f s (%.3f–%.3f)", median, minMax[0], minMax[1]) : String(format: "%.3f s", median)
    }

    static func latency(_ summary: LatencySummary) -> String {
        summary.count == 0 ? "—" : "\(micro(summary.p50))/\(micro(summary.p99))/\(micro(summary.max))"
    }

    static func micro(_ value: UInt64) -> String {
        value >= 10_000_000 ? String(format: "%.1fs", Double(value) / 1e6) : value >= 10_000 ? String(format: "%.1fms", Double(value) / 1000) : "\(value)µs"
    }

    static func ratio(_ numerator: Double, _ denominator: Double) -> Double { denominator > 0 ? numerator / denominator : .infinity }

    static func format(_ value: Double) -> String { value.isFinite ? String(format: "%.1f", value) : "∞" }

    static func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text : text + String(repeating: " ", count: width - text.count)
    }
}

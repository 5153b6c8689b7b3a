import Foundation

/// The human-readable report printed by default.
enum TableReport {
    static func render(_ report: Report) -> String {
        var lines: [String] = []
        let designs = [report.engine] + (report.baseline.map { [$0] } ?? [])
        lines.append("locbench — \(report.requests) requests (\(report.operations) operations), \(report.clock) clock, scenario \(report.scenario), seed \(report.seed)")
        if let authorization = report.authorization { lines.append("authorization script: \(authorization)") }
        lines.append("")
        var rows: [(String, [String])] = []
        func row(_ name: String, _ value: (Report.Design) -> String) { rows.append((name, designs.map(value))) }
        row("wall time") { format($0.wallSeconds, "s") }
        row("CPU time") { format($0.cpuSeconds, "s") }
        row("timeline covered") { format($0.timelineSeconds, "s") }
        row("submit throughput") { "\(Int($0.submitThroughputPerSecond).formatted()) ops/s" }
        row("max pending") { "\($0.maxPending.formatted())" }
        row("heap per pending request") { "\(Int($0.heapBytesPerPendingRequest.rounded())) B" }
        var outcomes = ["succeeded", "timedOut", "forceCompleted", "cancelled", "failed", "ended"]
        if report.authorization != nil { outcomes.insert(contentsOf: ["unauthorized", "accuracyReduced"], at: 4) }
        for outcome in outcomes {
            row(outcome == "ended" ? "subscriptions ended" : "one-shots \(outcome)") { "\(($0.outcomes[outcome] ?? 0).formatted())" }
        }
        row("subscription updates") { "\($0.subscriptionUpdates.formatted())" }
        row("fix→delivery p50/p99/p99.9/max") { latency($0.fixToDeliveryLatencyMicroseconds) }
        row("timeout lateness p50/p99/p99.9/max") { latency($0.timeoutLatenessMicroseconds) }
        row("source starts/stops/mode changes") { "\($0.sourceStarts)/\($0.sourceStops)/\($0.sourceModeChanges)" }
        row("source duty cycle") { String(format: "%.1f %%", $0.sourceDutyCycle * 100) }
        row("energy (model) vs always-on") { String(format: "%.1f J vs %.1f J", $0.energyJoules, $0.alwaysOnEnergyJoules) }
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
        if let baseline = report.baseline {
            lines.append("")
            lines.append("engine vs naive: submit throughput ×\(ratio(report.engine.submitThroughputPerSecond, baseline.submitThroughputPerSecond)), heap per pending request ÷\(ratio(baseline.heapBytesPerPendingRequest, report.engine.heapBytesPerPendingRequest)), timeout lateness p99 \(report.engine.timeoutLatenessMicroseconds.p99) µs vs \(baseline.timeoutLatenessMicroseconds.p99) µs")
        }
        lines.append("")
        lines.append("peak RSS \(report.peakRSSBytes / 1_048_576) MiB; heap measured by \(report.engine.heapMeasuredBy); process wall time \(format(report.processWallSeconds, "s"))")
        return lines.joined(separator: "\n")
    }

    static func latency(_ summary: LatencySummary) -> String {
        summary.count == 0 ? "—" : "\(micro(summary.p50))/\(micro(summary.p99))/\(micro(summary.p999))/\(micro(summary.max))"
    }

    static func micro(_ value: UInt64) -> String {
        value >= 10_000 ? String(format: "%.1fms", Double(value) / 1000) : "\(value)µs"
    }

    static func ratio(_ numerator: Double, _ denominator: Double) -> String {
        denominator > 0 ? String(format: "%.1f", numerator / denominator) : "∞"
    }

    static func format(_ value: Double, _ unit: String) -> String { String(format: "%.3f %@", value, unit) }

    static func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text : text + String(repeating: " ", count: width - text.count)
    }
}

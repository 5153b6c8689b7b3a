import Foundation

/// `locbench --geofences N --report FILE.html`: one self-contained page (inline SVG, no scripts) with a map per
/// trajectory, both designs' figures against the truth and the energy bounds, and the engine's figures.
enum GeofenceHTML {
    static func render(_ report: GeofenceReport, runs: [GeofenceShapeRun]) -> String {
        let escape = SVGCharts.escape
        let sections = zip(report.shapes, runs).map { shape, run in
            let rows = shape.designs.map { design in
                let cells = [
                    design.design, "\(design.detected)", "\(design.missed)", "\(design.withinMargin)", "\(design.duplicates)",
                    "\(design.falseTransitions)",
                    GeofenceTable.seconds([design.latencyP50Seconds, design.latencyP99Seconds], none: "none delivered"),
                    GeofenceTable.seconds([design.latencyFromDecidableP50Seconds, design.latencyFromDecidableP99Seconds]),
                    String(format: "%.1f J", design.energyJoules), String(format: "%.1f %%", 100 * design.energyVsAlwaysOn),
                    String(format: "%.2f×", design.energyVsReachOracle), String(format: "%.1f µs", design.cpuMicrosecondsPerFix),
                ]
                return "<tr>" + cells.map { "<td>\(escape($0))</td>" }.joined() + "</tr>"
            }.joined()
            let energy = [
                ("engine", shape.designs.first { $0.design == "engine" }?.energyJoules ?? 0, "#3182bd"),
                ("reach oracle", shape.reachOracleJoules, "#74c476"),
                ("naive", shape.designs.first { $0.design == "naive" }?.energyJoules ?? 0, "#fd8d3c"),
                ("always-on", shape.alwaysOnJoules, "#969696"),
            ]
            return """
                <h2>\(escape(shape.shape)): \(String(format: "%.1f km", shape.distanceKilometres)), \(shape.trueCrossings) true crossings of \(shape.fencesCrossed) fences</h2>
                \(GeofenceMap.render(run))
                <p>Latency is counted from the true crossing and from the decidable instant: the first instant the truth was the margin past the boundary on the far side (2a + max(20 m, a) at the accuracy a the receiver gave at the time tracking continuously; \(String(format: "%.1f m", shape.marginMetres)) at its median). While tracking, the receiver gives a fix every \(String(format: "%.0f s", report.fixIntervalSeconds)).</p>
                <table><tr><th>design</th><th>detected</th><th>missed</th><th>within margin</th><th>duplicate</th><th>false</th><th>latency from the crossing p50/p99</th><th>latency from the decidable instant p50/p99</th><th>energy</th><th>vs always-on</th><th>vs reach oracle</th><th>CPU per fix</th></tr>\(rows)</table>
                <div class="row">\(SVGCharts.bars(title: "energy over the trajectory", unit: "J", energy))</div>
                \(curve(shape))
                """
        }.joined()
        let figures = report.figures.map { "<tr><td>\(escape($0.figure))</td><td>\(escape($0.measured))</td></tr>" }.joined()
        return """
            \(HTMLReport.head(title: "locbench geofences"))
            <h1>locbench --geofences \(report.fences): \(report.shapes.map(\.shape).joined(separator: ", "))</h1>
            <h2>The engine's figures</h2>
            <table><tr><th>figure</th><th>measured</th></tr>\(figures)</table>
            \(sections)
            <h2>All figures</h2>
            <pre>\(escape(GeofenceTable.render(report)))</pre>
            </body></html>
            """
    }

    /// The trajectory's energy/latency curve, if it was swept: the engine by its responsiveness and the polling
    /// designs by their fix interval, the Pareto front ringed.
    static func curve(_ shape: GeofenceReport.Shape) -> String {
        guard !shape.curve.isEmpty else { return "" }
        func series(_ design: String, _ label: String, _ colour: String) -> SVGCharts.CurveSeries {
            SVGCharts.CurveSeries(
                label: label, colour: colour,
                points: shape.curve.filter { $0.design == design }.compactMap { point in
                    // A design that delivered no transition has no latency to draw.
                    point.latencyFromDecidableP99Seconds.map {
                        (latency: $0, energy: point.energyJoules, label: GeofenceTable.duration(point.settingSeconds), onFront: point.onParetoFront)
                    }
                })
        }
        let polling = shape.curve.count { $0.design == "polling" }
        return """
            <div class="row">\(SVGCharts.curve(title: "energy against latency p99 from the decidable instant", [
                series("engine", "engine, by responsiveness", "#3182bd"), series("polling", "polling, by fix interval", "#fd8d3c"),
            ]))</div>
            <p>Polling designs that a point of the engine's curve dominates (less or as much energy, latency p99 and missed transitions, less of one): \(shape.pollingDominated) of \(polling). On energy and latency alone: \(shape.pollingDominatedOnEnergyAndLatency) of \(polling). Ringed: the Pareto front of the three; each point's missed transitions are in the text report.</p>
            """
    }
}

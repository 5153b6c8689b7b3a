import Foundation
import LocationEngine
import LocbenchModel

/// `--report FILE.html`: one self-contained page (inline SVG, no scripts) with the demand timeline,
/// the oracle's and each design's source state and mode, energy and on-time bars, latency and
/// lateness histograms for both designs, and the invariant summary.
enum HTMLReport {
    /// The start of a report page up to its body: the title and the style every report shares.
    static func head(title: String) -> String {
        """
        <!doctype html>
        <html><head><meta charset="utf-8"><title>\(SVGCharts.escape(title))</title>
        <style>body{font-family:"DejaVu Sans",system-ui,sans-serif;margin:24px;width:980px;color:#222}
        pre{background:#f4f4f4;padding:8px;overflow:auto;font-size:11px}h1{font-size:22px}h2{font-size:16px;margin:20px 0 6px}
        svg text{font-size:11px;font-family:"DejaVu Sans",sans-serif}.row{display:flex;flex-wrap:wrap;gap:12px}
        table{border-collapse:collapse;margin:8px 0}td,th{border:1px solid #ccc;padding:4px 8px;vertical-align:top;font-size:12px}
        .ok{color:#2a7d2a;font-weight:bold}.bad{color:#c00;font-weight:bold}.headline{font-size:14px;line-height:1.5}</style></head><body>
        """
    }

    static func render(_ report: Report, engine: RunMeasurements, naive: RunMeasurements?) -> String {
        let escape = SVGCharts.escape
        let end = max(engine.timelineSeconds, naive?.timelineSeconds ?? 0)
        var bands = [
            SVGCharts.Band(label: "oracle", segments: engine.oracle.segments),
            SVGCharts.Band(label: "engine source", segments: engine.sourceSegments),
        ]
        if let naive { bands.append(SVGCharts.Band(label: "naive source", segments: naive.sourceSegments)) }
        let power = report.power
        var energy: [(label: String, value: Double, colour: String)] = [("engine", report.engine.energyJoules, "#3182bd"), ("oracle", power.oracleEnergyJoules, "#74c476")]
        var onTime: [(label: String, value: Double, colour: String)] = [("engine", report.engine.sourceOnSeconds, "#3182bd"), ("oracle", power.oracleOnSeconds, "#74c476")]
        if let baseline = report.baseline {
            energy.append(("naive", baseline.energyJoules, "#fd8d3c"))
            onTime.append(("naive", baseline.sourceOnSeconds, "#fd8d3c"))
        }
        energy.append(("always-on", power.alwaysOnEnergyJoules, "#969696"))
        onTime.append(("always-on", power.alwaysOnSeconds, "#969696"))
        var receiverSection = ""
        if let receiver = report.receiver {
            let colours = ["#3182bd", "#74c476", "#9e9ac8", "#e6550d", "#969696", "#fd8d3c"]
            let bars = receiver.designs.enumerated().map { ($0.element.design, $0.element.energyJoules, colours[$0.offset % colours.count]) }
            let rows = receiver.designs.map {
                "<tr><td>\(escape($0.design))</td><td>\(String(format: "%.2f J", $0.energyJoules))</td><td>\(String(format: "%.2f×", $0.vsOracle))</td><td>\($0.restarts)</td><td>\(String(format: "%.1f s / %.1f s", $0.restartDelayP50Seconds, $0.restartDelayP99Seconds))</td><td>\($0.energySource)</td></tr>"
            }.joined()
            receiverSection = """
                <h2>Receiver energy against the restart-aware oracle (\(escape(receiver.receiver)), shape \(escape(receiver.shape))</h2>
                <p>\(TableReport.receiverLines(receiver).prefix(2).map { escape($0.trimmingCharacters(in: .whitespaces)) }.joined(separator: "<br>"))</p>
                <div class="row">\(SVGCharts.bars(title: "energy by design", unit: "J", bars))
                <table><tr><th>design</th><th>energy</th><th>vs oracle</th><th>restarts</th><th>first fix after restart p50/p99</th><th>from</th></tr>\(rows)</table></div>
                """
        }
        let timeline = report.clock == "virtual" ? "virtual timeline" : "wall clock"
        var histograms = [
            SVGCharts.histogram(title: "engine: fix → delivery delay (\(timeline), \(engine.latency.count.formatted()))", engine.latencyBuckets),
            SVGCharts.histogram(title: "engine: timeout lateness (\(timeline), \(engine.lateness.count.formatted()))", engine.latenessBuckets),
        ]
        if let naive {
            histograms += [
                SVGCharts.histogram(title: "naive: fix → delivery delay (\(timeline), \(naive.latency.count.formatted()))", naive.latencyBuckets),
                SVGCharts.histogram(title: "naive: timeout lateness (\(timeline), \(naive.lateness.count.formatted()))", naive.latenessBuckets),
            ]
        }
        let designs = [report.engine] + (report.baseline.map { [$0] } ?? [])
        let invariants = designs.map { design in
            let verdict = design.invariantViolations == 0 ? "<td class=\"ok\">none</td>" : "<td class=\"bad\">\(design.invariantViolations.formatted())</td>"
            let first = design.firstViolations.prefix(3).map { "<pre>\(escape($0))</pre>" }.joined()
            return "<tr><td>\(design.design)</td>\(verdict)<td>\(design.sourceOffAtEnd ? "yes" : "NO")</td><td>\(first)</td></tr>"
        }.joined()
        return """
            \(head(title: "locbench report"))
            <h1>locbench: \(report.requests.formatted()) requests, \(escape(report.arrival)) arrivals</h1>
            <p class="headline">\(TableReport.powerLines(report).map { escape($0.trimmingCharacters(in: .whitespaces)) }.joined(separator: "<br>"))</p>
            <h2>Demand and the source over the run</h2>
            \(SVGCharts.timeline(pending: engine.timeline.map { ($0.seconds, $0.pending) }, bands: bands, endSeconds: end))
            \(receiverSection)
            <h2>Energy and source on-time</h2>
            <div class="row">\(SVGCharts.bars(title: "energy", unit: "J", energy))\(SVGCharts.bars(title: "source on-time", unit: "s", onTime))</div>
            <h2>Latency and lateness</h2>
            <div class="row">\(histograms.joined())</div>
            <h2>Invariants</h2>
            <table><tr><th>design</th><th>violations</th><th>source off at end</th><th>first violations</th></tr>\(invariants)</table>
            <h2>All figures</h2>
            <pre>\(escape(TableReport.render(report)))</pre>
            </body></html>
            """
    }
}

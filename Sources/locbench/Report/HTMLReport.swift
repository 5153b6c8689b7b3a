import Foundation
import LocationEngine

/// `--report FILE.html`: one self-contained page with the latency histogram and a timeline of
/// pending requests and source power mode, as inline SVG.
enum HTMLReport {
    static func render(_ report: Report, engine: RunMeasurements) -> String {
        let summary = TableReport.render(report)
            .replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
        return """
            <!doctype html>
            <html><head><meta charset="utf-8"><title>locbench report</title>
            <style>body{font-family:system-ui,sans-serif;margin:2em;max-width:1000px}pre{background:#f4f4f4;padding:1em;overflow:auto}
            h2{margin-top:1.5em}svg text{font-size:11px}</style></head><body>
            <h1>locbench report</h1>
            <pre>\(summary)</pre>
            <h2>Fix arrival → delivery latency (\(engine.latency.count) deliveries)</h2>
            \(histogram(engine.latencyBuckets))
            <h2>Pending requests and source power mode over the run</h2>
            \(timeline(engine.timeline))
            </body></html>
            """
    }

    static func histogram(_ buckets: [(upperMicroseconds: UInt64, count: UInt64)]) -> String {
        guard let largest = buckets.map(\.count).max(), largest > 0 else { return "<p>No deliveries.</p>" }
        let width = 900.0
        let height = 240.0
        let barWidth = width / Double(max(buckets.count, 1))
        var bars = ""
        for (index, bucket) in buckets.enumerated() {
            let barHeight = Double(bucket.count) / Double(largest) * (height - 40)
            let x = Double(index) * barWidth
            bars += "<rect x=\"\(x)\" y=\"\(height - 20 - barHeight)\" width=\"\(barWidth - 2)\" height=\"\(barHeight)\" fill=\"#3b7dd8\"><title>≤\(bucket.upperMicroseconds) µs: \(bucket.count)</title></rect>"
            if index % 2 == 0 {
                bars += "<text x=\"\(x)\" y=\"\(height - 5)\">\(TableReport.micro(bucket.upperMicroseconds))</text>"
            }
        }
        return "<svg width=\"\(width)\" height=\"\(height)\" role=\"img\" aria-label=\"latency histogram\">\(bars)</svg>"
    }

    static func timeline(_ points: [(seconds: Double, pending: Int, mode: PowerMode?)]) -> String {
        guard let end = points.last?.seconds, end > 0, let maxPending = points.map(\.pending).max() else {
            return "<p>No timeline.</p>"
        }
        let stride = max(1, points.count / 1500)
        let sampled = Swift.stride(from: 0, to: points.count, by: stride).map { points[$0] }
        let width = 900.0
        let height = 260.0
        let plot = height - 70
        func x(_ seconds: Double) -> Double { seconds / end * width }
        let path = sampled.map { "\(x($0.seconds)),\(plot - Double($0.pending) / Double(max(1, maxPending)) * (plot - 10))" }
            .joined(separator: " ")
        // One rectangle per run of equal mode (not per sample: sub-pixel slivers render as stripes).
        var modes = ""
        var runStart = 0
        for index in points.indices where index + 1 == points.count || points[index + 1].mode != points[runStart].mode {
            if let mode = points[runStart].mode {
                let until = index + 1 < points.count ? points[index + 1].seconds : end
                let shade = ["#fde0c5", "#facba6", "#f8b58b", "#f59e72", "#f0746e"][mode.rawValue]
                modes += "<rect x=\"\(x(points[runStart].seconds))\" y=\"\(plot + 15)\" width=\"\(max(0.5, x(until) - x(points[runStart].seconds)))\" height=\"25\" fill=\"\(shade)\"><title>\(mode)</title></rect>"
            }
            runStart = index + 1
        }
        return """
            <svg width="\(width)" height="\(height)" role="img" aria-label="timeline">
            <polyline fill="none" stroke="#3b7dd8" stroke-width="1.5" points="\(path)"/>
            <text x="0" y="12">pending (max \(maxPending))</text>
            \(modes)
            <text x="0" y="\(plot + 55)">source mode (light = lowest … dark = best, blank = off); \(String(format: "%.1f", end)) s</text>
            </svg>
            """
    }
}

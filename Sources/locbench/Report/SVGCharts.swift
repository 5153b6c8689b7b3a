import Foundation
import LocationEngine
import LocbenchModel

/// Inline SVG charts for the HTML report: the run's timeline, bar charts and histograms, with axes
/// and legends. Everything is drawn in user units; the page scales it.
enum SVGCharts {
    /// Fill colours of the power modes, light (lowest) to dark (best).
    static let modeColours = ["#c6dbef", "#9ecae1", "#6baed6", "#3182bd", "#08519c"]
    static let pendingColour = "#d95f02"

    /// One row of the timeline: a label and stretches at a level (a mode's raw value).
    struct Band {
        var label: String
        var segments: [Demand]
    }

    /// Pending requests over the run (a line), then one band per row (the source's mode, blank when
    /// off), over a shared time axis.
    static func timeline(pending: [(seconds: Double, pending: Int)], bands: [Band], endSeconds: Double) -> String {
        let left = 120.0
        let plotWidth = 820.0
        let chartTop = 30.0
        let chartHeight = 140.0
        let bandHeight = 22.0
        let bandGap = 8.0
        let bandsTop = chartTop + chartHeight + 20
        let axisY = bandsTop + Double(bands.count) * (bandHeight + bandGap)
        let height = axisY + 70
        let end = max(endSeconds, 1e-9)
        func x(_ seconds: Double) -> Double { left + seconds / end * plotWidth }
        var svg = ""
        // Pending requests, sampled down to about two points per pixel.
        let maxPending = max(1, pending.map(\.pending).max() ?? 0)
        let stride = max(1, pending.count / 1_600)
        let points = Swift.stride(from: 0, to: pending.count, by: stride).map { pending[$0] }
        let path = points.map {
            String(format: "%.1f,%.1f", x($0.seconds), chartTop + chartHeight - Double($0.pending) / Double(maxPending) * chartHeight)
        }.joined(separator: " ")
        svg += "<polyline fill=\"none\" stroke=\"\(pendingColour)\" stroke-width=\"1.2\" points=\"\(path)\"/>"
        for fraction in [0.0, 0.5, 1.0] {
            let y = chartTop + chartHeight - fraction * chartHeight
            svg += line(left - 4, y, left + plotWidth, y, colour: "#ddd")
            svg += text(left - 8, y + 4, "\(Int((Double(maxPending) * fraction).rounded()).formatted())", anchor: "end")
        }
        svg += text(left - 8, chartTop - 12, "pending requests", anchor: "end", weight: "bold")
        // Bands, rasterised to one column per unit so that a million short stretches stay a small page.
        for (row, band) in bands.enumerated() {
            let y = bandsTop + Double(row) * (bandHeight + bandGap)
            svg += "<rect x=\"\(left)\" y=\"\(y)\" width=\"\(plotWidth)\" height=\"\(bandHeight)\" fill=\"#f7f7f7\" stroke=\"#ccc\"/>"
            svg += text(left - 8, y + 15, band.label, anchor: "end")
            let columns = Demand.rasterise(band.segments, end: Int64(end * 1e9), columns: Int(plotWidth))
            var start = 0
            for index in columns.indices where index + 1 == columns.count || columns[index + 1] != columns[start] {
                if let level = columns[start] {
                    svg += "<rect x=\"\(left + Double(start))\" y=\"\(y)\" width=\"\(index + 1 - start)\" height=\"\(bandHeight)\" fill=\"\(modeColours[level])\"/>"
                }
                start = index + 1
            }
        }
        // Time axis.
        svg += line(left, axisY, left + plotWidth, axisY, colour: "#333")
        for tick in ticks(upTo: end) {
            svg += line(x(tick), axisY, x(tick), axisY + 5, colour: "#333")
            svg += line(x(tick), chartTop, x(tick), axisY, colour: "#eee")
            svg += text(x(tick), axisY + 18, tick.formatted(), anchor: "middle")
        }
        svg += text(left + plotWidth / 2, axisY + 36, "time on the run's timeline (s)", anchor: "middle")
        // Legend.
        var legendX = left
        let legendY = axisY + 52
        svg += "<line x1=\"\(legendX)\" y1=\"\(legendY - 4)\" x2=\"\(legendX + 18)\" y2=\"\(legendY - 4)\" stroke=\"\(pendingColour)\" stroke-width=\"2\"/>"
        svg += text(legendX + 22, legendY, "pending requests", anchor: "start")
        legendX += 140
        for mode in PowerMode.allCases {
            svg += "<rect x=\"\(legendX)\" y=\"\(legendY - 10)\" width=\"14\" height=\"12\" fill=\"\(modeColours[mode.rawValue])\"/>"
            svg += text(legendX + 18, legendY, "\(mode)", anchor: "start")
            legendX += 80
        }
        svg += "<rect x=\"\(legendX)\" y=\"\(legendY - 10)\" width=\"14\" height=\"12\" fill=\"#f7f7f7\" stroke=\"#ccc\"/>"
        svg += text(legendX + 18, legendY, "off", anchor: "start")
        return "<svg viewBox=\"0 0 960 \(height)\" width=\"960\" height=\"\(height)\" role=\"img\" aria-label=\"timeline\">\(svg)</svg>"
    }

    /// Horizontal bars with their values, one chart per group of (label, value) pairs.
    static func bars(title: String, unit: String, _ values: [(label: String, value: Double, colour: String)]) -> String {
        let left = 120.0
        let width = 380.0
        let rowHeight = 26.0
        let largest = max(values.map(\.value).max() ?? 0, 1e-9)
        var svg = text(0, 16, title, anchor: "start", weight: "bold")
        for (index, item) in values.enumerated() {
            let y = 28 + Double(index) * rowHeight
            let length = item.value / largest * (width - 90)
            svg += text(left - 8, y + 15, item.label, anchor: "end")
            svg += "<rect x=\"\(left)\" y=\"\(y)\" width=\"\(max(1, length))\" height=\"\(rowHeight - 8)\" fill=\"\(item.colour)\"/>"
            svg += text(left + length + 6, y + 15, String(format: "%.1f %@", item.value, unit), anchor: "start")
        }
        let height = 28 + Double(values.count) * rowHeight + 8
        return "<svg viewBox=\"0 0 \(left + width) \(height)\" width=\"\(left + width)\" height=\"\(height)\" role=\"img\" aria-label=\"\(title)\">\(svg)</svg>"
    }

    /// A histogram over power-of-two microsecond buckets, with a count axis.
    static func histogram(title: String, _ buckets: [(upperMicroseconds: UInt64, count: UInt64)]) -> String {
        let width = 460.0
        let height = 200.0
        let left = 50.0
        let top = 28.0
        let plotHeight = 120.0
        var svg = text(0, 16, title, anchor: "start", weight: "bold")
        guard let largest = buckets.map(\.count).max(), largest > 0 else {
            svg += text(left, top + 60, "nothing to show", anchor: "start")
            return "<svg viewBox=\"0 0 \(width) \(height)\" width=\"\(width)\" height=\"\(height)\">\(svg)</svg>"
        }
        let barWidth = min(40, (width - left - 10) / Double(buckets.count))
        for fraction in [0.0, 0.5, 1.0] {
            let y = top + plotHeight - fraction * plotHeight
            svg += line(left - 4, y, width - 10, y, colour: "#ddd")
            svg += text(left - 8, y + 4, "\(Int((Double(largest) * fraction).rounded()))", anchor: "end")
        }
        for (index, bucket) in buckets.enumerated() {
            let barHeight = Double(bucket.count) / Double(largest) * plotHeight
            let x = left + Double(index) * barWidth
            svg += "<rect x=\"\(x + 1)\" y=\"\(top + plotHeight - barHeight)\" width=\"\(barWidth - 2)\" height=\"\(barHeight)\" fill=\"#3182bd\"><title>≤ \(TableReport.micro(bucket.upperMicroseconds)): \(bucket.count)</title></rect>"
            // Labels about 55 units apart so that they never overlap.
            if index % max(1, Int((55 / barWidth).rounded(.up))) == 0 {
                svg += text(x + barWidth / 2, top + plotHeight + 16, "≤" + TableReport.micro(bucket.upperMicroseconds), anchor: "middle")
            }
        }
        svg += line(left, top + plotHeight, width - 10, top + plotHeight, colour: "#333")
        svg += text(left + (width - left) / 2, top + plotHeight + 36, "bucket upper bound; bar height = count", anchor: "middle")
        return "<svg viewBox=\"0 0 \(width) \(height)\" width=\"\(width)\" height=\"\(height)\" role=\"img\" aria-label=\"\(title)\">\(svg)</svg>"
    }

    /// About eight round ticks (1, 2 or 5 × 10ⁿ apart) from 0 to `end`.
    static func ticks(upTo end: Double) -> [Double] {
        let raw = end / 8
        let magnitude = pow(10, floor(log10(raw)))
        let step = [1.0, 2, 5, 10].map { $0 * magnitude }.first { $0 >= raw } ?? magnitude * 10
        return Swift.stride(from: 0, through: end, by: step).map { $0 }
    }

    static func line(_ x1: Double, _ y1: Double, _ x2: Double, _ y2: Double, colour: String) -> String {
        "<line x1=\"\(x1)\" y1=\"\(y1)\" x2=\"\(x2)\" y2=\"\(y2)\" stroke=\"\(colour)\"/>"
    }

    static func text(_ x: Double, _ y: Double, _ content: String, anchor: String, weight: String = "normal") -> String {
        "<text x=\"\(x)\" y=\"\(y)\" text-anchor=\"\(anchor)\" font-weight=\"\(weight)\">\(escape(content))</text>"
    }

    static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: ">", with: "&gt;")
    }

}

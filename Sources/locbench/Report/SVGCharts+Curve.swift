import Foundation

extension SVGCharts {
    /// One series of ``curve(title:_:)``: its points in order, each with its label and whether it is on the Pareto
    /// front (drawn ringed).
    struct CurveSeries {
        var label: String
        var colour: String
        var points: [(latency: Double, energy: Double, label: String, onFront: Bool)]
    }

    /// Energy (joules, linear from 0) against latency (seconds, logarithmic from half a second), each series a line
    /// through its points, the Pareto front's points ringed.
    static func curve(title: String, _ series: [CurveSeries]) -> String {
        let width = 620.0, height = 340.0, left = 60.0, top = 30.0, plotWidth = 520.0, plotHeight = 250.0
        let all = series.flatMap(\.points)
        var svg = text(0, 16, title, anchor: "start", weight: "bold")
        guard !all.isEmpty else { return "<svg viewBox=\"0 0 \(width) \(height)\" width=\"\(width)\" height=\"\(height)\">\(svg)</svg>" }
        let lowest = 0.5
        let largest = max(all.map(\.latency).max() ?? 1, 2) * 1.3
        let energyTop = max(all.map(\.energy).max() ?? 1, 1e-9) * 1.1
        func x(_ latency: Double) -> Double { left + log10(max(lowest, latency) / lowest) / log10(largest / lowest) * plotWidth }
        func y(_ energy: Double) -> Double { top + plotHeight - energy / energyTop * plotHeight }
        for tick in [0.5, 1, 2, 5, 10, 20, 50, 100, 200, 500, 1000] where tick <= largest {
            svg += line(x(tick), top, x(tick), top + plotHeight, colour: "#eee")
            svg += text(x(tick), top + plotHeight + 16, tick < 1 ? "≤0.5" : String(format: "%.0f", tick), anchor: "middle")
        }
        for tick in ticks(upTo: energyTop) {
            svg += line(left, y(tick), left + plotWidth, y(tick), colour: "#eee")
            svg += text(left - 6, y(tick) + 4, String(format: "%.0f", tick), anchor: "end")
        }
        svg += line(left, top + plotHeight, left + plotWidth, top + plotHeight, colour: "#333")
        svg += line(left, top, left, top + plotHeight, colour: "#333")
        svg += text(left + plotWidth / 2, top + plotHeight + 34, "latency p99 from the decidable instant, s (log scale)", anchor: "middle")
        svg += "<text x=\"14\" y=\"\(top + plotHeight / 2)\" text-anchor=\"middle\" transform=\"rotate(-90 14 \(top + plotHeight / 2))\">energy, J</text>"
        for (index, one) in series.enumerated() {
            let path = one.points.map { String(format: "%.1f,%.1f", x($0.latency), y($0.energy)) }.joined(separator: " ")
            svg += "<polyline points=\"\(path)\" fill=\"none\" stroke=\"\(one.colour)\" stroke-width=\"1.5\"/>"
            for point in one.points {
                svg += "<circle cx=\"\(x(point.latency))\" cy=\"\(y(point.energy))\" r=\"3.5\" fill=\"\(one.colour)\"><title>\(escape(point.label))</title></circle>"
                if point.onFront {
                    svg += "<circle cx=\"\(x(point.latency))\" cy=\"\(y(point.energy))\" r=\"7\" fill=\"none\" stroke=\"#222\"/>"
                }
                svg += text(x(point.latency) + 6, y(point.energy) - 6, point.label, anchor: "start")
            }
            let legendY = top + 12 + Double(index) * 16
            svg += "<rect x=\"\(left + plotWidth - 150)\" y=\"\(legendY - 9)\" width=\"12\" height=\"10\" fill=\"\(one.colour)\"/>"
            svg += text(left + plotWidth - 134, legendY, one.label, anchor: "start")
        }
        svg += "<circle cx=\"\(left + plotWidth - 144)\" cy=\"\(top + 8 + Double(series.count) * 16)\" r=\"6\" fill=\"none\" stroke=\"#222\"/>"
        svg += text(left + plotWidth - 134, top + 12 + Double(series.count) * 16, "Pareto front", anchor: "start")
        return "<svg viewBox=\"0 0 \(width) \(height)\" width=\"\(width)\" height=\"\(height)\" role=\"img\" aria-label=\"\(escape(title))\">\(svg)</svg>"
    }
}

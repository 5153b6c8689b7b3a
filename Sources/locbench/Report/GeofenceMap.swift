import Foundation
import LocationEngine
import LocbenchModel

/// The map of one geofence trajectory, as inline SVG: the fences (outlined darker where the path crossed them),
/// the true path coloured by the engine's receiver state each second (a power mode, or off), each true crossing,
/// and each transition the engine reported at the fix it was decided on, joined to the crossing it reports;
/// false and duplicate transitions and missed crossings marked apart.
enum GeofenceMap {
    static let width = 940.0
    static let height = 620.0
    /// The receiver off: the path drawn pale.
    static let offColour = "#d9d9d9"
    static let crossingColour = "#31a354"
    static let detectedColour = "#6a51a3"
    static let wrongColour = "#e31a1c"
    static let missedColour = "#ff7f00"

    static func render(_ run: GeofenceShapeRun) -> String {
        let samples = run.path.samples
        // A local plane about the path's centre, one scale for both axes so circles stay round.
        let latitudes = samples.map(\.point.latitude), longitudes = samples.map(\.point.longitude)
        let centre = GeoPoint(latitude: (latitudes.min()! + latitudes.max()!) / 2, longitude: (longitudes.min()! + longitudes.max()!) / 2)
        let cosine = cos(centre.latitude * Double.pi / 180)
        let metresPerDegree = 6_371_008.8 * Double.pi / 180
        func plane(_ p: GeoPoint) -> (x: Double, y: Double) {
            ((p.longitude - centre.longitude) * metresPerDegree * cosine, (p.latitude - centre.latitude) * metresPerDegree)
        }
        let points = samples.map { plane($0.point) }
        let spanX = max(200, (points.map(\.x).max()! - points.map(\.x).min()!) * 1.1)
        let spanY = max(200, (points.map(\.y).max()! - points.map(\.y).min()!) * 1.1)
        let scale = min(width / spanX, height / spanY)
        func screen(_ p: GeoPoint) -> (x: Double, y: Double) {
            let q = plane(p)
            return (width / 2 + q.x * scale, height / 2 - q.y * scale)
        }
        func format(_ p: (x: Double, y: Double)) -> String { String(format: "%.1f,%.1f", p.x, p.y) }
        var svg = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(Int(width))\" height=\"\(Int(height) + 60)\" viewBox=\"0 0 \(Int(width)) \(Int(height) + 60)\">"
        svg += "<rect x=\"0\" y=\"0\" width=\"\(Int(width))\" height=\"\(Int(height))\" fill=\"#fbfbf8\" stroke=\"#ccc\"/>"
        svg += "<clipPath id=\"map-\(run.shape.rawValue)\"><rect x=\"0\" y=\"0\" width=\"\(Int(width))\" height=\"\(Int(height))\"/></clipPath>"
        svg += "<g clip-path=\"url(#map-\(run.shape.rawValue))\">"
        // Fences.
        for (index, fence) in run.fences.enumerated() {
            let crossed = !run.truth[index].crossings.isEmpty
            let style = crossed ? "fill=\"#fdd0a2\" fill-opacity=\"0.35\" stroke=\"#a63603\"" : "fill=\"#eeeeee\" fill-opacity=\"0.4\" stroke=\"#9e9e9e\""
            switch fence.region.shape {
            case .circle(let centre, let radius):
                let c = screen(centre)
                guard c.x > -radius * scale, c.x < width + radius * scale, c.y > -radius * scale, c.y < height + radius * scale else { continue }
                svg += String(format: "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%.1f\" stroke-width=\"0.8\" %@/>", c.x, c.y, max(0.8, radius * scale), style)
            case .polygon(let ring):
                svg += "<polygon points=\"\(ring.map { format(screen($0)) }.joined(separator: " "))\" stroke-width=\"0.8\" \(style)/>"
            }
        }
        // The path, one polyline per stretch of one receiver state.
        var start = 0
        for index in 1...samples.count where index == samples.count || stateColour(run.engine.modes, index) != stateColour(run.engine.modes, start) {
            let stretch = samples[max(0, start - 1)..<index].map { format(screen($0.point)) }.joined(separator: " ")
            svg += "<polyline fill=\"none\" stroke=\"\(stateColour(run.engine.modes, start))\" stroke-width=\"3\" stroke-linejoin=\"round\" points=\"\(stretch)\"/>"
            start = index
        }
        // True crossings, and the engine's transitions at their fixes.
        for truth in run.truth {
            for crossing in truth.crossings {
                let p = screen(crossing.point)
                svg += String(format: "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"none\" stroke=\"%@\" stroke-width=\"1.5\"/>", p.x, p.y, crossingColour)
            }
        }
        for judged in run.engineComparison.judged {
            let second = min(run.engine.fixes.count - 1, max(0, Int(judged.seconds.rounded(.down))))
            let at = run.engine.fixes[second] ?? run.path.position(at: judged.seconds)
            let p = screen(at)
            switch judged.verdict {
            case .detected:
                if let crossing = judged.crossing {
                    let q = screen(crossing.point)
                    svg += String(format: "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%@\" stroke-width=\"1\"/>", q.x, q.y, p.x, p.y, detectedColour)
                }
                svg += String(format: "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"2.5\" fill=\"%@\"/>", p.x, p.y, detectedColour)
            case .duplicate, .falseTransition:
                svg += String(format: "<path d=\"M%.1f,%.1f l6,6 m0,-6 l-6,6\" stroke=\"%@\" stroke-width=\"2\"/>", p.x - 3, p.y - 3, wrongColour)
            }
        }
        for (_, crossing) in run.engineComparison.unreported {
            let p = screen(crossing.point)
            let deep = crossing.excursionDepth >= run.margin
            svg += String(format: "<rect x=\"%.1f\" y=\"%.1f\" width=\"7\" height=\"7\" fill=\"none\" stroke=\"%@\" stroke-width=\"1.5\"/>", p.x - 3.5, p.y - 3.5, deep ? missedColour : "#969696")
        }
        svg += "</g>"
        svg += scaleBar(metresPerPixel: 1 / scale)
        svg += legend()
        return svg + "</svg>"
    }

    /// The colour of the receiver's state at second `index`: its mode's, or pale when off.
    static func stateColour(_ modes: [PowerMode?], _ index: Int) -> String {
        guard modes.indices.contains(index), let mode = modes[index] else { return offColour }
        return SVGCharts.modeColours[mode.rawValue]
    }

    static func scaleBar(metresPerPixel: Double) -> String {
        let candidates = [50.0, 100, 200, 500, 1000, 2000, 5000, 10_000]
        let metres = candidates.last { $0 / metresPerPixel <= 160 } ?? 50
        let length = metres / metresPerPixel
        let label = metres >= 1000 ? "\(Int(metres / 1000)) km" : "\(Int(metres)) m"
        return SVGCharts.line(12, height - 14, 12 + length, height - 14, colour: "#333")
            + SVGCharts.text(12 + length + 6, height - 10, label, anchor: "start")
    }

    static func legend() -> String {
        let y = height + 22
        var svg = ""
        var x = 8.0
        func swatch(_ colour: String, _ label: String) {
            svg += "<rect x=\"\(x)\" y=\"\(y - 9)\" width=\"14\" height=\"6\" fill=\"\(colour)\"/>"
            svg += SVGCharts.text(x + 18, y - 2, label, anchor: "start")
            x += 26 + Double(label.count) * 6.2
        }
        swatch(SVGCharts.modeColours[PowerMode.best.rawValue], "path, receiver in best mode")
        swatch(SVGCharts.modeColours[PowerMode.medium.rawValue], "in a lower mode")
        swatch(offColour, "receiver off")
        swatch(crossingColour, "true crossing (ring)")
        swatch(detectedColour, "reported transition, joined to its crossing")
        x = 8
        let second = y + 20
        svg += SVGCharts.text(x, second, "✕ false or duplicate transition   □ missed crossing (orange), or within the margin (grey)   fences: outlined brown where the path crossed them", anchor: "start")
        return svg
    }
}

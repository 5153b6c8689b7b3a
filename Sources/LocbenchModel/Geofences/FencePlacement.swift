import Foundation
import LocationEngine
import SyntheticGPS

/// A fence `locbench --geofences` monitors, and what its placement meant it to be.
public struct PlacedFence: Sendable, Hashable {
    /// How a fence was placed against the path.
    public enum Intent: String, Sendable, Hashable, Codable, CaseIterable {
        /// Across the path, which runs at least 60 m inside it where it was placed.
        case crossed
        /// Beside the path, its boundary 2–12 m over it: a touch shorter than any hysteresis margin.
        case touched
        /// 300 m to 5 km to the side of the path, and at least ``FencePlacement/farClearance`` from all of it.
        case far
    }

    /// The region.
    public var region: GeofenceRegion
    /// What the placement meant (the ground truth says what the path really did, see ``GroundTruth``).
    public var intent: Intent
}

/// Places fences along a trajectory, deterministically from a seed, as a city's fences lie around one route: one
/// across the path per kilometre of it (at most half of them), one just touching it per 3 km (at most a quarter),
/// and the rest far from it (300 m to 5 km to the side of some point of the path and, wherever the path winds, at
/// least 150 m from all of it); one in four a polygon (4 to 8 vertices, convex or not), the rest circles. Anchors
/// are drawn uniformly by distance along the path. None holds the start or comes within 200 m of it, so every
/// fence starts outside.
public enum FencePlacement {
    /// The least distance from the start to any fence, metres.
    public static let clearanceAtStart = 200.0
    /// How far along the path the first anchor may lie, metres: the start is left clear.
    public static let firstAnchor = clearanceAtStart + 500
    /// The least distance from the path to a far fence, metres (after ``attempts`` draws, a far fence is kept anyway).
    public static let farClearance = 150.0
    /// Draws per far fence before it is kept however near the path winds.
    static let attempts = 20
    /// Draws in a row that may fail to give a fence clear of the start before placement gives up: a path that
    /// winds around its start (a short walk round the block) may have no point where a fence across it stays
    /// ``clearanceAtStart`` away, and drawing on would never end. Enough that a path with such places finds them.
    static let drawsWithoutAFence = 10_000

    /// `count` fences along `path`, drawn from `seed`; fewer (perhaps none) when the path is too short to hold them
    /// or so near its start that ``drawsWithoutAFence`` draws in a row give no fence clear of it.
    /// - Complexity: O(count · v) for polygons of at most v vertices; at most ``drawsWithoutAFence`` draws per fence.
    public static func place(count: Int, along path: TruthPath, seed: UInt64) -> [PlacedFence] {
        var random = SeededGenerator(seed: seed).derived(stream: 77)
        let start = path.samples[0].point
        // Anchors are drawn uniformly by distance along the path, once the mover has left the start behind (by time,
        // a long stop would draw many fences to one spot).
        let first = firstAnchor
        let total = path.distanceAlong[path.distanceAlong.count - 1]
        guard total > first else { return [] }
        let crossed = min(count / 2, Int((total / 1000).rounded()))
        let touched = min(count / 4, Int((total / 3000).rounded()))
        var fences: [PlacedFence] = []
        fences.reserveCapacity(count)
        var rejected = 0
        var failedDraws = 0
        while fences.count < count {
            let anchor = path.sample(atDistance: first + random.nextUnit() * (total - first))
            let intent: PlacedFence.Intent = fences.count < crossed ? .crossed : fences.count < crossed + touched ? .touched : .far
            let polygon = random.chance(0.25)
            guard let region = fence(intent, polygon: polygon, at: anchor, on: path, random: &random),
                region.signedDistance(to: start) > clearanceAtStart
            else {
                failedDraws += 1
                if failedDraws == drawsWithoutAFence { return fences }
                continue
            }
            failedDraws = 0
            if intent == .far && rejected < attempts && GroundTruth.comesWithin(farClearance, of: region, along: path) {
                rejected += 1
                continue
            }
            rejected = 0
            fences.append(PlacedFence(region: region, intent: intent))
        }
        return fences
    }

    /// One fence of `intent` beside the sample `index`: centred on the normal to the path there.
    static func fence(
        _ intent: PlacedFence.Intent, polygon: Bool, at index: Int, on path: TruthPath, random: inout SeededGenerator
    ) -> GeofenceRegion? {
        let point = path.samples[index].point
        let (east, north) = direction(at: index, on: path)
        let side: Double = random.chance(0.5) ? 1 : -1
        // A polygon's inscribed radius is at least cos(π/n)·0.8 of its nominal one (n ≥ 4): 0.56.
        let inscribed = polygon ? 0.56 : 1.0
        let radius: Double
        let offset: Double
        switch intent {
        case .crossed:
            radius = random.uniform(80...400) / inscribed
            offset = random.uniform(0...max(0, radius * inscribed - 60))
        case .touched:
            radius = random.uniform(50...300)
            offset = radius - random.uniform(2...12)
        case .far:
            radius = random.uniform(50...500)
            offset = radius + random.uniform(300...5000)
        }
        // Touching needs an exact boundary: a circle.
        let centre = GeoPoint.offset(point, east: -north * side * offset, north: east * side * offset)
        if polygon && intent != .touched {
            let vertices = random.uniform(4...8.99)
            let count = Int(vertices)
            let rotation = random.uniform(0...(2 * Double.pi))
            var ring: [GeoPoint] = []
            for k in 0..<count {
                let angle = rotation + 2 * Double.pi * (Double(k) + random.uniform(-0.3...0.3)) / Double(count)
                let r = radius * random.uniform(0.8...1.0)
                ring.append(GeoPoint.offset(centre, east: r * sin(angle), north: r * cos(angle)))
            }
            if let region = try? GeofenceRegion.polygon(ring) { return region }
        }
        return try? GeofenceRegion.circle(centre: centre, radius: radius)
    }

    /// The unit direction of travel (east, north) at sample `index`, from the nearest samples that moved.
    static func direction(at index: Int, on path: TruthPath) -> (east: Double, north: Double) {
        let samples = path.samples
        var before = index, after = index
        while before > 0, path.distanceAlong[index] - path.distanceAlong[before] < 5 { before -= 1 }
        while after < samples.count - 1, path.distanceAlong[after] - path.distanceAlong[index] < 5 { after += 1 }
        let (east, north) = GeoPoint.metres(from: samples[before].point, to: samples[after].point)
        let length = (east * east + north * north).squareRoot()
        return length > 0 ? (east / length, north / length) : (0, 1)
    }
}

extension GeoPoint {
    /// Metres per degree of latitude on the engine's sphere (radius 6 371 008.8 m).
    static let metresPerDegree = 6_371_008.8 * Double.pi / 180

    /// The point `east` and `north` metres from `point` (a local equirectangular step: exact enough for the
    /// few kilometres a fence is placed from the path).
    static func offset(_ point: GeoPoint, east: Double, north: Double) -> GeoPoint {
        GeoPoint(
            latitude: point.latitude + north / metresPerDegree,
            longitude: point.longitude + east / (metresPerDegree * cos(point.latitude * Double.pi / 180)))
    }

    /// The east and north metres from `a` to `b`, in the local plane at `a`.
    static func metres(from a: GeoPoint, to b: GeoPoint) -> (east: Double, north: Double) {
        ((b.longitude - a.longitude) * metresPerDegree * cos(a.latitude * Double.pi / 180), (b.latitude - a.latitude) * metresPerDegree)
    }
}

/// A simple polygon ring in a region's local plane (see ``LocalFrame``), validated when it is made.
struct PlanarRing: Sendable, Hashable {
    /// The vertices, without a closing repeat of the first.
    let points: [PlanarPoint]

    /// Checks `points` (at least 3, distinct neighbours) for a simple ring with an area.
    ///
    /// - Complexity: O(n²) for n vertices (every pair of edges is tested; n is at most
    ///   ``GeofenceRegion/maximumVertices``, so at most about half a million tests, once per region).
    init(validating points: [PlanarPoint]) throws(GeofenceError) {
        let n = points.count
        // All the vertices within a centimetre of one line (the one through the first vertex and the
        // vertex farthest from it): no area.
        let first = points[0]
        let farthest = points.max { ($0 - first).length < ($1 - first).length }!
        let axis = farthest - first
        let spread = points.reduce(0.0) { max($0, abs(PlanarPoint.cross($1 - first, axis))) }
        if axis.length < 0.01 || spread / axis.length < 0.01 { throw .degenerateRing }
        // A vertex within a centimetre of the one kept before it is the same vertex to these checks (GIS exports
        // repeat a vertex a few millimetres off): an edge shorter than that is no stretch two others could touch
        // along. The ring keeps every vertex; an error names the first of the edges a checked one stands for.
        var kept: [Int] = []
        for index in 0..<n where kept.last.map({ (points[index] - points[$0]).length >= Self.touchingDistance }) ?? true {
            kept.append(index)
        }
        while kept.count > 1, (points[kept[kept.count - 1]] - points[kept[0]]).length < Self.touchingDistance { kept.removeLast() }
        guard kept.count >= 3 else { throw .degenerateRing }
        let m = kept.count
        for i in 0..<m {
            let a1 = points[kept[i]], a2 = points[kept[(i + 1) % m]]
            // The next edge doubling back along this one (a spike) touches it along a stretch.
            let a3 = points[kept[(i + 2) % m]]
            let edge = a2 - a1, next = a3 - a2
            if abs(PlanarPoint.cross(edge, next)) < Self.touchingDistance * edge.length && PlanarPoint.dot(edge, next) < 0 {
                throw .selfIntersecting(edge: kept[i], other: kept[(i + 1) % m])
            }
            var j = i + 2
            while j < m {
                if !(i == 0 && j == m - 1), Self.edgesTouch(a1, a2, points[kept[j]], points[kept[(j + 1) % m]]) {
                    throw .selfIntersecting(edge: kept[i], other: kept[j])
                }
                j += 1
            }
        }
        var doubleArea = 0.0
        for i in 0..<n { doubleArea += PlanarPoint.cross(points[i], points[(i + 1) % n]) }
        // A simple ring of less than a square metre: a sliver no fix could ever be decided inside.
        if abs(doubleArea) / 2 < 1 { throw .degenerateRing }
        self.points = points
    }

    /// Whether `p` is inside (even–odd rule; the ring is simple, so this is also the winding rule).
    /// - Complexity: O(n)
    func contains(_ p: PlanarPoint) -> Bool {
        var inside = false
        var previous = points[points.count - 1]
        for current in points {
            if (current.y > p.y) != (previous.y > p.y) {
                let crossingX = current.x + (p.y - current.y) * (previous.x - current.x) / (previous.y - current.y)
                if p.x < crossingX { inside.toggle() }
            }
            previous = current
        }
        return inside
    }

    /// The distance from `p` to the nearest edge.
    /// - Complexity: O(n)
    func distanceToBoundary(_ p: PlanarPoint) -> Double {
        var best = Double.infinity
        var previous = points[points.count - 1]
        for current in points {
            best = min(best, distance(from: p, toSegment: previous, current))
            previous = current
        }
        return best
    }

    /// How near two edges that are not neighbours may come, or an edge fold back along the one before it, before
    /// the ring counts as touching itself: 1 cm, the width under which a ring has no area. Exact tests missed a
    /// touch or a spike along a diagonal, whose projected vertex lands a few nanometres off the edge it lies on.
    static let touchingDistance = 0.01

    /// Whether edges `a1`–`a2` and `b1`–`b2` cross, or come within ``touchingDistance`` of each other.
    private static func edgesTouch(_ a1: PlanarPoint, _ a2: PlanarPoint, _ b1: PlanarPoint, _ b2: PlanarPoint) -> Bool {
        segmentsIntersect(a1, a2, b1, b2)
            || min(
                min(distance(from: a1, toSegment: b1, b2), distance(from: a2, toSegment: b1, b2)),
                min(distance(from: b1, toSegment: a1, a2), distance(from: b2, toSegment: a1, a2))) < touchingDistance
    }

    /// Whether the segment `a`–`b` meets an edge.
    /// - Complexity: O(n)
    func isCrossed(from a: PlanarPoint, to b: PlanarPoint) -> Bool {
        var previous = points[points.count - 1]
        for current in points {
            if segmentsIntersect(a, b, previous, current) { return true }
            previous = current
        }
        return false
    }
}

/// A point in a region's local plane, in metres east (`x`) and north (`y`) of the region's centre.
struct PlanarPoint: Sendable, Hashable {
    var x: Double
    var y: Double

    static func - (a: PlanarPoint, b: PlanarPoint) -> PlanarPoint { PlanarPoint(x: a.x - b.x, y: a.y - b.y) }

    /// The z component of the cross product `a × b`.
    @inline(__always) static func cross(_ a: PlanarPoint, _ b: PlanarPoint) -> Double { a.x * b.y - a.y * b.x }

    @inline(__always) static func dot(_ a: PlanarPoint, _ b: PlanarPoint) -> Double { a.x * b.x + a.y * b.y }

    var length: Double { (x * x + y * y).squareRoot() }
}

/// A local equirectangular projection about a region's centre: `x = Δλ·cos φ₀·k`, `y = Δφ·k` with `k`
/// metres per degree and `Δλ` wrapped into `-180..<180`, so a region across the antimeridian is as
/// continuous as any other.
///
/// This is enough at geofence scales: regions are at most ``GeofenceRegion/maximumExtent`` wide and lie
/// within ``GeofenceRegion/maximumLatitude``, and the decisions only need distances of tens to hundreds of
/// metres near the boundary. Inside/outside is exact by construction (the boundary *is* the straight ring
/// in this plane, and the map is one-to-one); a local distance is off by the factor `cos φ₀ / cos φ` across
/// east–west, about `tan φ · Δφ` — 1.4 % at 60° latitude 50 km from the centre, so 1.4 m on 100 m.
/// Circles do not use it: their distance, and whether a path passes through them, take the haversine to the
/// centre, which is exact.
struct LocalFrame: Sendable, Hashable {
    let centre: GeoPoint
    /// Metres per degree of longitude at the centre's latitude.
    let metresPerLongitudeDegree: Double

    init(centre: GeoPoint) {
        self.centre = centre
        self.metresPerLongitudeDegree = metresPerDegree * _cos(centre.latitude * .pi / 180)
    }

    /// `point` in this plane.
    @inline(__always)
    func project(_ point: GeoPoint) -> PlanarPoint {
        PlanarPoint(
            x: wrappedDegrees(point.longitude - centre.longitude) * metresPerLongitudeDegree,
            y: (point.latitude - centre.latitude) * metresPerDegree)
    }
}

/// The distance from `p` to the segment `a`–`b` in the plane.
@inline(__always)
func distance(from p: PlanarPoint, toSegment a: PlanarPoint, _ b: PlanarPoint) -> Double {
    let ab = b - a
    let ap = p - a
    let lengthSquared = PlanarPoint.dot(ab, ab)
    let t = lengthSquared > 0 ? min(1, max(0, PlanarPoint.dot(ap, ab) / lengthSquared)) : 0
    return PlanarPoint(x: ap.x - t * ab.x, y: ap.y - t * ab.y).length
}

/// Whether the closed segments `p1`–`p2` and `q1`–`q2` share a point (crossing or touching).
func segmentsIntersect(_ p1: PlanarPoint, _ p2: PlanarPoint, _ q1: PlanarPoint, _ q2: PlanarPoint) -> Bool {
    let d1 = PlanarPoint.cross(q2 - q1, p1 - q1)
    let d2 = PlanarPoint.cross(q2 - q1, p2 - q1)
    let d3 = PlanarPoint.cross(p2 - p1, q1 - p1)
    let d4 = PlanarPoint.cross(p2 - p1, q2 - p1)
    if ((d1 > 0 && d2 < 0) || (d1 < 0 && d2 > 0)) && ((d3 > 0 && d4 < 0) || (d3 < 0 && d4 > 0)) { return true }
    func onSegment(_ a: PlanarPoint, _ b: PlanarPoint, _ p: PlanarPoint) -> Bool {
        min(a.x, b.x) <= p.x && p.x <= max(a.x, b.x) && min(a.y, b.y) <= p.y && p.y <= max(a.y, b.y)
    }
    if d1 == 0 && onSegment(q1, q2, p1) { return true }
    if d2 == 0 && onSegment(q1, q2, p2) { return true }
    if d3 == 0 && onSegment(p1, p2, q1) { return true }
    if d4 == 0 && onSegment(p1, p2, q2) { return true }
    return false
}

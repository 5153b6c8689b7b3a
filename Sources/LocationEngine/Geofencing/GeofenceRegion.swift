/// A place to monitor: a circle or a polygon on the Earth's surface, checked when it is made.
///
/// Limits: a region spans at most ``maximumExtent`` metres, lies within ±``maximumLatitude``°, and a
/// polygon has 3 to ``maximumVertices`` vertices in a simple ring (no edge crosses or touches another).
/// A region across the antimeridian is fine. Anything else is a ``GeofenceError``.
///
/// ```swift
/// let depot = try GeofenceRegion.circle(centre: GeoPoint(latitude: 52.52, longitude: 13.405), radius: 150)
/// let yard = try GeofenceRegion.polygon([
///     GeoPoint(latitude: 52.50, longitude: 13.40), GeoPoint(latitude: 52.50, longitude: 13.41),
///     GeoPoint(latitude: 52.51, longitude: 13.41),
/// ])
/// ```
public struct GeofenceRegion: Sendable, Hashable {
    /// What a region is.
    public enum Shape: Sendable, Hashable {
        /// All points within `radius` metres (great-circle distance) of `centre`.
        case circle(centre: GeoPoint, radius: Double)
        /// The area enclosed by a ring of vertices (edges are straight in the region's local plane).
        case polygon([GeoPoint])
    }

    /// The widest a region may be, in metres (a circle's diameter, a polygon's bounding box sides).
    public static let maximumExtent = 100_000.0
    /// The highest latitude, north or south, any part of a region may reach.
    public static let maximumLatitude = 85.0
    /// The most vertices a polygon may have.
    public static let maximumVertices = 1024

    /// The region as it was given (a polygon without consecutive repeats and closing vertex).
    public let shape: Shape
    /// The local plane distances are measured in.
    let frame: LocalFrame
    /// A polygon's ring in that plane (`nil` for a circle).
    let ring: PlanarRing?
    /// The box holding the region.
    let bounds: GeoBounds

    /// A circle of `radius` metres around `centre`.
    public static func circle(centre: GeoPoint, radius: Double) throws(GeofenceError) -> GeofenceRegion {
        guard centre.isValid else { throw .invalidCentre }
        guard radius.isFinite && radius > 0 else { throw .invalidRadius }
        guard 2 * radius <= maximumExtent else { throw .regionTooLarge }
        let bounds = GeoBounds(around: centre, metres: radius)
        guard bounds.minLatitude >= -maximumLatitude && bounds.maxLatitude <= maximumLatitude else { throw .tooCloseToPole }
        return GeofenceRegion(shape: .circle(centre: centre, radius: radius), frame: LocalFrame(centre: centre), ring: nil, bounds: bounds)
    }

    /// The area inside a ring of `vertices` (in either direction; a closing repeat of the first vertex
    /// and consecutive repeats are dropped, longitude −180 being 180).
    /// - Complexity: O(n²) for n vertices, for the self-intersection check.
    public static func polygon(_ vertices: [GeoPoint]) throws(GeofenceError) -> GeofenceRegion {
        // Counted before anything else, so that an absurd ring costs nothing more than this.
        guard vertices.count <= maximumVertices + 1 else { throw .tooManyVertices(vertices.count) }
        var ring: [GeoPoint] = []
        ring.reserveCapacity(vertices.count)
        for (index, given) in vertices.enumerated() {
            guard given.isValid else { throw .invalidVertex(at: index) }
            // Longitude −180 is the same meridian as 180: written one way, so that a ring closed across the
            // antimeridian with the other drops its repeat rather than keep an edge of no length.
            let vertex = given.longitude == -180 ? GeoPoint(latitude: given.latitude, longitude: 180) : given
            if vertex != ring.last { ring.append(vertex) }
        }
        if ring.count > 1 && ring.first == ring.last { ring.removeLast() }
        // Distinct vertices, not only neighbours: a ring that goes a, b, a, b has two.
        let distinct = Set(ring).count
        guard distinct >= 3 else { throw .tooFewVertices(distinct) }
        guard ring.count <= maximumVertices else { throw .tooManyVertices(ring.count) }
        guard ring.allSatisfy({ abs($0.latitude) <= maximumLatitude }) else { throw .tooCloseToPole }
        let bounds = GeoBounds(enclosing: ring)
        let frame = LocalFrame(centre: bounds.centre)
        let height = (bounds.maxLatitude - bounds.minLatitude) * metresPerDegree
        let width = bounds.longitudeSpan * frame.metresPerLongitudeDegree
        guard height <= maximumExtent && width <= maximumExtent else { throw .regionTooLarge }
        let planar = try PlanarRing(validating: ring.map(frame.project))
        return GeofenceRegion(shape: .polygon(ring), frame: frame, ring: planar, bounds: bounds)
    }

    private init(shape: Shape, frame: LocalFrame, ring: PlanarRing?, bounds: GeoBounds) {
        self.shape = shape
        self.frame = frame
        self.ring = ring
        self.bounds = bounds
    }

    public static func == (lhs: GeofenceRegion, rhs: GeofenceRegion) -> Bool { lhs.shape == rhs.shape }

    public func hash(into hasher: inout Hasher) { hasher.combine(shape) }

    /// The signed distance in metres from `point` to the region's boundary: negative inside, positive
    /// outside, zero on it.
    /// - Complexity: O(1) for a circle, O(n) for a polygon of n vertices.
    public func signedDistance(to point: GeoPoint) -> Double {
        switch shape {
        case .circle(let centre, let radius):
            return centre.distance(to: point) - radius
        case .polygon:
            let ring = ring!
            let p = frame.project(point)
            let d = ring.distanceToBoundary(p)
            return ring.contains(p) ? -d : d
        }
    }

    /// Whether `point` is inside the region (or on its boundary).
    public func contains(_ point: GeoPoint) -> Bool { signedDistance(to: point) <= 0 }

    /// The distance in metres from `point` to the boundary, never more than the great-circle one: a
    /// circle's is exact; a polygon's, measured in its local plane, is scaled by the east–west stretch of
    /// that plane where the path to `point` runs nearer a pole than the region's centre (the plane's
    /// `cos φ₀` against the path's `cos φ`, at the pole-most latitude of the great-circle arcs from `point`
    /// to the region's bounds: an east–west arc bulges poleward of its ends). Tens of kilometres poleward of a polygon at 60° the plane
    /// distance is hundreds of metres long; a sleep planned on it would wake after the region could be
    /// decided.
    /// - Complexity: as ``signedDistance(to:)``.
    func boundaryDistanceAtMost(from point: GeoPoint) -> Double {
        let distance = abs(signedDistance(to: point))
        guard case .polygon = shape else { return distance }
        // The path to the nearest boundary point ends in the bounds: the pole-most latitude of the arcs to
        // its corners and centre (an arc to a far east–west point bulges poleward of both ends).
        let west = bounds.minLongitude, east = wrappedDegrees(bounds.minLongitude + bounds.longitudeSpan)
        let arcs = GreatCircleArcs(from: point)
        let poleward = max(
            arcs.poleMostLatitude(to: frame.centre),
            max(arcs.poleMostLatitude(to: GeoPoint(latitude: bounds.minLatitude, longitude: west)),
                arcs.poleMostLatitude(to: GeoPoint(latitude: bounds.minLatitude, longitude: east))),
            max(arcs.poleMostLatitude(to: GeoPoint(latitude: bounds.maxLatitude, longitude: west)),
                arcs.poleMostLatitude(to: GeoPoint(latitude: bounds.maxLatitude, longitude: east))))
        let stretch = _cos(min(90, poleward) * .pi / 180) / _cos(frame.centre.latitude * .pi / 180)
        return distance * min(1, stretch)
    }

    /// Whether the straight path from `a` to `b` (``GeoPoint/along(to:_:)``) passes through the region (both ends
    /// taken as outside).
    ///
    /// A circle is judged by the distance its inside is decided by, the haversine to its centre: the least along
    /// the path, by golden-section search (the distance is unimodal along a straight path), to a centimetre. The
    /// region's local plane would put a large circle's edges off its centre's meridian and parallel nearer than
    /// they are (tens of metres on a 50 km circle at 45°), and report a passage through a band no fix there would
    /// call inside.
    /// - Complexity: O(log(length / 1 cm)) distances for a circle; O(n) for a polygon of n vertices.
    func isCrossed(from a: GeoPoint, to b: GeoPoint) -> Bool {
        switch shape {
        case .circle(let centre, let radius):
            return Self.leastDistance(from: centre, along: a, b, below: radius) < radius
        case .polygon:
            return ring!.isCrossed(from: frame.project(a), to: frame.project(b))
        }
    }

    /// The least great-circle distance from `centre` to the straight path from `a` to `b`, or any distance under
    /// `enough` found on the way.
    private static func leastDistance(from centre: GeoPoint, along a: GeoPoint, _ b: GeoPoint, below enough: Double) -> Double {
        func distance(_ u: Double) -> Double { centre.distance(to: a.along(to: b, u)) }
        let ratio = (5.0.squareRoot() - 1) / 2
        let length = a.distance(to: b)
        var low = 0.0, high = 1.0
        var u1 = high - ratio, u2 = ratio
        var d1 = distance(u1), d2 = distance(u2)
        var least = min(distance(0), distance(1), d1, d2)
        while least >= enough && (high - low) * length > 0.01 {
            if d1 < d2 {
                high = u2
                u2 = u1
                d2 = d1
                u1 = high - ratio * (high - low)
                d1 = distance(u1)
            } else {
                low = u1
                u1 = u2
                d1 = d2
                u2 = low + ratio * (high - low)
                d2 = distance(u2)
            }
            least = min(least, d1, d2)
        }
        return least
    }
}

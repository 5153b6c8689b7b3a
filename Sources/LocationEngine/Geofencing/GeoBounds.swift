/// A latitude–longitude box, for the spatial index. The box across the antimeridian is one box: its
/// longitudes run from ``minLongitude`` east for ``longitudeSpan`` degrees, past 180 when it wraps.
struct GeoBounds: Sendable, Hashable {
    var minLatitude: Double
    var maxLatitude: Double
    /// The western edge, in `-180..<180`.
    var minLongitude: Double
    /// Degrees east from ``minLongitude`` to the eastern edge, in `0...360`.
    var longitudeSpan: Double

    /// A box around `centre` reaching `metres` in every direction (clamped to the poles; a full turn of
    /// longitude when it reaches one).
    init(around centre: GeoPoint, metres: Double) {
        // A distance that is not a number covers the world (a query then misses nothing); a negative one, none.
        let metres = metres.isNaN ? .infinity : max(0, metres)
        let latitudeReach = metres / metresPerDegree
        minLatitude = max(-90, centre.latitude - latitudeReach)
        maxLatitude = min(90, centre.latitude + latitudeReach)
        // Longitude degrees are shortest at the box's edge nearest a pole.
        let cosine = _cos(max(abs(minLatitude), abs(maxLatitude)) * .pi / 180)
        let longitudeReach = cosine > 1e-9 ? metres / (metresPerDegree * cosine) : .infinity
        if longitudeReach >= 180 {
            minLongitude = -180
            longitudeSpan = 360
        } else {
            minLongitude = wrappedDegrees(centre.longitude - longitudeReach)
            longitudeSpan = 2 * longitudeReach
        }
    }

    /// The smallest box holding `points` (which must span less than 180° of longitude, as a region does).
    init(enclosing points: [GeoPoint]) {
        let first = points[0]
        var minLatitude = first.latitude, maxLatitude = first.latitude
        var west = 0.0, east = 0.0
        for point in points {
            minLatitude = min(minLatitude, point.latitude)
            maxLatitude = max(maxLatitude, point.latitude)
            let offset = wrappedDegrees(point.longitude - first.longitude)
            west = min(west, offset)
            east = max(east, offset)
        }
        self.minLatitude = minLatitude
        self.maxLatitude = maxLatitude
        self.minLongitude = wrappedDegrees(first.longitude + west)
        self.longitudeSpan = east - west
    }

    /// The smallest box holding `a` and `b` (less than 180° of longitude apart), without building an array.
    init(enclosing a: GeoPoint, _ b: GeoPoint) {
        minLatitude = min(a.latitude, b.latitude)
        maxLatitude = max(a.latitude, b.latitude)
        let offset = wrappedDegrees(b.longitude - a.longitude)
        minLongitude = wrappedDegrees(a.longitude + min(0, offset))
        longitudeSpan = abs(offset)
    }

    /// The middle of the box.
    var centre: GeoPoint {
        GeoPoint(latitude: (minLatitude + maxLatitude) / 2, longitude: wrappedDegrees(minLongitude + longitudeSpan / 2))
    }

    /// The larger of the box's two sides in degrees.
    var largestSide: Double { max(maxLatitude - minLatitude, longitudeSpan) }

    /// Whether the boxes overlap (edges included).
    func intersects(_ other: GeoBounds) -> Bool {
        guard minLatitude <= other.maxLatitude && other.minLatitude <= maxLatitude else { return false }
        if longitudeSpan >= 360 || other.longitudeSpan >= 360 { return true }
        // Where the other box starts, measured east from this one's western edge, in 0..<360.
        var start = (other.minLongitude - minLongitude).truncatingRemainder(dividingBy: 360)
        if start < 0 { start += 360 }
        return start <= longitudeSpan || start + other.longitudeSpan >= 360
    }

    /// The smallest box holding both (the shorter way round in longitude).
    func union(_ other: GeoBounds) -> GeoBounds {
        var result = self
        result.minLatitude = min(minLatitude, other.minLatitude)
        result.maxLatitude = max(maxLatitude, other.maxLatitude)
        if longitudeSpan >= 360 || other.longitudeSpan >= 360 {
            result.minLongitude = -180
            result.longitudeSpan = 360
            return result
        }
        // Both boxes as offsets east of this one's western edge, the other put on the nearer side.
        var start = wrappedDegrees(other.minLongitude - minLongitude)
        if start + other.longitudeSpan / 2 < longitudeSpan / 2 - 180 { start += 360 }
        let west = min(0, start)
        let east = max(longitudeSpan, start + other.longitudeSpan)
        if east - west >= 360 {
            result.minLongitude = -180
            result.longitudeSpan = 360
        } else {
            result.minLongitude = wrappedDegrees(minLongitude + west)
            result.longitudeSpan = east - west
        }
        return result
    }
}

/// A point on the Earth's surface in degrees (WGS-84 latitude and longitude), as regions are drawn.
public struct GeoPoint: Sendable, Hashable, CustomStringConvertible {
    /// Latitude in degrees, positive north, in `-90...90`.
    public var latitude: Double
    /// Longitude in degrees, positive east, in `-180...180`.
    public var longitude: Double

    /// Creates a coordinate.
    @inlinable public init(latitude: Double, longitude: Double) {
        self.latitude = latitude
        self.longitude = longitude
    }

    /// The position of a fix.
    @inlinable public init(_ location: Location) {
        self.init(latitude: location.latitude, longitude: location.longitude)
    }

    /// Whether both values are finite and in range.
    public var isValid: Bool {
        latitude.isFinite && longitude.isFinite && (-90...90).contains(latitude) && (-180...180).contains(longitude)
    }

    /// Great-circle distance to `other` in metres (the same haversine as ``Location/distance(to:)``).
    public func distance(to other: GeoPoint) -> Double {
        Position(latitude: latitude, longitude: longitude).distance(to: Position(latitude: other.latitude, longitude: other.longitude))
    }

    public var description: String { "(\(latitude), \(longitude))" }

    /// The greatest absolute latitude, in degrees, on the great-circle arc (the shorter one) from this point
    /// to `other`: an end's, or the arc's vertex when the arc passes it. An arc between two points at one
    /// latitude bulges towards the pole (100 km east–west at 80° it passes 0.12° nearer it).
    /// - Complexity: O(1).
    func poleMostLatitude(onArcTo other: GeoPoint) -> Double { GreatCircleArcs(from: self).poleMostLatitude(to: other) }

    /// The point a fraction `u` of the way along the straight path to `other` — straight in latitude and
    /// longitude, across the antimeridian the short way: the path between two fixes that the crossing rules
    /// read.
    @inline(__always)
    func along(to other: GeoPoint, _ u: Double) -> GeoPoint {
        GeoPoint(
            latitude: latitude + (other.latitude - latitude) * u,
            longitude: wrappedDegrees(longitude + wrappedDegrees(other.longitude - longitude) * u))
    }
}

/// Metres per degree of latitude (and of longitude at the equator) on the sphere the engine's
/// haversine uses (radius 6 371 008.8 m).
let metresPerDegree = 6_371_008.8 * Double.pi / 180

/// `degrees` brought into `-180..<180` (for longitude differences across the antimeridian).
@inline(__always)
func wrappedDegrees(_ degrees: Double) -> Double {
    var value = degrees.truncatingRemainder(dividingBy: 360)
    if value >= 180 { value -= 360 } else if value < -180 { value += 360 }
    return value
}

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
    func poleMostLatitude(onArcTo other: GeoPoint) -> Double {
        let highest = max(abs(latitude), abs(other.latitude))
        func unit(_ p: GeoPoint) -> SIMD3<Double> {
            let φ = p.latitude * .pi / 180, λ = p.longitude * .pi / 180
            return SIMD3(_cos(φ) * _cos(λ), _cos(φ) * _sin(λ), _sin(φ))
        }
        func cross(_ u: SIMD3<Double>, _ v: SIMD3<Double>) -> SIMD3<Double> {
            SIMD3(u.y * v.z - u.z * v.y, u.z * v.x - u.x * v.z, u.x * v.y - u.y * v.x)
        }
        let a = unit(self), b = unit(other)
        let normal = cross(a, b)
        let length = (normal * normal).sum().squareRoot()
        guard length > 1e-15 else { return highest }
        let n = normal / length
        // The circle's northernmost point: the pole's direction less its part along the normal.
        let top = SIMD3<Double>(0, 0, 1) - n.z * n
        let topLength = (top * top).sum().squareRoot()
        guard topLength > 1e-15 else { return highest }
        var result = highest
        for vertex in [top / topLength, -top / topLength]
        where (cross(a, vertex) * n).sum() >= 0 && (cross(vertex, b) * n).sum() >= 0 {
            result = max(result, _asin(min(1, abs(vertex.z))) * 180 / .pi)
        }
        return result
    }

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

/// Metres per degree of latitude and longitude around a latitude, cached so that the many small
/// moves of a trajectory do not recompute the radii of curvature (they change by 2·10⁻⁵ relative over
/// the 0.001° the cache is reused for).
struct LocalScale: Sendable {
    private var latitude = Double.nan
    private var degreesPerMetreNorth = 0.0
    private var degreesPerMetreEast = 0.0

    /// Moves `latitude`/`longitude` (degrees) by `east`/`north` metres.
    @inline(__always)
    mutating func offset(latitude lat: inout Double, longitude lon: inout Double, east: Double, north: Double) {
        if !(abs(lat - latitude) < 0.001) { refresh(at: lat) }
        lat = min(90, max(-90, lat + north * degreesPerMetreNorth))
        lon += east * degreesPerMetreEast
        // Near a pole a metre east is many degrees: wrap by as many turns as it takes, not one.
        if !(-180..<180).contains(lon) {
            lon = (lon + 180).truncatingRemainder(dividingBy: 360)
            lon += lon < 0 ? 180 : -180
        }
    }

    private mutating func refresh(at lat: Double) {
        latitude = lat
        let phi = lat * Math.radians
        let (m, n) = WGS84.radii(latitude: phi)
        degreesPerMetreNorth = Math.degrees / m
        degreesPerMetreEast = Math.degrees / (n * max(Math.cos(phi), 1e-9))
    }
}

/// The WGS-84 ellipsoid and the conversions the receiver needs between geodetic coordinates, local
/// east/north/up displacements and Earth-centred Earth-fixed (ECEF) vectors.
@usableFromInline
enum WGS84 {
    /// Semi-major axis in metres.
    @usableFromInline static let a = 6_378_137.0
    /// Flattening.
    @usableFromInline static let f = 1 / 298.257_223_563
    /// First eccentricity squared.
    @usableFromInline static let e2 = f * (2 - f)

    /// The meridian radius of curvature M and the prime-vertical radius N at `latitude` (radians).
    @inlinable
    static func radii(latitude: Double) -> (meridian: Double, primeVertical: Double) {
        let s = Math.sin(latitude)
        let w2 = 1 - e2 * s * s
        let w = w2.squareRoot()
        return (a * (1 - e2) / (w2 * w), a / w)
    }

    /// The ECEF position in metres of a point at `latitude`/`longitude` (degrees) and `height` above the ellipsoid.
    @usableFromInline
    static func ecef(latitude: Double, longitude: Double, height: Double) -> SIMD3<Double> {
        let phi = latitude * Math.radians
        let lambda = longitude * Math.radians
        let (_, n) = radii(latitude: phi)
        let cosPhi = Math.cos(phi)
        return SIMD3(
            (n + height) * cosPhi * Math.cos(lambda),
            (n + height) * cosPhi * Math.sin(lambda),
            (n * (1 - e2) + height) * Math.sin(phi)
        )
    }

    /// Rotates the ECEF vector `d` into east/north/up components at `latitude`/`longitude` (degrees).
    @usableFromInline
    static func enu(_ d: SIMD3<Double>, latitude: Double, longitude: Double) -> SIMD3<Double> {
        let phi = latitude * Math.radians
        let lambda = longitude * Math.radians
        let sinPhi = Math.sin(phi), cosPhi = Math.cos(phi)
        let sinLambda = Math.sin(lambda), cosLambda = Math.cos(lambda)
        return SIMD3(
            -sinLambda * d.x + cosLambda * d.y,
            -sinPhi * cosLambda * d.x - sinPhi * sinLambda * d.y + cosPhi * d.z,
            cosPhi * cosLambda * d.x + cosPhi * sinLambda * d.y + sinPhi * d.z
        )
    }
}

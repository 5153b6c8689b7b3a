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

    /// Moves `latitude`/`longitude` (degrees) by a small `east`/`north` displacement in metres,
    /// exact to first order at the current point (the increments a trajectory integrates are metres long).
    @inlinable
    static func offset(
        latitude: inout Double, longitude: inout Double, east: Double, north: Double
    ) {
        let phi = latitude * Math.radians
        let (m, n) = radii(latitude: phi)
        latitude += north / m * Math.degrees
        let cosPhi = max(Math.cos(phi), 1e-9)
        longitude += east / (n * cosPhi) * Math.degrees
        if longitude >= 180 { longitude -= 360 } else if longitude < -180 { longitude += 360 }
        latitude = min(90, max(-90, latitude))
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

/// A GPS-like constellation: 30 satellites in six circular orbital planes inclined 55°, with a
/// half-sidereal-day period, propagated in Earth-fixed coordinates.
///
/// Simple Keplerian circles are enough for elevations and azimuths that move and rise and set the way
/// real ones do, and so for DOPs that vary plausibly; they are not ephemerides.
struct Constellation: Sendable {
    private struct Orbit: Sendable {
        var prn: Int
        var ascendingNode: Double
        var phase: Double
    }

    private let orbits: [Orbit]
    private static let radius = 26_559_700.0
    private static let meanMotion = 2 * Double.pi / 43_082.0
    private static let earthRotation = 7.292_115_146_7e-5
    private static let inclination = 55 * Math.radians

    /// The standard layout: six planes 60° apart, five satellites per plane 72° apart, neighbouring
    /// planes staggered by 15°.
    init() {
        var orbits: [Orbit] = []
        for plane in 0..<6 {
            for slot in 0..<5 {
                orbits.append(
                    Orbit(
                        prn: plane * 5 + slot + 1, ascendingNode: Double(plane) * 60 * Math.radians,
                        phase: (Double(slot) * 72 + Double(plane) * 15) * Math.radians
                    )
                )
            }
        }
        self.orbits = orbits
    }

    /// Satellites above `mask` degrees of elevation seen from a receiver at `latitude`/`longitude`
    /// (degrees) and `height` metres above the ellipsoid, at `unixTime`; SNR and use are left to the caller.
    ///
    /// - Complexity: O(number of satellites).
    func visible(
        unixTime: Double, latitude: Double, longitude: Double, height: Double, mask: Double
    ) -> [SatelliteObservation] {
        let receiver = WGS84.ecef(latitude: latitude, longitude: longitude, height: height)
        let sinI = Math.sin(Self.inclination), cosI = Math.cos(Self.inclination)
        var result: [SatelliteObservation] = []
        result.reserveCapacity(14)
        for orbit in orbits {
            let u = orbit.phase + Self.meanMotion * unixTime
            let node = orbit.ascendingNode - Self.earthRotation * unixTime
            let cosU = Math.cos(u), sinU = Math.sin(u)
            let cosNode = Math.cos(node), sinNode = Math.sin(node)
            let satellite = SIMD3(
                Self.radius * (cosU * cosNode - sinU * cosI * sinNode),
                Self.radius * (cosU * sinNode + sinU * cosI * cosNode),
                Self.radius * sinU * sinI
            )
            let local = WGS84.enu(satellite - receiver, latitude: latitude, longitude: longitude)
            let elevation = Math.atan2(local.z, Math.hypot(local.x, local.y)) * Math.degrees
            guard elevation >= mask else { continue }
            let azimuth = Math.normalizedDegrees(Math.atan2(local.x, local.y) * Math.degrees)
            result.append(SatelliteObservation(prn: orbit.prn, elevation: elevation, azimuth: azimuth, snr: 0, used: false))
        }
        return result
    }
}

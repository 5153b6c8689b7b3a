#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Speed, course and climb derived from two successive fixes, for receivers that report none (gpsd does the same).
///
/// Distances and bearings are geodesics on the WGS-84 ellipsoid (Vincenty's inverse formula), so derived
/// values agree with gpsd's to the precision it prints.
enum NMEAMotion {
    /// The last fix an epoch can be derived from.
    struct Fix: Sendable {
        var seconds: Double
        var latitude: Double
        var longitude: Double
        var altitude: Double?
    }

    /// The fastest motion derived, in metres per second: 1,000 knots. Civil receivers stop giving fixes
    /// above it (the export limit), so two fixes that imply more are jitter over a short interval or a
    /// jump, not motion, and nothing is derived from them.
    static let fastestDerivedSpeed = 1_000 * 1_852.0 / 3_600

    /// Fills the speed, track and climb the receiver left out, marking them in ``NMEAEpoch/derived``.
    ///
    /// A track is derived only with the speed: a receiver that reports its speed and leaves the course empty
    /// (a u-blox standing still does) says it cannot tell the course, and a bearing between two fixes
    /// centimetres apart would be jitter. `seconds` is the epoch's time on the same scale as `previous.seconds`.
    static func derive(_ epoch: inout NMEAEpoch, seconds: Double, from previous: Fix) {
        guard let latitude = epoch.latitude, let longitude = epoch.longitude else { return }
        let elapsed = seconds - previous.seconds
        guard elapsed > 0, elapsed.isFinite else { return }
        let reportedSpeed = epoch.speed != nil
        guard !reportedSpeed || epoch.climb == nil else { return }
        let (distance, bearing) = geodesic(from: (previous.latitude, previous.longitude), to: (latitude, longitude))
        guard distance / elapsed <= fastestDerivedSpeed else { return }
        if epoch.speed == nil {
            epoch.speed = distance / elapsed
            epoch.derived.insert(.speed)
        }
        if !reportedSpeed, epoch.track == nil, distance > 0 {
            epoch.track = bearing
            epoch.derived.insert(.track)
        }
        if epoch.climb == nil, epoch.mode == .threeD, let altitude = epoch.altitudeMSL, let before = previous.altitude {
            epoch.climb = (altitude - before) / elapsed
            epoch.derived.insert(.climb)
        }
    }

    /// Distance in metres and initial bearing in degrees [0, 360) from `a` to `b` on the WGS-84 ellipsoid.
    ///
    /// Vincenty's inverse method; falls back to the spherical formula on the rare antipodal inputs where it does not converge.
    static func geodesic(from a: (Double, Double), to b: (Double, Double)) -> (distance: Double, bearing: Double) {
        let semiMajor = 6_378_137.0
        let flattening = 1 / 298.257223563
        let semiMinor = semiMajor * (1 - flattening)
        let radians = Double.pi / 180
        let reducedA = atan((1 - flattening) * tan(a.0 * radians))
        let reducedB = atan((1 - flattening) * tan(b.0 * radians))
        let longitudeDifference = (b.1 - a.1) * radians
        let (sinA, cosA) = (sin(reducedA), cos(reducedA))
        let (sinB, cosB) = (sin(reducedB), cos(reducedB))
        var lambda = longitudeDifference
        var sinSigma = 0.0, cosSigma = 0.0, sigma = 0.0, cosSquaredAlpha = 0.0, cos2SigmaM = 0.0
        for _ in 0..<200 {
            let (sinLambda, cosLambda) = (sin(lambda), cos(lambda))
            sinSigma = ((cosB * sinLambda) * (cosB * sinLambda) + (cosA * sinB - sinA * cosB * cosLambda) * (cosA * sinB - sinA * cosB * cosLambda)).squareRoot()
            if sinSigma == 0 { return (0, 0) }
            cosSigma = sinA * sinB + cosA * cosB * cosLambda
            sigma = atan2(sinSigma, cosSigma)
            let sinAlpha = cosA * cosB * sinLambda / sinSigma
            cosSquaredAlpha = 1 - sinAlpha * sinAlpha
            cos2SigmaM = cosSquaredAlpha != 0 ? cosSigma - 2 * sinA * sinB / cosSquaredAlpha : 0
            let c = flattening / 16 * cosSquaredAlpha * (4 + flattening * (4 - 3 * cosSquaredAlpha))
            let previous = lambda
            lambda = longitudeDifference + (1 - c) * flattening * sinAlpha
                * (sigma + c * sinSigma * (cos2SigmaM + c * cosSigma * (-1 + 2 * cos2SigmaM * cos2SigmaM)))
            if abs(lambda - previous) < 1e-12 {
                let uSquared = cosSquaredAlpha * (semiMajor * semiMajor - semiMinor * semiMinor) / (semiMinor * semiMinor)
                let bigA = 1 + uSquared / 16_384 * (4_096 + uSquared * (-768 + uSquared * (320 - 175 * uSquared)))
                let bigB = uSquared / 1_024 * (256 + uSquared * (-128 + uSquared * (74 - 47 * uSquared)))
                let deltaSigma = bigB * sinSigma * (cos2SigmaM + bigB / 4 * (cosSigma * (-1 + 2 * cos2SigmaM * cos2SigmaM)
                    - bigB / 6 * cos2SigmaM * (-3 + 4 * sinSigma * sinSigma) * (-3 + 4 * cos2SigmaM * cos2SigmaM)))
                let distance = semiMinor * bigA * (sigma - deltaSigma)
                let bearing = atan2(cosB * sin(lambda), cosA * sinB - sinA * cosB * cos(lambda)) / radians
                return (distance, bearing < 0 ? bearing + 360 : bearing)
            }
        }
        // Nearly antipodal points: the spherical great circle is good enough for a derived speed.
        let distance = 6_371_008.8 * acos(min(1, max(-1, sin(a.0 * radians) * sin(b.0 * radians)
            + cos(a.0 * radians) * cos(b.0 * radians) * cos(longitudeDifference))))
        let bearing = atan2(sin(longitudeDifference) * cos(b.0 * radians),
            cos(a.0 * radians) * sin(b.0 * radians) - sin(a.0 * radians) * cos(b.0 * radians) * cos(longitudeDifference)) / radians
        return (distance, bearing < 0 ? bearing + 360 : bearing)
    }
}

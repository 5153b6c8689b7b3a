/// A position fix as the engine receives it from a ``LocationSource`` and delivers it to callers.
///
/// Units are SI throughout: degrees for angles, metres for distances and accuracies,
/// metres per second for speed. Optional fields are `nil` when the source does not know them;
/// a course of exactly `0` means "due north" and is a valid value.
public struct Location: Sendable, Hashable {
    /// Latitude in degrees, positive north, in `-90...90`.
    public var latitude: Double
    /// Longitude in degrees, positive east, in `-180...180`.
    public var longitude: Double
    /// Altitude above mean sea level in metres, when known.
    public var altitude: Double?
    /// Altitude above the WGS-84 ellipsoid in metres, when known.
    public var ellipsoidalAltitude: Double?
    /// Estimated horizontal error in metres (radius, about 68 % confidence). Must be `>= 0`.
    public var horizontalAccuracy: Double
    /// Estimated vertical error in metres, when known.
    public var verticalAccuracy: Double?
    /// Ground speed in metres per second, when known.
    public var speed: Double?
    /// Course over ground in degrees clockwise from true north, in `0..<360`, when known.
    public var course: Double?
    /// Whether ``speed`` or ``course`` were computed by the source from this fix and the previous one
    /// because the receiver reported none (they then lag and are noisy at low speed), not measured.
    public var motionIsDerived = false
    /// Whether ``horizontalAccuracy`` is the source's assumption rather than the receiver's estimate: the
    /// receiver reported nothing about its error (no error estimate, no dilution of precision), and the
    /// source assumed a radius from the kind of fix. It matches requests as a measured radius does; a
    /// caller that needs a measured one can tell.
    public var horizontalAccuracyIsEstimated = false
    /// The receiver's UTC time of the fix in seconds since 1970-01-01, when the source knows it.
    ///
    /// Recency is *not* judged from this value (receivers' clocks and virtual clocks disagree):
    /// the engine stamps every fix on its own clock when it arrives, minus the age the source reports.
    public var utcTime: Double?

    /// Creates a fix.
    public init(
        latitude: Double,
        longitude: Double,
        horizontalAccuracy: Double,
        altitude: Double? = nil,
        ellipsoidalAltitude: Double? = nil,
        verticalAccuracy: Double? = nil,
        speed: Double? = nil,
        course: Double? = nil,
        utcTime: Double? = nil
    ) {
        self.latitude = latitude
        self.longitude = longitude
        self.horizontalAccuracy = horizontalAccuracy
        self.altitude = altitude
        self.ellipsoidalAltitude = ellipsoidalAltitude
        self.verticalAccuracy = verticalAccuracy
        self.speed = speed
        self.course = course
        self.utcTime = utcTime
    }

    /// Whether the fix is usable at all: finite coordinates in range and a finite, non-negative accuracy.
    public var isValid: Bool {
        latitude.isFinite && longitude.isFinite && (-90...90).contains(latitude)
            && (-180...180).contains(longitude) && horizontalAccuracy.isFinite && horizontalAccuracy >= 0
    }

    /// Great-circle distance to `other` in metres (haversine on a sphere of radius 6 371 008.8 m).
    public func distance(to other: Location) -> Double {
        Position(self).distance(to: other)
    }
}

/// A bare position, for what needs no more than latitude and longitude.
struct Position: Sendable, Hashable {
    var latitude: Double
    var longitude: Double

    init(_ location: Location) {
        latitude = location.latitude
        longitude = location.longitude
    }

    init(latitude: Double, longitude: Double) {
        self.latitude = latitude
        self.longitude = longitude
    }

    /// Great-circle distance to `other` in metres (haversine on a sphere of radius 6 371 008.8 m).
    func distance(to other: Location) -> Double {
        distance(to: Position(other))
    }

    /// Great-circle distance to `other` in metres (haversine on a sphere of radius 6 371 008.8 m).
    func distance(to other: Position) -> Double {
        let radius = 6_371_008.8
        let toRadians = Double.pi / 180
        let phi1 = latitude * toRadians
        let phi2 = other.latitude * toRadians
        let dPhi = (other.latitude - latitude) * toRadians
        let dLambda = (other.longitude - longitude) * toRadians
        let sinPhi = _sin(dPhi / 2)
        let sinLambda = _sin(dLambda / 2)
        let a = sinPhi * sinPhi + _cos(phi1) * _cos(phi2) * sinLambda * sinLambda
        return 2 * radius * _asin(min(1, a.squareRoot()))
    }
}

#if canImport(Glibc)
import Glibc
@inline(__always) func _sin(_ x: Double) -> Double { Glibc.sin(x) }
@inline(__always) func _cos(_ x: Double) -> Double { Glibc.cos(x) }
@inline(__always) func _asin(_ x: Double) -> Double { Glibc.asin(x) }
#elseif canImport(Musl)
import Musl
@inline(__always) func _sin(_ x: Double) -> Double { Musl.sin(x) }
@inline(__always) func _cos(_ x: Double) -> Double { Musl.cos(x) }
@inline(__always) func _asin(_ x: Double) -> Double { Musl.asin(x) }
#else
import Darwin
@inline(__always) func _sin(_ x: Double) -> Double { Darwin.sin(x) }
@inline(__always) func _cos(_ x: Double) -> Double { Darwin.cos(x) }
@inline(__always) func _asin(_ x: Double) -> Double { Darwin.asin(x) }
#endif

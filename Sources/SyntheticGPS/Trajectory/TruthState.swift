/// Where the simulated device really is: the ground truth that the receiver's errors are added to.
public struct TruthState: Sendable, Hashable {
    /// Seconds since the scenario started.
    public var elapsed: Double
    /// Latitude in degrees.
    public var latitude: Double
    /// Longitude in degrees.
    public var longitude: Double
    /// Altitude above mean sea level in metres.
    public var altitude: Double
    /// Ground speed in m/s.
    public var speed: Double
    /// Direction of travel in degrees clockwise from true north, `0 ..< 360` (the last heading when stopped).
    public var course: Double

    /// Creates a truth sample.
    public init(elapsed: Double, latitude: Double, longitude: Double, altitude: Double, speed: Double, course: Double) {
        self.elapsed = elapsed
        self.latitude = latitude
        self.longitude = longitude
        self.altitude = altitude
        self.speed = speed
        self.course = course
    }
}

/// A point on the Earth in degrees.
public struct Coordinate: Sendable, Hashable {
    /// Latitude in degrees, `-90...90`.
    public var latitude: Double
    /// Longitude in degrees, `-180...180`.
    public var longitude: Double

    /// Creates a coordinate.
    public init(latitude: Double, longitude: Double) {
        self.latitude = latitude
        self.longitude = longitude
    }
}

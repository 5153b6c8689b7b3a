import LocationEngine

/// A position solution inside a ``SyntheticEpoch``.
public struct SyntheticFix: Sendable, Hashable {
    /// Latitude in degrees.
    public var latitude: Double
    /// Longitude in degrees.
    public var longitude: Double
    /// Altitude above mean sea level in metres; `nil` for a 2D (network) fix.
    public var altitude: Double?
    /// Radius in metres that holds the true position with 68 % probability (honest by construction).
    public var horizontalAccuracy: Double
    /// Vertical 1σ in metres (68 %); `nil` for a 2D fix.
    public var verticalAccuracy: Double?
    /// Ground speed in m/s; `nil` for network fixes.
    public var speed: Double?
    /// Course over ground in degrees, `0 ..< 360`; `nil` for network fixes.
    public var course: Double?

    /// Creates a fix.
    public init(
        latitude: Double, longitude: Double, altitude: Double?, horizontalAccuracy: Double,
        verticalAccuracy: Double?, speed: Double?, course: Double?
    ) {
        self.latitude = latitude
        self.longitude = longitude
        self.altitude = altitude
        self.horizontalAccuracy = horizontalAccuracy
        self.verticalAccuracy = verticalAccuracy
        self.speed = speed
        self.course = course
    }

    /// Whether the fix is three-dimensional.
    public var is3D: Bool { altitude != nil }

    /// The 1σ error per horizontal axis (north or east) that ``horizontalAccuracy`` stands for.
    public var axisSigma: Double { horizontalAccuracy / ErrorModel.confidenceScale }
}

/// One reporting instant of the receiver: what it output (a fix or none) and the ground truth.
public struct SyntheticEpoch: Sendable, Hashable {
    /// Seconds since the scenario started.
    public var elapsed: Double
    /// UTC time of the epoch in seconds since 1970.
    public var unixTime: Double
    /// The power mode the receiver was in.
    public var mode: PowerMode
    /// The solution, or `nil` when the receiver has no fix (acquiring, or the sky is blocked).
    public var fix: SyntheticFix?
    /// Dilutions of precision of the satellites used, when there is a satellite fix.
    public var dop: DilutionOfPrecision?
    /// Satellites tracked (empty in network modes and when the sky is blocked).
    public var satellites: [SatelliteObservation]
    /// How many satellites the fix uses.
    public var satellitesUsed: Int
    /// Geoid height above the ellipsoid at the site, in metres.
    public var geoidSeparation: Double
    /// Where the device really was.
    public var truth: TruthState

    /// Creates an epoch.
    public init(
        elapsed: Double, unixTime: Double, mode: PowerMode, fix: SyntheticFix?, dop: DilutionOfPrecision?,
        satellites: [SatelliteObservation], satellitesUsed: Int, geoidSeparation: Double, truth: TruthState
    ) {
        self.elapsed = elapsed
        self.unixTime = unixTime
        self.mode = mode
        self.fix = fix
        self.dop = dop
        self.satellites = satellites
        self.satellitesUsed = satellitesUsed
        self.geoidSeparation = geoidSeparation
        self.truth = truth
    }

    /// The fix as the engine's `Location`, or `nil` without a fix.
    public var location: Location? {
        guard let fix else { return nil }
        return Location(
            latitude: fix.latitude, longitude: fix.longitude, horizontalAccuracy: fix.horizontalAccuracy,
            altitude: fix.altitude, ellipsoidalAltitude: fix.altitude.map { $0 + geoidSeparation },
            verticalAccuracy: fix.verticalAccuracy, speed: fix.speed, course: fix.course, utcTime: unixTime
        )
    }

    /// Horizontal distance in metres between the reported and the true position (`nil` without a fix).
    public var horizontalError: Double? {
        guard let fix else { return nil }
        let phi = truth.latitude * Math.radians
        let (m, n) = WGS84.radii(latitude: phi)
        let north = (fix.latitude - truth.latitude) * Math.radians * m
        var dLon = fix.longitude - truth.longitude
        if dLon > 180 { dLon -= 360 } else if dLon < -180 { dLon += 360 }
        let east = dLon * Math.radians * n * Math.cos(phi)
        return Math.hypot(east, north)
    }
}

/// Everything a receiver reported for one navigation cycle (one fix).
///
/// The stream decoder opens an epoch with the first sentence that carries a new
/// UTC time of day and adds every following sentence to it until the time
/// changes; see ``NMEAStreamDecoder``. Fields stay `nil` when no sentence of the
/// epoch reported them. When ``mode`` is ``NMEAFixMode/noFix`` the position,
/// altitude, speed and track are cleared, as gpsd does, because receivers keep
/// printing their last position while they have no fix.
public struct NMEAEpoch: Sendable, Hashable {
    /// The talker of the first positional sentence of the epoch, e.g. `"GP"`, `"GN"`.
    public var talker: String
    /// UTC year (four digits) when known from RMC or ZDA, or carried over from an earlier epoch.
    public var year: Int?
    /// UTC month, 1–12.
    public var month: Int?
    /// UTC day of the month, 1–31.
    public var day: Int?
    /// UTC time of day in seconds (microsecond resolution).
    public var secondsOfDay: Double?
    /// The fix mode in gpsd's numbering.
    public var mode: NMEAFixMode
    /// GGA fix quality: 0 invalid, 1 GPS, 2 DGPS, 4 RTK fixed, 5 RTK float, 6 dead reckoning, ….
    public var ggaQuality: Int?
    /// Latitude in degrees, north positive.
    public var latitude: Double?
    /// Longitude in degrees, east positive.
    public var longitude: Double?
    /// Altitude above mean sea level (the geoid) in metres.
    public var altitudeMSL: Double?
    /// Height of the geoid above the WGS-84 ellipsoid in metres (GGA field 11).
    public var geoidSeparation: Double?
    /// Speed over ground in metres per second.
    public var speed: Double?
    /// Course over ground in degrees true.
    public var track: Double?
    /// Number of satellites used in the fix (GGA, else the count of GSA PRNs).
    public var satellitesUsed: Int?
    /// Satellites in view (GSV), in the order first reported, each marked `used` from GSA.
    public var satellites: [NMEASatellite]
    /// PRNs the GSA sentences of the epoch list as used, in the order reported, without duplicates.
    public var usedPRNs: [Int]
    /// Horizontal dilution of precision (GGA, else GSA).
    public var hdop: Double?
    /// Vertical dilution of precision (GSA).
    public var vdop: Double?
    /// Position dilution of precision (GSA).
    public var pdop: Double?
    /// GST 1-sigma latitude error in metres.
    public var gstLatitudeError: Double?
    /// GST 1-sigma longitude error in metres.
    public var gstLongitudeError: Double?
    /// GST 1-sigma altitude error in metres.
    public var gstAltitudeError: Double?

    /// Creates an empty epoch: everything `nil` or empty, mode `.unknown`, talker `"GP"`.
    public init() {
        talker = "GP"
        mode = .unknown
        satellites = []
        usedPRNs = []
    }

    /// Height above the WGS-84 ellipsoid in metres: ``altitudeMSL`` + ``geoidSeparation``.
    public var altitudeHAE: Double? {
        guard let altitudeMSL, let geoidSeparation else { return nil }
        return altitudeMSL + geoidSeparation
    }

    /// Seconds since 1970-01-01T00:00:00Z, when both the date and the time of day are known.
    ///
    /// The date is used as printed: no GPS week roll-over correction is applied.
    public var unixTime: Double? {
        guard let year, let month, let day, let secondsOfDay else { return nil }
        return Double(NMEACalendar.daysSince1970(year: year, month: month, day: day)) * 86_400 + secondsOfDay
    }

    /// Horizontal accuracy in metres, on gpsd's ~95 % scale.
    ///
    /// With GST errors: `2 × √(σlat² + σlon²)` (2DRMS, 95–98 % of fixes fall inside).
    /// Otherwise `HDOP × 19 m`, exactly what gpsd 3.22 reports as `eph`
    /// (a user-equivalent range error of 9.5 m at 2 sigma). `nil` without either.
    public var horizontalAccuracy: Double? {
        if let gstLatitudeError, let gstLongitudeError {
            return 2 * (gstLatitudeError * gstLatitudeError + gstLongitudeError * gstLongitudeError).squareRoot()
        }
        guard let hdop else { return nil }
        return hdop * NMEAEpoch.hdopToHorizontalError
    }

    /// Vertical accuracy in metres: `2 × σalt` from GST, else `VDOP × 23 m` (gpsd 3.22's `epv`).
    public var verticalAccuracy: Double? {
        if let gstAltitudeError { return 2 * gstAltitudeError }
        guard let vdop else { return nil }
        return vdop * NMEAEpoch.vdopToVerticalError
    }

    /// The factor from HDOP to gpsd's `eph`, in metres.
    public static let hdopToHorizontalError = 19.0
    /// The factor from VDOP to gpsd's `epv`, in metres.
    public static let vdopToVerticalError = 23.0
}

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
    /// Course over ground in degrees true: the direction of travel.
    public var track: Double?
    /// Rate of climb in metres per second (NMEA has no sentence for it: always derived, see ``derived``).
    public var climb: Double?
    /// Which of ``speed``, ``track`` and ``climb`` the decoder computed from this fix and the previous one
    /// because the receiver did not report them (see ``NMEADerivedFields``).
    public var derived: NMEADerivedFields = []
    /// True heading in degrees (HDT): where the vessel points, which differs from ``track`` in a current,
    /// a crosswind or when reversing. Only heading sentences set it; course over ground never does.
    public var heading: Double?
    /// Number of satellites used in the fix (GGA, else the count of ``usedSatellites``).
    public var satellitesUsed: Int?
    /// Satellites in view (GSV), one entry per satellite and signal, in the order first reported, each marked
    /// `used` when a GSA lists it.
    public var satellites: [NMEASatellite]
    /// The satellites the GSA sentences of the epoch list as used, in the order reported, without duplicates:
    /// GPS 13 and BeiDou 13 are two (``NMEASatelliteID``).
    public var usedSatellites: [NMEASatelliteID]
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
    /// The receiver's own estimated horizontal position error in metres (Garmin `$PGRME`, SiRF `$PSRFEPE`).
    public var estimatedHorizontalError: Double?
    /// The receiver's own estimated vertical position error in metres (Garmin `$PGRME`, SiRF `$PSRFEPE`).
    public var estimatedVerticalError: Double?

    /// Creates an empty epoch: everything `nil` or empty, mode `.unknown`, talker `"GP"`.
    public init() {
        talker = "GP"
        mode = .unknown
        satellites = []
        usedSatellites = []
    }

    /// Height above the WGS-84 ellipsoid in metres: ``altitudeMSL`` + ``geoidSeparation``.
    public var altitudeHAE: Double? {
        guard let altitudeMSL, let geoidSeparation else { return nil }
        return altitudeMSL + geoidSeparation
    }

    /// Seconds since 1970-01-01T00:00:00Z, when both the date and the time of day are known and the
    /// date exists (`nil` for February 30th).
    ///
    /// The date is used as printed: no GPS week roll-over correction is applied. Unix time has no leap
    /// seconds: a fix of `23:59:60` is put in the last millisecond of its day (its fraction a thousandth as
    /// long), before the midnight that follows and distinct from it.
    public var unixTime: Double? {
        guard let year, let month, let day, var secondsOfDay, NMEACalendar.isValid(year: year, month: month, day: day) else { return nil }
        if secondsOfDay >= 86_400 { secondsOfDay = 86_399.999 + (secondsOfDay - 86_400) / 1_000 }
        return Double(NMEACalendar.daysSince1970(year: year, month: month, day: day)) * 86_400 + secondsOfDay
    }

    /// Horizontal accuracy in metres, on gpsd's ~95 % scale.
    ///
    /// The receiver's own estimate when it printed one (`$PGRME`, `$PSRFEPE`); else, with GST errors,
    /// `2 × √(σlat² + σlon²)` (2DRMS, 95–98 % of fixes fall inside); otherwise HDOP × 19 m, or HDOP × 4.75 m
    /// for a differential fix (GGA quality 2), exactly what gpsd 3.22 reports as `eph`. `nil` without any.
    /// A value of 0 is no estimate (receivers print `0.0` for a DOP or an error they do not know): the next
    /// source in that order is used.
    public var horizontalAccuracy: Double? {
        if let estimatedHorizontalError, estimatedHorizontalError > 0 { return estimatedHorizontalError }
        if let gstLatitudeError, let gstLongitudeError {
            let error = 2 * (gstLatitudeError * gstLatitudeError + gstLongitudeError * gstLongitudeError).squareRoot()
            if error > 0 { return error }
        }
        return hdopHorizontalError
    }

    /// gpsd 3.22's `eph` from the HDOP alone: HDOP × 19 m, or × 4.75 m for a differential (DGPS) fix.
    public var hdopHorizontalError: Double? {
        guard let hdop, hdop > 0 else { return nil }
        return hdop * (ggaQuality == 2 ? NMEAEpoch.hdopToDifferentialHorizontalError : NMEAEpoch.hdopToHorizontalError)
    }

    /// Vertical accuracy in metres: the receiver's estimate, else `2 × σalt` from GST, else VDOP × 23 m, or
    /// VDOP × 5.75 m for a differential fix (gpsd 3.22's `epv`).
    public var verticalAccuracy: Double? {
        if let estimatedVerticalError, estimatedVerticalError > 0 { return estimatedVerticalError }
        if let gstAltitudeError, gstAltitudeError > 0 { return 2 * gstAltitudeError }
        guard let vdop, vdop > 0 else { return nil }
        return vdop * (ggaQuality == 2 ? NMEAEpoch.vdopToDifferentialVerticalError : NMEAEpoch.vdopToVerticalError)
    }

    /// The factor from HDOP to gpsd's `eph`, in metres.
    public static let hdopToHorizontalError = 19.0
    /// The factor from HDOP to gpsd's `eph` for a differential fix, in metres (corrections remove most of the range error).
    public static let hdopToDifferentialHorizontalError = 4.75
    /// The factor from VDOP to gpsd's `epv`, in metres.
    public static let vdopToVerticalError = 23.0
    /// The factor from VDOP to gpsd's `epv` for a differential fix, in metres.
    public static let vdopToDifferentialVerticalError = 5.75
}

/// The motion values of an epoch that the decoder derived from two successive fixes, as gpsd does,
/// because the receiver reported none. Consumers that need measured values can tell them apart.
public struct NMEADerivedFields: OptionSet, Sendable, Hashable {
    /// The bits of the set.
    public let rawValue: UInt8
    /// Creates the set from its bits.
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    /// Speed over ground: distance between the fixes over the time between them.
    public static let speed = NMEADerivedFields(rawValue: 1 << 0)
    /// Course over ground: the initial bearing from the previous fix to this one.
    public static let track = NMEADerivedFields(rawValue: 1 << 1)
    /// Rate of climb: altitude change over the time between the fixes.
    public static let climb = NMEADerivedFields(rawValue: 1 << 2)
}

/// RMC — recommended minimum specific GNSS data.
///
/// `$GPRMC,hhmmss.ss,A,llll.ll,a,yyyyy.yy,a,x.x,x.x,ddmmyy,x.x,a,m,s*hh`
public struct NMEARMC: Sendable, Hashable {
    /// UTC time of the fix.
    public var time: NMEATimeOfDay?
    /// `true` for status `A` (valid), `false` for `V` (warning), `nil` when empty.
    public var isValid: Bool?
    /// Latitude in degrees, north positive.
    public var latitude: Double?
    /// Longitude in degrees, east positive.
    public var longitude: Double?
    /// Speed over ground in knots.
    public var speedKnots: Double?
    /// Course over ground, degrees true.
    public var track: Double?
    /// UTC date; two-digit years 80–99 are 19xx, 00–79 are 20xx. No GPS week roll-over correction.
    public var date: NMEADate?
    /// Magnetic variation in degrees, east positive.
    public var magneticVariation: Double?
    /// The FAA mode indicator of NMEA 2.3+ (`A`, `D`, `E`, `N`, …) as an ASCII byte.
    public var faaMode: UInt8?

    /// Decodes the data fields. At least nine fields (through the date) are required.
    init(_ fields: inout NMEAFieldCursor) throws(NMEAError) {
        try fields.require(9)
        time = try fields.next().timeOfDay()
        isValid = try fields.next().status()
        let latitudeField = fields.next()
        latitude = try latitudeField.angle(hemisphere: fields.next(), positive: 0x4E, negative: 0x53, limit: 90)
        let longitudeField = fields.next()
        longitude = try longitudeField.angle(hemisphere: fields.next(), positive: 0x45, negative: 0x57, limit: 180)
        speedKnots = try fields.next().decimal(in: NMEALimits.speedKnots)
        track = try fields.next().decimal(in: NMEALimits.course)
        date = try fields.next().twoDigitYearDate()
        let variation = try fields.next().decimal(in: 0...180)
        let direction = try fields.next().character()
        if let variation { magneticVariation = direction == 0x57 ? -variation : variation }
        faaMode = try fields.next().character()
    }
}

/// A UTC calendar date.
public struct NMEADate: Sendable, Hashable {
    /// Four-digit year.
    public var year: Int
    /// Month, 1–12.
    public var month: Int
    /// Day of the month, 1–31.
    public var day: Int

    /// Creates a date; the caller guarantees it is valid.
    public init(year: Int, month: Int, day: Int) {
        self.year = year
        self.month = month
        self.day = day
    }
}

extension NMEAField {
    /// A status letter: `A` → `true`, `V` → `false`, empty → `nil`.
    func status() throws(NMEAError) -> Bool? {
        switch try character() {
        case nil: return nil
        case 0x41: return true
        case 0x56: return false
        default: throw error(.invalidField)
        }
    }

    /// An RMC date `ddmmyy`, `nil` when empty.
    func twoDigitYearDate() throws(NMEAError) -> NMEADate? {
        if isEmpty { return nil }
        guard bytes.count == 6, let value = try integer() else { throw error(.invalidField) }
        let (day, month, yy) = (value / 10_000, value / 100 % 100, value % 100)
        let year = yy < 80 ? 2000 + yy : 1900 + yy
        guard NMEACalendar.isValid(year: year, month: month, day: day) else { throw error(.outOfRange) }
        return NMEADate(year: year, month: month, day: day)
    }
}

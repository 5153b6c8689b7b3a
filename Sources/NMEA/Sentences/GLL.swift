/// GLL — geographic position, latitude/longitude, with time and status.
///
/// `$GPGLL,llll.ll,a,yyyyy.yy,a,hhmmss.ss,A[,m]*hh`
public struct NMEAGLL: Sendable, Hashable {
    /// Latitude in degrees, north positive.
    public var latitude: Double?
    /// Longitude in degrees, east positive.
    public var longitude: Double?
    /// UTC time of the position.
    public var time: NMEATimeOfDay?
    /// `true` for status `A` (valid), `false` for `V`.
    public var isValid: Bool?
    /// The FAA mode indicator of NMEA 2.3+, as an ASCII byte.
    public var faaMode: UInt8?

    /// Decodes the data fields. At least the four position fields are required (NMEA 1.5 GLL has no time).
    init(_ fields: inout NMEAFieldCursor) throws(NMEAError) {
        try fields.require(4)
        let latitudeField = fields.next()
        latitude = try latitudeField.angle(hemisphere: fields.next(), positive: 0x4E, negative: 0x53, limit: 90)
        let longitudeField = fields.next()
        longitude = try longitudeField.angle(hemisphere: fields.next(), positive: 0x45, negative: 0x57, limit: 180)
        time = try fields.next().timeOfDay()
        isValid = try fields.next().status()
        faaMode = try fields.next().character()
    }
}

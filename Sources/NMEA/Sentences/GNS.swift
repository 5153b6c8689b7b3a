/// GNS — GNSS fix data for several constellations at once (NMEA 3.0+).
///
/// `$GNGNS,hhmmss.ss,llll.ll,a,yyyyy.yy,a,mm…,nn,h.h,a.a,g.g,t.t,ssss[,s]*hh`
public struct NMEAGNS: Sendable, Hashable {
    /// UTC time of the fix.
    public var time: NMEATimeOfDay?
    /// Latitude in degrees, north positive.
    public var latitude: Double?
    /// Longitude in degrees, east positive.
    public var longitude: Double?
    /// One mode letter per constellation (GPS, GLONASS, Galileo, BeiDou, …): `N` no fix, `A` autonomous,
    /// `D` differential, `P` precise, `R` RTK fixed, `F` RTK float, `E` estimated, `M` manual, `S` simulator.
    /// Up to eight ASCII letters: a small string, stored inline without allocating.
    public var modes: String
    /// Satellites used in the fix, all constellations together.
    public var satellitesUsed: Int?
    /// Horizontal dilution of precision.
    public var hdop: Double?
    /// Antenna altitude above mean sea level, metres.
    public var altitudeMSL: Double?
    /// Geoid height above the WGS-84 ellipsoid, metres.
    public var geoidSeparation: Double?

    /// Decodes the data fields. At least the first nine (through the altitude) are required.
    init(_ fields: inout NMEAFieldCursor) throws(NMEAError) {
        try fields.require(9)
        (time, latitude, longitude) = try fields.fixTimeAndPosition()
        let modeField = fields.next()
        guard modeField.bytes.count <= 8, modeField.bytes.allSatisfy({ $0 >= 0x41 && $0 <= 0x5A }) else {
            throw modeField.error(.invalidField)
        }
        modes = String(decoding: modeField.bytes, as: UTF8.self)
        (satellitesUsed, hdop, altitudeMSL, geoidSeparation) = try fields.fixSatellitesHDOPAndHeights(
            maximumSatellites: 999, unitFields: false)
    }

    /// Whether any constellation reports a real fix (a mode other than `N`, `S` simulator and `M` manual input).
    public var hasFix: Bool {
        modes.utf8.contains { $0 != 0x4E && $0 != 0x53 && $0 != 0x4D }
    }
}

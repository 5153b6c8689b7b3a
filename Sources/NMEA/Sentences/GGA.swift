/// GGA — global positioning system fix data.
///
/// `$GPGGA,hhmmss.ss,llll.ll,a,yyyyy.yy,a,q,nn,h.h,a.a,M,g.g,M,t.t,ssss*hh`
public struct NMEAGGA: Sendable, Hashable {
    /// UTC time of the fix.
    public var time: NMEATimeOfDay?
    /// Latitude in degrees, north positive.
    public var latitude: Double?
    /// Longitude in degrees, east positive.
    public var longitude: Double?
    /// Fix quality: 0 invalid, 1 GPS, 2 DGPS, 3 PPS, 4 RTK fixed, 5 RTK float, 6 estimated, 7 manual, 8 simulator.
    public var quality: Int?
    /// Satellites used in the fix.
    public var satellitesUsed: Int?
    /// Horizontal dilution of precision.
    public var hdop: Double?
    /// Antenna altitude above mean sea level, metres.
    public var altitudeMSL: Double?
    /// Geoid height above the WGS-84 ellipsoid, metres.
    public var geoidSeparation: Double?
    /// Age of the differential corrections, seconds.
    public var differentialAge: Double?
    /// Differential reference station identifier.
    public var differentialStation: Int?

    /// Decodes the data fields. At least ten fields (through the altitude unit) are required.
    init(_ fields: inout NMEAFieldCursor) throws(NMEAError) {
        try fields.require(10)
        (time, latitude, longitude) = try fields.fixTimeAndPosition()
        let qualityField = fields.next()
        quality = try qualityField.integer()
        if let quality, quality > 9 { throw qualityField.error(.outOfRange) }
        (satellitesUsed, hdop, altitudeMSL, geoidSeparation) = try fields.fixSatellitesHDOPAndHeights(
            maximumSatellites: 99, unitFields: true)
        differentialAge = try fields.next().decimal(in: 0...99_999)
        differentialStation = try fields.next().integer()
    }
}

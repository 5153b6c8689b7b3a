/// The fields GGA and GNS share, decoded in one place.
///
/// Both sentences start with the UTC time and the position, then one field of their own (GGA's fix
/// quality, GNS's mode letters), then satellites used, HDOP, altitude above mean sea level and geoid
/// separation. They differ in how many digits the satellite count may have and in GGA's unit letter
/// (`M`) after each height; the caller says which. Errors name the field by the sentence's own numbering.
extension NMEAFieldCursor {
    /// Decodes fields 1–5: the UTC time, then latitude and longitude, each followed by its hemisphere letter.
    ///
    /// - Returns: the time, and latitude and longitude in degrees (north and east positive); each `nil`
    ///   when its fields are empty.
    @inline(__always)
    mutating func fixTimeAndPosition() throws(NMEAError) -> (time: NMEATimeOfDay?, latitude: Double?, longitude: Double?) {
        let time = try next().timeOfDay()
        let latitudeField = next()
        let latitude = try latitudeField.angle(hemisphere: next(), positive: 0x4E, negative: 0x53, limit: 90)
        let longitudeField = next()
        let longitude = try longitudeField.angle(hemisphere: next(), positive: 0x45, negative: 0x57, limit: 180)
        return (time, latitude, longitude)
    }

    /// Decodes the fields after the sentence's own: satellites used, HDOP, altitude above mean sea level
    /// and geoid separation, each `nil` when empty.
    ///
    /// One call per GGA or GNS: at this size the optimizer would not honour `@inline(__always)` (it does
    /// only for callees of at most 64 blocks once the caller is that large).
    ///
    /// - Parameters:
    ///   - maximumSatellites: the largest count the satellite field holds (99 in GGA, 999 in GNS);
    ///     a larger one is `.outOfRange`.
    ///   - unitFields: whether a unit letter (`M`) follows the altitude and the geoid separation, as in
    ///     GGA; it is skipped unread.
    mutating func fixSatellitesHDOPAndHeights(maximumSatellites: Int, unitFields: Bool) throws(NMEAError)
        -> (satellitesUsed: Int?, hdop: Double?, altitudeMSL: Double?, geoidSeparation: Double?)
    {
        let satellitesField = next()
        let satellitesUsed = try satellitesField.integer()
        if let satellitesUsed, satellitesUsed > maximumSatellites { throw satellitesField.error(.outOfRange) }
        let hdop = try next().decimal(in: NMEALimits.dop)
        let altitudeMSL = try next().decimal(in: NMEALimits.altitude)
        if unitFields { skip(1) }
        let geoidSeparation = try next().decimal(in: NMEALimits.geoidSeparation)
        if unitFields { skip(1) }
        return (satellitesUsed, hdop, altitudeMSL, geoidSeparation)
    }
}

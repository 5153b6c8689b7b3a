/// `$PGRME` — Garmin's estimated position errors, in metres.
///
/// `$PGRME,hhh.h,M,vvv.v,M,eee.e,M*hh`: horizontal, vertical and spherical estimated position error.
public struct NMEAPGRME: Sendable, Hashable {
    /// Estimated horizontal position error, metres.
    public var horizontalError: Double?
    /// Estimated vertical position error, metres.
    public var verticalError: Double?
    /// Estimated overall (spherical) position error, metres.
    public var sphericalError: Double?

    /// Decodes the data fields. The three values (with their units) are required.
    init(_ fields: inout NMEAFieldCursor) throws(NMEAError) {
        try fields.require(5)
        horizontalError = try fields.next().decimal(in: NMEALimits.sigma)
        fields.skip(1)
        verticalError = try fields.next().decimal(in: NMEALimits.sigma)
        fields.skip(1)
        sphericalError = try fields.next().decimal(in: NMEALimits.sigma)
    }
}

/// `$PGRMZ` — Garmin's altitude in feet, with the fix dimension.
///
/// `$PGRMZ,aaaa,f,d*hh`: altitude above mean sea level in feet; `d` is 2 for a 2D fix and 3 for a 3D fix.
public struct NMEAPGRMZ: Sendable, Hashable {
    /// Altitude above mean sea level, metres (converted from feet).
    public var altitudeMSL: Double?
    /// Fix dimension: 1 none, 2 two-dimensional, 3 three-dimensional (`nil` when empty).
    public var dimension: Int?

    /// One foot in metres.
    public static let metresPerFoot = 0.3048

    /// Decodes the data fields. The altitude and its unit are required; the unit must be feet.
    init(_ fields: inout NMEAFieldCursor) throws(NMEAError) {
        try fields.require(2)
        let feet = try fields.next().decimal(in: (NMEALimits.altitude.lowerBound / 0.3048)...(NMEALimits.altitude.upperBound / 0.3048))
        let unit = fields.next()
        if feet != nil, try unit.character() != 0x66 { throw unit.error(.invalidField) }
        altitudeMSL = feet.map { $0 * Self.metresPerFoot }
        let dimensionField = fields.next()
        dimension = try dimensionField.integer()
        if let dimension, !(1...3).contains(dimension) { throw dimensionField.error(.outOfRange) }
    }
}

/// `$PSRFEPE` — SiRF's estimated position errors for the fix of a given time.
///
/// `$PSRFEPE,hhmmss.sss,A,h.h,eeee.e,vvvv.v,s.s,d.d*hh`: time, status (`A` valid, `V` not), HDOP, estimated
/// horizontal and vertical position errors (metres), estimated horizontal velocity error (m/s) and
/// heading error (degrees).
public struct NMEAPSRFEPE: Sendable, Hashable {
    /// UTC time of the fix the estimates belong to.
    public var time: NMEATimeOfDay?
    /// `true` for status `A`, `false` for `V`.
    public var isValid: Bool?
    /// Horizontal dilution of precision.
    public var hdop: Double?
    /// Estimated horizontal position error, metres.
    public var horizontalError: Double?
    /// Estimated vertical position error, metres.
    public var verticalError: Double?
    /// Estimated horizontal velocity error, m/s.
    public var speedError: Double?
    /// Estimated heading error, degrees.
    public var headingError: Double?

    /// Decodes the data fields. Time and status are required.
    init(_ fields: inout NMEAFieldCursor) throws(NMEAError) {
        try fields.require(2)
        time = try fields.next().timeOfDay()
        isValid = try fields.next().status()
        hdop = try fields.next().decimal(in: NMEALimits.dop)
        horizontalError = try fields.next().decimal(in: NMEALimits.sigma)
        verticalError = try fields.next().decimal(in: NMEALimits.sigma)
        speedError = try fields.next().decimal(in: NMEALimits.sigma)
        headingError = try fields.next().decimal(in: 0...360)
    }
}

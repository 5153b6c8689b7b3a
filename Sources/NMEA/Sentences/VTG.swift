/// VTG — course over ground and ground speed.
///
/// `$GPVTG,054.7,T,034.4,M,005.5,N,010.2,K[,m]*hh`
public struct NMEAVTG: Sendable, Hashable {
    /// Course over ground, degrees true.
    public var trackTrue: Double?
    /// Course over ground, degrees magnetic.
    public var trackMagnetic: Double?
    /// Speed over ground, knots.
    public var speedKnots: Double?
    /// Speed over ground, km/h.
    public var speedKilometresPerHour: Double?
    /// The FAA mode indicator of NMEA 2.3+ (`N` means the data are not valid), as an ASCII byte.
    public var faaMode: UInt8?

    /// Decodes the data fields. The eight value/unit fields are required.
    init(_ fields: inout NMEAFieldCursor) throws(NMEAError) {
        try fields.require(8)
        trackTrue = try fields.next().decimal(in: NMEALimits.course)
        fields.skip(1)
        trackMagnetic = try fields.next().decimal(in: NMEALimits.course)
        fields.skip(1)
        speedKnots = try fields.next().decimal(in: NMEALimits.speedKnots)
        fields.skip(1)
        speedKilometresPerHour = try fields.next().decimal(in: 0...(NMEALimits.speedKnots.upperBound * 1.852))
        fields.skip(1)
        faaMode = try fields.next().character()
    }

    /// Speed over ground in m/s, from knots when present, else from km/h.
    public var speed: Double? {
        if let speedKnots { return speedKnots * NMEAUnits.metresPerSecondPerKnot }
        return speedKilometresPerHour.map { $0 / 3.6 }
    }
}

/// Unit conversions shared by decoder and encoder.
public enum NMEAUnits {
    /// One knot in m/s (1852 m per hour), the factor gpsd uses.
    public static let metresPerSecondPerKnot = 1852.0 / 3600.0
}

/// GST — GNSS pseudorange error statistics.
///
/// `$GPGST,hhmmss.ss,rms,major,minor,orient,latErr,lonErr,altErr*hh` (errors are 1-sigma metres).
public struct NMEAGST: Sendable, Hashable {
    /// UTC time of the associated fix.
    public var time: NMEATimeOfDay?
    /// RMS of the pseudorange residuals, metres.
    public var rangeRMS: Double?
    /// 1-sigma semi-major axis of the error ellipse, metres.
    public var semiMajor: Double?
    /// 1-sigma semi-minor axis of the error ellipse, metres.
    public var semiMinor: Double?
    /// Orientation of the semi-major axis, degrees from true north.
    public var orientation: Double?
    /// 1-sigma latitude error, metres.
    public var latitudeError: Double?
    /// 1-sigma longitude error, metres.
    public var longitudeError: Double?
    /// 1-sigma altitude error, metres.
    public var altitudeError: Double?

    /// Decodes the data fields. All eight are required.
    init(_ fields: inout NMEAFieldCursor) throws(NMEAError) {
        try fields.require(8)
        time = try fields.next().timeOfDay()
        rangeRMS = try fields.next().decimal(in: NMEALimits.sigma)
        semiMajor = try fields.next().decimal(in: NMEALimits.sigma)
        semiMinor = try fields.next().decimal(in: NMEALimits.sigma)
        orientation = try fields.next().decimal(in: -360...360)
        latitudeError = try fields.next().decimal(in: NMEALimits.sigma)
        longitudeError = try fields.next().decimal(in: NMEALimits.sigma)
        altitudeError = try fields.next().decimal(in: NMEALimits.sigma)
    }
}

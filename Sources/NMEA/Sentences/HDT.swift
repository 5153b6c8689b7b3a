/// HDT — true heading: where the vessel points, from a gyro or dual-antenna compass.
///
/// `$HEHDT,x.x,T*hh`. Heading is not the course over ground: a boat in a current, or a car reversing,
/// points one way and moves another, so the decoder keeps the two apart.
public struct NMEAHDT: Sendable, Hashable {
    /// Heading in degrees from true north.
    public var heading: Double?

    /// Decodes the data fields. The heading is required (it may be empty).
    init(_ fields: inout NMEAFieldCursor) throws(NMEAError) {
        try fields.require(1)
        heading = try fields.next().decimal(in: NMEALimits.course)
    }
}

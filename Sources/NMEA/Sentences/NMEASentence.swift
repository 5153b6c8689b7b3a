/// One decoded sentence: who sent it, whether it carried a checksum, and its content.
public struct NMEASentence: Sendable, Hashable {
    /// The talker from the address, e.g. `GP`.
    public var talker: NMEATalker
    /// Whether the checksum was present (and then necessarily valid) or absent.
    public var checksum: NMEAChecksumStatus
    /// The decoded fields.
    public var body: Body

    /// The decoded fields of each supported sentence type.
    public enum Body: Sendable, Hashable {
        /// A GGA sentence.
        case gga(NMEAGGA)
        /// An RMC sentence.
        case rmc(NMEARMC)
        /// A GSA sentence.
        case gsa(NMEAGSA)
        /// A GSV sentence.
        case gsv(NMEAGSV)
        /// A GLL sentence.
        case gll(NMEAGLL)
        /// A VTG sentence.
        case vtg(NMEAVTG)
        /// A GST sentence.
        case gst(NMEAGST)
        /// A ZDA sentence.
        case zda(NMEAZDA)
        /// A GNS sentence.
        case gns(NMEAGNS)
        /// An HDT sentence.
        case hdt(NMEAHDT)
        /// A Garmin `$PGRME` sentence.
        case pgrme(NMEAPGRME)
        /// A Garmin `$PGRMZ` sentence.
        case pgrmz(NMEAPGRMZ)
        /// A SiRF `$PSRFEPE` sentence.
        case psrfepe(NMEAPSRFEPE)
    }

    /// The sentence type.
    @inline(__always)
    public var kind: NMEASentenceKind {
        switch body {
        case .gga: .gga
        case .rmc: .rmc
        case .gsa: .gsa
        case .gsv: .gsv
        case .gll: .gll
        case .vtg: .vtg
        case .gst: .gst
        case .zda: .zda
        case .gns: .gns
        case .hdt: .hdt
        case .pgrme: .pgrme
        case .pgrmz: .pgrmz
        case .psrfepe: .psrfepe
        }
    }

    /// The UTC time of day the sentence carries, if its type has one and the field was filled.
    @inline(__always)
    public var timeOfDay: NMEATimeOfDay? {
        switch body {
        case .gga(let gga): gga.time
        case .rmc(let rmc): rmc.time
        case .gll(let gll): gll.time
        case .gst(let gst): gst.time
        case .zda(let zda): zda.time
        case .gns(let gns): gns.time
        case .psrfepe(let epe): epe.time
        case .gsa, .gsv, .vtg, .hdt, .pgrme, .pgrmz: nil
        }
    }
}

/// Whether a decoded sentence carried a checksum. Sentences with a wrong checksum are never decoded.
public enum NMEAChecksumStatus: Sendable, Hashable {
    /// `*HH` was present and matched.
    case valid
    /// No `*HH`; accepted under the checksum policy.
    case absent
}

/// When a sentence without `*HH` is accepted.
///
/// NMEA 0183 made the checksum optional for most sentences before version 2.0
/// and mandatory for RMC (with RMA and RMB) from 2.0 on; `.standard` applies
/// exactly that rule to the types this module decodes.
public enum NMEAChecksumPolicy: Sendable, Hashable {
    /// Every sentence must carry a checksum.
    case required
    /// RMC must carry a checksum; every other type may omit it.
    case standard
    /// Any sentence may omit its checksum.
    case optional

    /// Whether `kind` may come without a checksum.
    func allowsMissingChecksum(for kind: NMEASentenceKind) -> Bool {
        switch self {
        case .required: false
        case .standard: kind != .rmc
        case .optional: true
        }
    }
}

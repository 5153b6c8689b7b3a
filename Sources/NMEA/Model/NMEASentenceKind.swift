/// The sentence types this module decodes and encodes.
public enum NMEASentenceKind: String, Sendable, CaseIterable {
    /// Global positioning system fix data: time, position, quality, altitude.
    case gga = "GGA"
    /// Recommended minimum: time, date, status, position, speed, track.
    case rmc = "RMC"
    /// DOPs and the satellites used in the fix.
    case gsa = "GSA"
    /// Satellites in view, four per sentence.
    case gsv = "GSV"
    /// Geographic position with time and status.
    case gll = "GLL"
    /// Track made good and ground speed.
    case vtg = "VTG"
    /// Pseudorange error statistics (1-sigma position errors in metres).
    case gst = "GST"
    /// Time and date.
    case zda = "ZDA"
    /// Multi-constellation fix data: time, position, per-system mode, altitude (NMEA 3.0+).
    case gns = "GNS"
    /// True heading of the vessel (from a compass or dual antenna), not the course over ground.
    case hdt = "HDT"
    /// Garmin's estimated position errors (`$PGRME`).
    case pgrme = "PGRME"
    /// Garmin's altitude in feet and fix dimension (`$PGRMZ`).
    case pgrmz = "PGRMZ"
    /// SiRF's estimated position errors with time (`$PSRFEPE`).
    case psrfepe = "PSRFEPE"

    /// A dense index in `0..<allCases.count`, used for allocation-free counters.
    var ordinal: Int {
        switch self {
        case .gga: 0
        case .rmc: 1
        case .gsa: 2
        case .gsv: 3
        case .gll: 4
        case .vtg: 5
        case .gst: 6
        case .zda: 7
        case .gns: 8
        case .hdt: 9
        case .pgrme: 10
        case .pgrmz: 11
        case .psrfepe: 12
        }
    }

    /// Whether the sentence carries a UTC time of day, and so can open an epoch.
    public var carriesTime: Bool {
        switch self {
        case .gga, .rmc, .gll, .gst, .zda, .gns, .psrfepe: true
        case .gsa, .gsv, .vtg, .hdt, .pgrme, .pgrmz: false
        }
    }

    /// Recognises the three-letter sentence formatter, e.g. `GGA`.
    init?(formatter a: UInt8, _ b: UInt8, _ c: UInt8) {
        switch (a, b, c) {
        case (0x47, 0x47, 0x41): self = .gga  // GGA
        case (0x52, 0x4D, 0x43): self = .rmc  // RMC
        case (0x47, 0x53, 0x41): self = .gsa  // GSA
        case (0x47, 0x53, 0x56): self = .gsv  // GSV
        case (0x47, 0x4C, 0x4C): self = .gll  // GLL
        case (0x56, 0x54, 0x47): self = .vtg  // VTG
        case (0x47, 0x53, 0x54): self = .gst  // GST
        case (0x5A, 0x44, 0x41): self = .zda  // ZDA
        case (0x47, 0x4E, 0x53): self = .gns  // GNS
        case (0x48, 0x44, 0x54): self = .hdt  // HDT
        default: return nil
        }
    }

    /// Recognises a proprietary address (after `$`, starting with `P`): `PGRME`, `PGRMZ`, `PSRFEPE`.
    init?(proprietary address: UnsafeRawBufferPointer) {
        switch address.count {
        case 5 where address[0] == 0x50 && address[1] == 0x47 && address[2] == 0x52 && address[3] == 0x4D:  // PGRM…
            switch address[4] {
            case 0x45: self = .pgrme
            case 0x5A: self = .pgrmz
            default: return nil
            }
        case 7 where address.elementsEqual("PSRFEPE".utf8): self = .psrfepe
        default: return nil
        }
    }
}

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
        }
    }

    /// Whether the sentence carries a UTC time of day, and so can open an epoch.
    public var carriesTime: Bool {
        switch self {
        case .gga, .rmc, .gll, .gst, .zda: true
        case .gsa, .gsv, .vtg: false
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
        default: return nil
        }
    }
}

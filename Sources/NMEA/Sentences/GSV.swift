/// GSV — GNSS satellites in view, up to four per sentence.
///
/// `$GPGSV,3,1,11,03,03,111,00,04,15,270,00,06,01,010,00,13,06,292,00[,s]*hh`
public struct NMEAGSV: Sendable, Hashable {
    /// How many GSV sentences make up the full report.
    public var totalMessages: Int?
    /// This sentence's number within the report, from 1.
    public var messageNumber: Int?
    /// Total satellites in view.
    public var satellitesInView: Int?
    /// The satellites of this sentence (at most four; blocks with an empty PRN are skipped).
    public var satellites: NMEASatelliteQuad
    /// NMEA 4.10 signal ID, when present: one hexadecimal digit (NMEA 4.11 uses `A`–`F`, BeiDou B2I is `B`).
    public var signalID: Int?

    /// Decodes the data fields: three header fields, then blocks of four, then an optional signal ID.
    init(_ fields: inout NMEAFieldCursor) throws(NMEAError) {
        try fields.require(3)
        totalMessages = try fields.next().integer()
        messageNumber = try fields.next().integer()
        satellitesInView = try fields.next().integer()
        satellites = NMEASatelliteQuad()
        while fields.remaining >= 4 {
            let prnField = fields.next()
            let prn = try prnField.integer()
            let elevation = try fields.next().decimal(in: -90...90)
            let azimuth = try fields.next().decimal(in: 0...360)
            let snr = try fields.next().decimal(in: 0...99)
            guard let prn else { continue }
            guard prn <= NMEALimits.maximumPRN else { throw prnField.error(.outOfRange) }
            guard satellites.count < NMEASatelliteQuad.capacity else { throw prnField.error(.outOfRange) }
            satellites.append(NMEASatellite(prn: prn, elevation: elevation, azimuth: azimuth, snr: snr))
        }
        if fields.remaining == 1 {
            signalID = try fields.next().hexadecimalDigit()
        } else if fields.remaining > 0 {
            throw NMEAError(.truncated, sentence: .gsv)
        }
    }
}

/// Up to four satellites held inline: decoding a GSV never allocates.
public struct NMEASatelliteQuad: Sendable, Hashable, RandomAccessCollection {
    /// One satellite in 32 bytes: a NaN with a private payload marks an empty field.
    private struct Packed: Sendable, Hashable {
        var prn: Int = 0
        var elevation = Packed.absent
        var azimuth = Packed.absent
        var snr = Packed.absent

        /// The bit pattern standing for "field empty" (a quiet NaN no arithmetic produces).
        static let absent: UInt64 = 0x7FF8_4E4D_4541_0000

        init() {}

        init(_ satellite: NMEASatellite) {
            prn = satellite.prn
            elevation = satellite.elevation?.bitPattern ?? Packed.absent
            azimuth = satellite.azimuth?.bitPattern ?? Packed.absent
            snr = satellite.snr?.bitPattern ?? Packed.absent
        }

        var satellite: NMEASatellite {
            NMEASatellite(prn: prn, elevation: Packed.unpack(elevation), azimuth: Packed.unpack(azimuth), snr: Packed.unpack(snr))
        }

        static func unpack(_ bits: UInt64) -> Double? {
            bits == absent ? nil : Double(bitPattern: bits)
        }
    }

    private var first = Packed()
    private var second = Packed()
    private var third = Packed()
    private var fourth = Packed()
    /// The number of satellites held.
    public private(set) var count = 0

    /// Creates an empty group.
    public init() {}

    /// The maximum number of satellites in one GSV sentence.
    public static let capacity = 4

    /// The position of the first satellite.
    public var startIndex: Int { 0 }
    /// One past the position of the last satellite.
    public var endIndex: Int { count }

    /// The satellite at `position`. - Complexity: O(1).
    public subscript(position: Int) -> NMEASatellite {
        precondition(position >= 0 && position < count, "NMEASatelliteQuad index \(position) out of range 0..<\(count)")
        switch position {
        case 0: return first.satellite
        case 1: return second.satellite
        case 2: return third.satellite
        default: return fourth.satellite
        }
    }

    /// Appends a satellite; ignored when full. - Complexity: O(1).
    public mutating func append(_ satellite: NMEASatellite) {
        switch count {
        case 0: first = Packed(satellite)
        case 1: second = Packed(satellite)
        case 2: third = Packed(satellite)
        case 3: fourth = Packed(satellite)
        default: return
        }
        count += 1
    }
}

/// A satellite system.
public enum NMEAConstellation: Sendable, Hashable, CaseIterable {
    case gps
    /// Satellite-based augmentation (WAAS, EGNOS, MSAS, GAGAN, SDCM).
    case sbas
    case glonass
    case galileo
    case beidou
    case qzss
    /// NavIC (IRNSS).
    case navic
    /// Indoor messaging (IMES) transmitters.
    case imes
}

/// Which satellite a sentence means: its system and its number within that system.
///
/// NMEA prints one number per satellite, and the same number means different satellites in different
/// systems: a multi-constellation receiver prints GPS 13, Galileo 13 and BeiDou 13 in one cycle. What the
/// number means comes, first that applies, from the NMEA 4.10 system ID of a GSA, from a talker that names
/// one system (`GL`, `GA`, `GB`/`BD`/`PQ`, `GQ`/`QZ`, `GI`, `IM`) for numbers up to 64 and that system's own
/// extended ranges (`GA`'s 101–136 too, Galileo 1–36 as Quectel's LC79D numbers them; a SiRF `BD`'s 201–237),
/// and otherwise from the NMEA numbering ranges (GPS 1–32, SBAS 33–64 and 120–158, GLONASS 65–96, IMES
/// 173–182, QZSS 193–200, BeiDou 201–237 as SiRF prints it and 401–463, Galileo 301–356). gpsd 3.22 trusts a talker up to 32
/// only, reading 33–64 as SBAS; BeiDou (up to 63) and Galileo (up to 36) number satellites there. A number
/// none of them places keeps a `nil` constellation: it is still one satellite, the same wherever that number
/// is printed with the same talker.
public struct NMEASatelliteID: Sendable, Hashable {
    /// The system, when the sentence tells it.
    public var constellation: NMEAConstellation?
    /// The number within the system: the GPS, SBAS (120–158), Galileo, BeiDou, QZSS (1–10) or NavIC PRN,
    /// the GLONASS slot (1–32); the number as printed when the system is unknown.
    public var number: Int

    /// Creates an identity from its parts.
    public init(constellation: NMEAConstellation?, number: Int) {
        self.constellation = constellation
        self.number = number
    }

    /// What a satellite number printed in a sentence means.
    ///
    /// - Parameters:
    ///   - prn: the number as printed (GSV's or GSA's satellite field).
    ///   - talker: the sentence's talker.
    ///   - systemID: the NMEA 4.10 GNSS system ID of a GSA (1 GPS, 2 GLONASS, 3 Galileo, 4 BeiDou,
    ///     5 QZSS, 6 NavIC), when present.
    public init(prn: Int, talker: NMEATalker, systemID: Int? = nil) {
        // A talker's system decides its numbers up to 64 and its own extended ranges (a `$QZGSV`'s 201 is QZSS 9,
        // though BeiDou 1 under `GN`).
        let bySystemID = systemID.flatMap(Self.system(id:))
        let byTalker = Self.system(talker: talker).flatMap { prn <= 64 || Self.number(of: prn, in: $0) != nil ? $0 : nil }
        switch bySystemID ?? byTalker {
        case .gps?, nil:
            // GPS's system ID 1 also covers SBAS and QZSS: the ranges tell them apart.
            self = Self.ranges(prn) ?? NMEASatelliteID(constellation: bySystemID, number: prn)
        case let system?:
            self.init(constellation: system, number: Self.number(of: prn, in: system) ?? prn)
        }
    }

    /// The number within `system` of `prn` when it lies in one of that system's extended ranges.
    private static func number(of prn: Int, in system: NMEAConstellation) -> Int? {
        switch (system, prn) {
        case (.glonass, 65...96): prn - 64
        case (.galileo, 101...136): prn - 100  // Quectel's LC79D
        case (.galileo, 301...356): prn - 300
        case (.beidou, 201...237): prn - 200  // SiRF
        case (.beidou, 401...463): prn - 400
        case (.qzss, 193...202): prn - 192
        case (.imes, 173...182): prn - 172
        default: nil
        }
    }

    /// The number in NMEA's extended numbering, which the ranges above read back as this satellite under any
    /// `GP` or `GN` talker: GPS 1–32, SBAS 33–64 (PRN 120–151) or 152–158, GLONASS 65–96, IMES 173–182,
    /// QZSS 193–202, Galileo 301–356, BeiDou 401–463. QZSS 9 and 10 (201, 202) read back as BeiDou 1 and 2
    /// under `GN` (SiRF prints BeiDou so, and gpsd reads it), and NavIC, which keeps its PRN, as GPS: those
    /// round-trip only under their own talkers (`GQ`, `GI`). So does a satellite of no known system.
    public var extendedNumber: Int {
        switch constellation {
        case .gps?, .navic?, nil: number
        case .sbas?: (120...151).contains(number) ? number - 87 : number
        case .glonass?: number + 64
        case .imes?: number + 172
        case .qzss?: number + 192
        case .galileo?: number + 300
        case .beidou?: number + 400
        }
    }

    /// The system a GSA's NMEA 4.10 system ID names.
    private static func system(id: Int) -> NMEAConstellation? {
        switch id {
        case 1: .gps
        case 2: .glonass
        case 3: .galileo
        case 4: .beidou
        case 5: .qzss
        case 6: .navic
        default: nil
        }
    }

    /// The system a talker names; `nil` for `GP` and `GN` (GPS numbering, shared with SBAS and GLONASS)
    /// and for talkers of no satellite system. `PQ` is BeiDou: Quectel's modems print it so, as gpsd reads it.
    private static func system(talker: NMEATalker) -> NMEAConstellation? {
        switch (talker.first, talker.second) {
        case (0x47, 0x4C): .glonass  // GL
        case (0x47, 0x41): .galileo  // GA
        case (0x47, 0x42), (0x42, 0x44), (0x50, 0x51): .beidou  // GB, BD, PQ
        case (0x47, 0x51), (0x51, 0x5A): .qzss  // GQ, QZ
        case (0x47, 0x49): .navic  // GI
        case (0x49, 0x4D): .imes  // IM
        default: nil
        }
    }

    /// The NMEA numbering ranges.
    private static func ranges(_ prn: Int) -> NMEASatelliteID? {
        switch prn {
        case 1...32: NMEASatelliteID(constellation: .gps, number: prn)
        case 33...64: NMEASatelliteID(constellation: .sbas, number: prn + 87)
        case 65...96: NMEASatelliteID(constellation: .glonass, number: prn - 64)
        case 120...158: NMEASatelliteID(constellation: .sbas, number: prn)
        case 173...182: NMEASatelliteID(constellation: .imes, number: prn - 172)
        case 193...200: NMEASatelliteID(constellation: .qzss, number: prn - 192)
        case 201...237: NMEASatelliteID(constellation: .beidou, number: prn - 200)
        case 301...356: NMEASatelliteID(constellation: .galileo, number: prn - 300)
        case 401...463: NMEASatelliteID(constellation: .beidou, number: prn - 400)
        default: nil
        }
    }
}

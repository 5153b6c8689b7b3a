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
/// one system (`GL`, `GA`, `GB`/`BD`/`PQ`, `GQ`/`QZ`, `GI`, `IM`) for numbers up to 64 (and `GA`'s 101–136,
/// Galileo 1–36 as Quectel's LC79D numbers them), and otherwise from
/// the NMEA numbering ranges (GPS 1–32, SBAS 33–64 and 120–158, GLONASS 65–96, IMES 173–182, QZSS 193–199,
/// BeiDou 201–237 and 401–463, Galileo 301–356). A number none of them places keeps a `nil` constellation:
/// it is still one satellite, the same wherever that number is printed with the same talker.
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
        let byTalker = Self.system(talker: talker)
        let named =
            systemID.flatMap(Self.system(id:))
            ?? (prn <= 64 || (byTalker == .galileo && (101...136).contains(prn)) ? byTalker : nil)
        switch named {
        case .gps?, nil:
            // GPS's system ID 1 also covers SBAS and QZSS: the ranges tell them apart.
            self = Self.ranges(prn) ?? NMEASatelliteID(constellation: named, number: prn)
        case .glonass?:
            self.init(constellation: .glonass, number: (65...96).contains(prn) ? prn - 64 : prn)
        case .galileo?:
            let number = (301...356).contains(prn) ? prn - 300 : (101...136).contains(prn) ? prn - 100 : prn
            self.init(constellation: .galileo, number: number)
        case .beidou?:
            let number = (401...463).contains(prn) ? prn - 400 : (201...237).contains(prn) ? prn - 200 : prn
            self.init(constellation: .beidou, number: number)
        case .qzss?:
            self.init(constellation: .qzss, number: (193...199).contains(prn) ? prn - 192 : prn)
        case .navic?, .imes?, .sbas?:
            self.init(constellation: named, number: prn)
        }
    }

    /// The number in NMEA's extended numbering, which the ranges above read back as this satellite under any
    /// `GP` or `GN` talker: GPS 1–32, SBAS 33–64 (PRN 120–151) or 152–158, GLONASS 65–96, IMES 173–182,
    /// QZSS 193–199, Galileo 301–356, BeiDou 401–463. NavIC has no range and keeps its PRN, as does a
    /// satellite of no known system.
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
        case 193...199: NMEASatelliteID(constellation: .qzss, number: prn - 192)
        case 201...237: NMEASatelliteID(constellation: .beidou, number: prn - 200)
        case 301...356: NMEASatelliteID(constellation: .galileo, number: prn - 300)
        case 401...463: NMEASatelliteID(constellation: .beidou, number: prn - 400)
        default: nil
        }
    }
}

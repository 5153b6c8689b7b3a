/// GSA — GNSS DOP and active satellites.
///
/// `$GPGSA,A,3,04,05,,09,12,,,24,,,,,2.5,1.3,2.1[,s]*hh` (NMEA 4.10 adds the system ID `s`).
public struct NMEAGSA: Sendable, Hashable {
    /// `A` automatic 2D/3D, `M` manual, as an ASCII byte.
    public var selectionMode: UInt8?
    /// Fix type: 1 no fix, 2 2D, 3 3D.
    public var fixType: Int?
    /// The satellites used in the fix (up to 12 per sentence).
    public var usedPRNs: NMEAPRNList
    /// Position dilution of precision.
    public var pdop: Double?
    /// Horizontal dilution of precision.
    public var hdop: Double?
    /// Vertical dilution of precision.
    public var vdop: Double?
    /// GNSS system ID of NMEA 4.10 (1 GPS, 2 GLONASS, 3 Galileo, 4 BeiDou, 5 QZSS, 6 NavIC).
    public var systemID: Int?

    /// Decodes the data fields. All seventeen standard fields are required.
    init(_ fields: inout NMEAFieldCursor) throws(NMEAError) {
        try fields.require(17)
        selectionMode = try fields.next().character()
        let fixField = fields.next()
        fixType = try fixField.integer()
        if let fixType, !(1...3).contains(fixType) { throw fixField.error(.outOfRange) }
        usedPRNs = NMEAPRNList()
        for _ in 0..<12 {
            let field = fields.next()
            if let prn = try field.integer() {
                guard prn <= NMEALimits.maximumPRN else { throw field.error(.outOfRange) }
                usedPRNs.append(prn)
            }
        }
        pdop = try fields.next().decimal(in: NMEALimits.dop)
        hdop = try fields.next().decimal(in: NMEALimits.dop)
        vdop = try fields.next().decimal(in: NMEALimits.dop)
        systemID = try fields.next().integer()
    }
}

/// Up to twelve PRNs in a fixed-size inline store: decoding a GSA never allocates.
public struct NMEAPRNList: Sendable, Hashable, RandomAccessCollection {
    private var storage: (UInt16, UInt16, UInt16, UInt16, UInt16, UInt16, UInt16, UInt16, UInt16, UInt16, UInt16, UInt16)
    /// The number of PRNs held.
    public private(set) var count: Int

    /// Creates an empty list.
    public init() {
        storage = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        count = 0
    }

    /// The maximum number of PRNs (the twelve GSA slots).
    public static let capacity = 12

    /// The position of the first PRN.
    public var startIndex: Int { 0 }
    /// One past the position of the last PRN.
    public var endIndex: Int { count }

    /// The PRN at `position`. - Complexity: O(1).
    public subscript(position: Int) -> Int {
        precondition(position >= 0 && position < count, "NMEAPRNList index \(position) out of range 0..<\(count)")
        return withUnsafeBytes(of: storage) { Int($0.load(fromByteOffset: position * 2, as: UInt16.self)) }
    }

    /// Appends a PRN (0…65535); ignored when the list is full. - Complexity: O(1).
    public mutating func append(_ prn: Int) {
        guard count < NMEAPRNList.capacity else { return }
        let offset = count * 2
        withUnsafeMutableBytes(of: &storage) { $0.storeBytes(of: UInt16(truncatingIfNeeded: prn), toByteOffset: offset, as: UInt16.self) }
        count += 1
    }

    /// Equal when the same PRNs appear in the same order.
    public static func == (lhs: NMEAPRNList, rhs: NMEAPRNList) -> Bool { lhs.elementsEqual(rhs) }

    /// Hashes the PRNs in order.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(count)
        for prn in self { hasher.combine(prn) }
    }
}

extension NMEALimits {
    /// The largest satellite number accepted (NMEA 4.11 numbering stays far below).
    static let maximumPRN = 999
}

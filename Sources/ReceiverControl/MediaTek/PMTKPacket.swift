import NMEA

/// One MediaTek PMTK packet: `$PMTK`, a three-digit packet type, comma-separated data fields, `*HH`, CR LF.
///
/// The framing and the checksum (the XOR of every byte between `$` and `*`, as two upper-case hex digits) are
/// those of NMEA 0183; the packet types are MediaTek's, as documented in the MTK NMEA packet manuals that module
/// makers republish (GlobalTop "PMTK command packet" Rev. A08, Quectel "L80 GPS Protocol Specification" §3,
/// u-blox/Fastrax "NMEA Manual based on MediaTek chipset" FTX-HW-13002). Example: `$PMTK161,0*28\r\n`.
public struct PMTKPacket: Sendable, Hashable, CustomStringConvertible {
    /// The packet type, `0...999` (`161` for standby, `1` for the acknowledgement `PMTK001`).
    public var type: Int
    /// The data fields after the type, without separators.
    public var fields: [String]

    /// The most fields a parsed packet may carry (the longest documented packet, `PMTK314`, has 19).
    public static let maximumFieldCount = 32
    /// The longest line accepted by ``parse(_:)``, `$` to the checksum, without CR LF.
    public static let maximumLineLength = 256

    /// A packet of `type` with `fields`.
    public init(type: Int, fields: [String] = []) {
        self.type = type
        self.fields = fields
    }

    /// The sentence without its checksum and terminator: `$PMTK161,0`.
    public var body: String {
        (["$PMTK" + threeDigits(type)] + fields).joined(separator: ",")
    }

    /// The whole sentence as written to a receiver: `$PMTK161,0*28\r\n`.
    public var sentence: String { description + "\r\n" }

    /// The sentence's bytes.
    public var bytes: [UInt8] { Array(sentence.utf8) }

    /// The sentence without CR LF: `$PMTK161,0*28`.
    public var description: String {
        let body = body
        let sum = NMEASentenceParser.checksum(of: body.utf8.dropFirst())
        let hex = Array("0123456789ABCDEF")
        return body + "*" + String(hex[Int(sum >> 4)]) + String(hex[Int(sum & 0x0F)])
    }

    /// Parses one line (`$PMTK…*HH`, with or without CR/LF), checking its checksum.
    /// - Throws: ``ReceiverReplyError`` naming what is wrong.
    /// - Complexity: O(n) in the line length.
    public static func parse(_ line: some Collection<UInt8>) throws(ReceiverReplyError) -> PMTKPacket {
        var bytes = Array(line.prefix(maximumLineLength + 3))
        while let last = bytes.last, last == 0x0D || last == 0x0A { bytes.removeLast() }
        guard bytes.count <= maximumLineLength else { throw .tooLong }
        guard bytes.starts(with: Array("$PMTK".utf8)) else { throw .notPMTK }
        guard bytes.count >= 11, let star = bytes.lastIndex(of: 0x2A), star == bytes.count - 3 else { throw .malformed }
        guard let high = NMEASentenceParser.hexValue(bytes[star + 1]), let low = NMEASentenceParser.hexValue(bytes[star + 2]) else {
            throw .malformed
        }
        let content = bytes[1..<star]
        guard NMEASentenceParser.checksum(of: content) == high << 4 | low else { throw .badChecksum }
        guard content.allSatisfy({ (0x20...0x7E).contains($0) && $0 != 0x2A && $0 != 0x24 }) else { throw .malformed }
        let parts = content.dropFirst(4).split(separator: 0x2C, omittingEmptySubsequences: false)
        guard let typeField = parts.first, typeField.count == 3, typeField.allSatisfy({ (0x30...0x39).contains($0) }) else {
            throw .malformed
        }
        guard parts.count - 1 <= maximumFieldCount else { throw .malformed }
        let type = typeField.reduce(0) { $0 * 10 + Int($1 - 0x30) }
        return PMTKPacket(type: type, fields: parts.dropFirst().map { String(decoding: $0, as: UTF8.self) })
    }
}

/// Why a receiver's reply (or a command read back by a synthetic receiver) was not understood.
public enum ReceiverReplyError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The line does not start with `$PMTK`.
    case notPMTK
    /// The line is longer than any PMTK packet.
    case tooLong
    /// The line is not `$PMTKnnn[,field…]*HH`, or carries characters no packet has.
    case malformed
    /// The checksum does not match: the bytes were garbled on the way.
    case badChecksum
    /// A UBX frame's payload does not have the length its message requires.
    case wrongPayloadLength(expected: String, actual: Int)
    /// A packet or frame of a type this module does not interpret.
    case unknownMessage
    /// A field holds a value the message does not allow.
    case invalidField(String)

    public var description: String {
        switch self {
        case .notPMTK: "not a PMTK packet"
        case .tooLong: "longer than any PMTK packet"
        case .malformed: "not of the form $PMTKnnn,…*HH"
        case .badChecksum: "checksum mismatch (garbled in transit)"
        case .wrongPayloadLength(let expected, let actual): "payload of \(actual) bytes where \(expected) are expected"
        case .unknownMessage: "a message type this driver does not interpret"
        case .invalidField(let field): "invalid \(field)"
        }
    }
}

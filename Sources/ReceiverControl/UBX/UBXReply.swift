/// What a u-blox receiver says back to a driver: acknowledgements of CFG messages and its versions.
///
/// UBX-ACK-ACK (`05 01`) and UBX-ACK-NAK (`05 00`) carry the class and id of the message they answer; u-blox
/// sends them "as soon as possible but at least within one second" (M8 protocol specification, UBX-ACK).
/// UBX-MON-VER (`0A 04`) carries the software version (30 characters), the hardware version (10) and any number
/// of 30-character extensions such as `PROTVER=18.00` (M8 protocol specification, UBX-MON-VER).
public enum UBXReply: Sendable, Hashable {
    /// UBX-ACK-ACK: the message of this class and id was accepted.
    case acknowledged(messageClass: UInt8, messageID: UInt8)
    /// UBX-ACK-NAK: the message of this class and id was rejected.
    case notAcknowledged(messageClass: UInt8, messageID: UInt8)
    /// UBX-MON-VER: the receiver's versions.
    case version(UBXVersion)

    /// The reply a frame carries.
    /// - Throws: ``ReceiverReplyError/unknownMessage`` for other messages, `wrongPayloadLength` for bad lengths.
    public init(_ frame: UBXFrame) throws(ReceiverReplyError) {
        switch (frame.messageClass, frame.messageID) {
        case (0x05, 0x01), (0x05, 0x00):
            guard frame.payload.count == 2 else { throw .wrongPayloadLength(expected: "2", actual: frame.payload.count) }
            self =
                frame.messageID == 0x01
                ? .acknowledged(messageClass: frame.payload[0], messageID: frame.payload[1])
                : .notAcknowledged(messageClass: frame.payload[0], messageID: frame.payload[1])
        case (0x0A, 0x04):
            let payload = frame.payload
            guard payload.count >= 40, (payload.count - 40) % 30 == 0 else {
                throw .wrongPayloadLength(expected: "40 + 30·N", actual: payload.count)
            }
            let extensions = stride(from: 40, to: payload.count, by: 30).map { Self.text(payload[$0..<($0 + 30)]) }
            self = .version(
                UBXVersion(software: Self.text(payload[0..<30]), hardware: Self.text(payload[30..<40]), extensions: extensions))
        default:
            throw .unknownMessage
        }
    }

    /// The frame that carries the reply (what the synthetic u-blox receiver writes).
    public var frame: UBXFrame {
        switch self {
        case .acknowledged(let messageClass, let messageID):
            UBXFrame(messageClass: 0x05, messageID: 0x01, payload: [messageClass, messageID])
        case .notAcknowledged(let messageClass, let messageID):
            UBXFrame(messageClass: 0x05, messageID: 0x00, payload: [messageClass, messageID])
        case .version(let version):
            UBXFrame(
                messageClass: 0x0A, messageID: 0x04,
                payload: Self.field(version.software, 30) + Self.field(version.hardware, 10)
                    + version.extensions.flatMap { Self.field($0, 30) })
        }
    }

    /// A NUL-terminated character field, printable ASCII only.
    private static func text(_ bytes: ArraySlice<UInt8>) -> String {
        String(decoding: bytes.prefix { $0 != 0 }.filter { (0x20...0x7E).contains($0) }, as: UTF8.self)
    }

    /// `text` in a NUL-padded field of `width` bytes.
    private static func field(_ text: String, _ width: Int) -> [UInt8] {
        let bytes = Array(text.utf8.prefix(width - 1))
        return bytes + Array(repeating: 0, count: width - bytes.count)
    }
}

/// A u-blox receiver's versions (UBX-MON-VER).
public struct UBXVersion: Sendable, Hashable {
    /// The software version, e.g. `ROM CORE 3.01 (107888)`.
    public var software: String
    /// The hardware version, e.g. `00080000` (u-blox M8).
    public var hardware: String
    /// Extensions, e.g. `FWVER=SPG 3.01`, `PROTVER=18.00`, `MOD=SAM-M8Q`.
    public var extensions: [String]

    /// Versions.
    public init(software: String, hardware: String, extensions: [String]) {
        self.software = software
        self.hardware = hardware
        self.extensions = extensions
    }

    /// The protocol version of `PROTVER=xx.yy` (or `PROTVER xx.yy`), if an extension carries it.
    public var protocolVersion: Double? {
        for item in extensions where item.hasPrefix("PROTVER") {
            if let value = Double(item.dropFirst("PROTVER".count + 1).prefix { $0 != " " }) { return value }
        }
        return nil
    }

    /// Whether the receiver is configured by CFG-VALSET rather than the legacy CFG messages: protocol 27 and
    /// later (u-blox 9 and 10; the u-blox 10 no longer accepts CFG-RATE, CFG-RXM or CFG-PM2).
    public var usesConfigurationKeys: Bool { (protocolVersion ?? 0) >= 27 }

    /// The protocol version: ``protocolVersion`` when an extension carries it, else what the hardware and software
    /// versions say. Receivers from before protocol 15 (u-blox 5, 6 and 7) list no `PROTVER`:
    ///
    /// | hardware | generation | protocol |
    /// |---|---|---|
    /// | `00040005` | u-blox 5 | 10 |
    /// | `00040007` | u-blox 6 | 12 (firmware 6), 13 (firmware 7, software `7.03 (45969)`) |
    /// | `00070000` | u-blox 7 | 14 |
    /// | `00080000` | u-blox M8 (firmware that lists none) | 15 |
    ///
    /// `nil` for a hardware version not in the table.
    public var inferredProtocolVersion: Double? {
        if let protocolVersion { return protocolVersion }
        switch hardware.prefix(8) {
        case "00040005": return 10
        case "00040007": return software.hasPrefix("6.") ? 12 : 13
        case "00070000": return 14
        case "00080000": return 15
        default: return nil
        }
    }
}

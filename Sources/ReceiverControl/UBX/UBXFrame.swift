/// One u-blox UBX frame: sync `0xB5 0x62`, class, id, little-endian payload length, payload, and the two
/// bytes of the 8-bit Fletcher checksum over class, id, length and payload.
///
/// Framing per the u-blox 8 / u-blox M8 Receiver Description including Protocol Specification
/// (UBX-13003221), §32.2 "UBX Frame Structure" and §32.4 "UBX Checksum" (the algorithm of RFC 1145); the
/// same in the u-blox 9 and 10 interface descriptions, and in gpsd's `driver_ubx.c` ("leader: 0xb5 0x62,
/// message class: 1 byte, message type: 1 byte, length of payload: 2 bytes, payload, checksum: 2 bytes").
public struct UBXFrame: Sendable, Hashable, CustomStringConvertible {
    /// The message class (`0x06` CFG, `0x05` ACK, `0x0A` MON, `0x02` RXM…).
    public var messageClass: UInt8
    /// The message id within its class.
    public var messageID: UInt8
    /// The payload.
    public var payload: [UInt8]

    /// The two sync characters.
    public static let sync: (UInt8, UInt8) = (0xB5, 0x62)
    /// The longest payload this module accepts from a receiver (MON-VER with many extensions stays under 300 bytes).
    public static let maximumPayloadLength = 1024

    /// A frame.
    public init(messageClass: UInt8, messageID: UInt8, payload: [UInt8] = []) {
        self.messageClass = messageClass
        self.messageID = messageID
        self.payload = payload
    }

    /// The frame's bytes as sent on the wire.
    public var bytes: [UInt8] {
        let length = UInt16(truncatingIfNeeded: payload.count)
        var body: [UInt8] = [messageClass, messageID, UInt8(length & 0xFF), UInt8(length >> 8)]
        body.append(contentsOf: payload)
        let (a, b) = Self.checksum(of: body)
        return [Self.sync.0, Self.sync.1] + body + [a, b]
    }

    /// The 8-bit Fletcher checksum (`CK_A`, `CK_B`) of `bytes` (class through payload).
    /// - Complexity: O(n).
    public static func checksum(of bytes: some Sequence<UInt8>) -> (UInt8, UInt8) {
        var a: UInt8 = 0
        var b: UInt8 = 0
        for byte in bytes {
            a &+= byte
            b &+= a
        }
        return (a, b)
    }

    /// Decodes exactly one frame (sync through checksum).
    /// - Throws: ``ReceiverReplyError/malformed`` or ``ReceiverReplyError/badChecksum``.
    public static func decode(_ bytes: some Collection<UInt8>) throws(ReceiverReplyError) -> UBXFrame {
        let bytes = Array(bytes.prefix(maximumPayloadLength + 9))
        guard bytes.count >= 8, bytes[0] == sync.0, bytes[1] == sync.1 else { throw .malformed }
        let length = Int(bytes[4]) | Int(bytes[5]) << 8
        guard length <= maximumPayloadLength, bytes.count == length + 8 else { throw .malformed }
        let (a, b) = checksum(of: bytes[2..<(6 + length)])
        guard a == bytes[6 + length], b == bytes[7 + length] else { throw .badChecksum }
        return UBXFrame(messageClass: bytes[2], messageID: bytes[3], payload: Array(bytes[6..<(6 + length)]))
    }

    /// `UBX 06-08 [6 bytes]`.
    public var description: String {
        "UBX \(hex(messageClass))-\(hex(messageID)) [\(payload.count) bytes]"
    }
}

/// Two upper-case hex digits.
func hex(_ byte: UInt8) -> String {
    let digits = Array("0123456789ABCDEF")
    return String(digits[Int(byte >> 4)]) + String(digits[Int(byte & 0x0F)])
}

extension Array where Element == UInt8 {
    /// Appends `value` little-endian in `count` bytes.
    mutating func appendLittleEndian(_ value: UInt64, count: Int) {
        for index in 0..<count { append(UInt8(truncatingIfNeeded: value >> (8 * UInt64(index)))) }
    }

    /// The little-endian unsigned integer of `count` bytes at `offset` (the caller checks the bounds).
    func littleEndian(at offset: Int, count: Int) -> UInt64 {
        (0..<count).reduce(UInt64(0)) { $0 | UInt64(self[offset + $1]) << (8 * UInt64($1)) }
    }
}

/// A line whose framing, checksum and address are good, with its fields located but not decoded yet.
struct NMEAFrame {
    /// The talker from the address.
    let talker: NMEATalker
    /// The sentence type from the address.
    let kind: NMEASentenceKind
    /// Whether `*HH` was present.
    let checksum: NMEAChecksumStatus
    /// The data fields.
    var fields: NMEAFieldCursor
}

/// Decodes single sentences: framing check, checksum, address, then the fields.
public enum NMEASentenceParser {
    /// Decodes one sentence from `$` up to (optionally) `\r\n`.
    ///
    /// - Parameters:
    ///   - line: the bytes of the sentence; trailing CR, LF and spaces are ignored.
    ///   - checksumPolicy: which sentence types may come without `*HH`.
    ///   - interrupted: set by the stream framer when the line ended at the next `$`
    ///     rather than at a newline; a line without `*HH` is then `.truncated`.
    /// - Throws: ``NMEAError`` saying what is wrong; never traps on any input.
    /// - Complexity: O(n) in the line length; no allocation.
    public static func parse(
        _ line: UnsafeRawBufferPointer,
        checksumPolicy: NMEAChecksumPolicy = .standard,
        interrupted: Bool = false
    ) throws(NMEAError) -> NMEASentence {
        var frame = try frame(line, checksumPolicy: checksumPolicy, interrupted: interrupted)
        return NMEASentence(talker: frame.talker, checksum: frame.checksum, body: try decodeBody(frame.kind, &frame.fields))
    }

    /// Checks the framing, checksum and address of a line and finds its fields, without decoding them.
    ///
    /// - Complexity: O(n) in the line length; no allocation.
    @inline(__always)
    static func frame(
        _ line: UnsafeRawBufferPointer,
        checksumPolicy: NMEAChecksumPolicy,
        interrupted: Bool
    ) throws(NMEAError) -> NMEAFrame {
        var end = line.count
        while end > 0, line[end - 1] == 0x0D || line[end - 1] == 0x0A || line[end - 1] == 0x20 { end -= 1 }
        guard end > 0, line[0] == 0x24 else { throw NMEAError(.malformedAddress) }
        guard end <= Int(UInt16.max) else { throw NMEAError(.lineTooLong) }  // comma offsets are 16-bit

        // One pass: XOR of everything between `$` and `*`, and the offsets of the commas.
        guard let (sum, star, scanned) = NMEAByteScan.checksumAndCommas(line, from: 1, end: end) else {
            throw NMEAError(.invalidField)  // more fields than any NMEA sentence has
        }
        var commas = scanned
        let dataEnd = star >= 0 ? star : end
        let cut = interrupted && star < 0

        // Address: two-letter talker + three-letter formatter, up to the first comma.
        let addressEnd = commas.count > 0 ? commas[0] : dataEnd
        var addressIsWellFormed = addressEnd > 1
        for offset in 1..<max(1, addressEnd) where !isAddressCharacter(line[offset]) { addressIsWellFormed = false }
        guard addressIsWellFormed else { throw NMEAError(cut ? .truncated : .malformedAddress) }
        // Other proprietary ($P…), query and other formatters are well-formed but not ours. `PQ` is both a
        // proprietary prefix and the BeiDou talker of Quectel's modems (`$PQGSV`): a proprietary sentence we know wins, then PQ's
        // standard formatters.
        let standard: NMEASentenceKind? = addressEnd == 6 ? NMEASentenceKind(formatter: line[3], line[4], line[5]) : nil
        let recognised: NMEASentenceKind? =
            line[1] == 0x50
            ? NMEASentenceKind(proprietary: UnsafeRawBufferPointer(rebasing: line[1..<addressEnd]))
                ?? (addressEnd == 6 && line[2] == 0x51 ? standard : nil)
            : standard
        guard let kind = recognised else { throw NMEAError(cut ? .truncated : .unsupportedSentence) }

        // Checksum rule.
        let checksum: NMEAChecksumStatus
        if star >= 0 {
            guard end - star == 3, let high = hexValue(line[star + 1]), let low = hexValue(line[star + 2]) else {
                throw NMEAError(.malformedChecksum, sentence: kind)
            }
            guard high << 4 | low == sum else { throw NMEAError(.badChecksum, sentence: kind) }
            checksum = .valid
        } else {
            if interrupted { throw NMEAError(.truncated, sentence: kind) }
            guard checksumPolicy.allowsMissingChecksum(for: kind) else { throw NMEAError(.missingChecksum, sentence: kind) }
            checksum = .absent
        }

        return NMEAFrame(
            talker: NMEATalker(first: line[1], second: line[2]), kind: kind, checksum: checksum,
            fields: NMEAFieldCursor(line: line, commas: commas, dataEnd: dataEnd, sentence: kind)
        )
    }

    /// Decodes one sentence held in a string (convenience for tests and tools; allocates).
    public static func parse(
        _ line: String,
        checksumPolicy: NMEAChecksumPolicy = .standard
    ) throws(NMEAError) -> NMEASentence {
        let bytes = Array(line.utf8)
        let result = bytes.withUnsafeBytes { buffer in
            Result { () throws(NMEAError) -> NMEASentence in try parse(buffer, checksumPolicy: checksumPolicy) }
        }
        return try result.get()
    }

    /// The NMEA checksum of a sentence body: the XOR of every byte between `$` and `*`.
    ///
    /// - Complexity: O(n).
    public static func checksum(of body: some Sequence<UInt8>) -> UInt8 {
        body.reduce(0, ^)
    }

    @inline(__always)
    static func decodeBody(_ kind: NMEASentenceKind, _ fields: inout NMEAFieldCursor) throws(NMEAError) -> NMEASentence.Body {
        switch kind {
        case .gga: .gga(try NMEAGGA(&fields))
        case .rmc: .rmc(try NMEARMC(&fields))
        case .gsa: .gsa(try NMEAGSA(&fields))
        case .gsv: .gsv(try NMEAGSV(&fields))
        case .gll: .gll(try NMEAGLL(&fields))
        case .vtg: .vtg(try NMEAVTG(&fields))
        case .gst: .gst(try NMEAGST(&fields))
        case .zda: .zda(try NMEAZDA(&fields))
        case .gns: .gns(try NMEAGNS(&fields))
        case .hdt: .hdt(try NMEAHDT(&fields))
        case .pgrme: .pgrme(try NMEAPGRME(&fields))
        case .pgrmz: .pgrmz(try NMEAPGRMZ(&fields))
        case .psrfepe: .psrfepe(try NMEAPSRFEPE(&fields))
        }
    }

    /// Addresses are upper-case letters and digits.
    private static func isAddressCharacter(_ byte: UInt8) -> Bool { (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x30 && byte <= 0x39) }

    /// The value of one hexadecimal digit (either case), or `nil`. Used for checksums, here and by the
    /// vendor-command parsers that share NMEA's framing.
    @inline(__always)
    public static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case 0x30...0x39: byte - 0x30
        case 0x41...0x46: byte - 0x41 + 10
        case 0x61...0x66: byte - 0x61 + 10
        default: nil
        }
    }
}

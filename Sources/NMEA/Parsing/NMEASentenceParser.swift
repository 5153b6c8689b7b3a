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
        var end = line.count
        while end > 0, line[end - 1] == 0x0D || line[end - 1] == 0x0A || line[end - 1] == 0x20 { end -= 1 }
        guard end > 0, line[0] == 0x24 else { throw NMEAError(.malformedAddress) }

        // Find `*` and the data span; compute the XOR of everything between `$` and `*`.
        var star = -1
        var sum: UInt8 = 0
        var index = 1
        while index < end {
            let byte = line[index]
            if byte == 0x2A { star = index; break }
            sum ^= byte
            index += 1
        }
        let dataEnd = star >= 0 ? star : end

        // Address: two-letter talker + three-letter formatter, then `,` or the end.
        var addressEnd = 1
        while addressEnd < dataEnd, line[addressEnd] != 0x2C { addressEnd += 1 }
        let hasFields = addressEnd < dataEnd
        guard addressEnd - 1 == 5, isUpperCaseLetter(line[1]), isUpperCaseLetter(line[2]) else {
            if interrupted && star < 0 { throw NMEAError(.truncated) }
            if addressEnd > 1, line[1] == 0x50 || (addressEnd - 1 >= 3 && addressEnd - 1 <= 6) {
                throw NMEAError(.unsupportedSentence)  // proprietary ($P…) or other formatter lengths
            }
            throw NMEAError(.malformedAddress)
        }
        guard let kind = NMEASentenceKind(formatter: line[3], line[4], line[5]) else {
            if interrupted && star < 0 { throw NMEAError(.truncated) }
            throw NMEAError(.unsupportedSentence)
        }

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

        let bodyStart = hasFields ? addressEnd + 1 : dataEnd
        let body = UnsafeRawBufferPointer(rebasing: line[bodyStart..<dataEnd])
        var fields = NMEAFieldCursor(body: body, hasFields: hasFields, sentence: kind)
        let talker = NMEATalker(first: line[1], second: line[2])
        return NMEASentence(talker: talker, checksum: checksum, body: try decodeBody(kind, &fields))
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

    private static func decodeBody(_ kind: NMEASentenceKind, _ fields: inout NMEAFieldCursor) throws(NMEAError) -> NMEASentence.Body {
        switch kind {
        case .gga: .gga(try NMEAGGA(&fields))
        case .rmc: .rmc(try NMEARMC(&fields))
        case .gsa: .gsa(try NMEAGSA(&fields))
        case .gsv: .gsv(try NMEAGSV(&fields))
        case .gll: .gll(try NMEAGLL(&fields))
        case .vtg: .vtg(try NMEAVTG(&fields))
        case .gst: .gst(try NMEAGST(&fields))
        case .zda: .zda(try NMEAZDA(&fields))
        }
    }

    private static func isUpperCaseLetter(_ byte: UInt8) -> Bool { byte >= 0x41 && byte <= 0x5A }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case 0x30...0x39: byte - 0x30
        case 0x41...0x46: byte - 0x41 + 10
        case 0x61...0x66: byte - 0x61 + 10
        default: nil
        }
    }
}

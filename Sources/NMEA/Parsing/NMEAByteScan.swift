/// Word-at-a-time (SWAR) byte scanning: eight bytes per step instead of one.
///
/// `matches(_:_:)` sets the high bit of every byte of a 64-bit word that equals
/// the byte sought, with no carries between bytes, so every match can be
/// located with `trailingZeroBitCount`. Words are read little-endian whatever
/// the host, so byte `k` of the line is always bits `8k..<8k+8`.
enum NMEAByteScan {
    private static let ones: UInt64 = 0x0101_0101_0101_0101
    private static let low7: UInt64 = 0x7F7F_7F7F_7F7F_7F7F

    /// The high bit of each byte of `word` that equals `byte`.
    @inline(__always)
    static func matches(_ word: UInt64, _ byte: UInt8) -> UInt64 {
        let difference = word ^ (ones &* UInt64(byte))
        return ~(((difference & low7) &+ low7) | difference | low7)
    }

    /// The eight bytes at `offset`, byte 0 in the low bits.
    @inline(__always)
    static func word(_ bytes: UnsafeRawBufferPointer, at offset: Int) -> UInt64 {
        UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
    }

    /// The offset of the first CR, LF or `$` in `from..<to`, or `to` when there is none.
    ///
    /// - Complexity: O(n/8).
    @inline(__always)
    static func firstTerminator(in bytes: UnsafeRawBufferPointer, from: Int, to: Int) -> Int {
        var index = from
        while index &+ 8 <= to {
            let word = word(bytes, at: index)
            let hits = matches(word, 0x0A) | matches(word, 0x0D) | matches(word, 0x24)
            if hits != 0 { return index &+ hits.trailingZeroBitCount / 8 }
            index &+= 8
        }
        while index < to {
            let byte = bytes[index]
            if byte == 0x0A || byte == 0x0D || byte == 0x24 { return index }
            index &+= 1
        }
        return to
    }

    /// One pass over `line[from..<end]`: the XOR of the bytes before the first `*`,
    /// the offset of that `*` (−1 when there is none) and the offsets of the commas before it.
    ///
    /// - Returns: `nil` when there are more commas than ``NMEACommaOffsets/capacity``.
    /// - Complexity: O(n/8 + commas).
    @inline(__always)
    static func checksumAndCommas(
        _ line: UnsafeRawBufferPointer, from: Int, end: Int
    ) -> (sum: UInt8, star: Int, commas: NMEACommaOffsets)? {
        var commas = NMEACommaOffsets()
        var folded: UInt64 = 0
        var index = from
        var star = -1
        while index &+ 8 <= end {
            var word = word(line, at: index)
            let stars = matches(word, 0x2A)
            if stars != 0 {
                let kept = stars.trailingZeroBitCount / 8
                word &= kept == 0 ? 0 : ~0 >> (64 &- 8 &* UInt64(kept))
                star = index &+ kept
            }
            folded ^= word
            var hits = matches(word, 0x2C)
            while hits != 0 {
                guard commas.append(index &+ hits.trailingZeroBitCount / 8) else { return nil }
                hits &= hits &- 1
            }
            if star >= 0 { break }
            index &+= 8
        }
        var sum: UInt8 = 0
        if star < 0 {
            while index < end {
                let byte = line[index]
                if byte == 0x2A { star = index; break }
                sum ^= byte
                if byte == 0x2C, !commas.append(index) { return nil }
                index &+= 1
            }
        }
        folded ^= folded >> 32
        folded ^= folded >> 16
        folded ^= folded >> 8
        return (sum ^ UInt8(truncatingIfNeeded: folded), star, commas)
    }
}

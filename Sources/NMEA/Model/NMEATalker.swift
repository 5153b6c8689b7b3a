/// The two-letter talker identifier that starts a sentence address (`GP` in `$GPGGA`).
///
/// Every pair of upper-case letters is accepted; the ones seen in practice are
/// `GP` (GPS), `GN` (multi-constellation), `GL` (GLONASS), `GA` (Galileo),
/// `GB`/`BD`/`PQ` (BeiDou), `GQ`/`QZ` (QZSS), `GI` (NavIC) and `IM` (IMES). A `$P…` address is proprietary,
/// except `PQ` followed by a standard formatter (`$PQGSV`): Quectel's modems print BeiDou so.
public struct NMEATalker: Sendable, Hashable {
    /// The first letter, as an ASCII byte.
    public var first: UInt8
    /// The second letter, as an ASCII byte.
    public var second: UInt8

    /// Creates a talker from its two ASCII bytes.
    public init(first: UInt8, second: UInt8) {
        self.first = first
        self.second = second
    }

    /// Creates a talker from a two-letter string such as `"GN"`; `nil` unless it is two upper-case ASCII letters.
    public init?(_ text: String) {
        let bytes = Array(text.utf8)
        guard bytes.count == 2, bytes.allSatisfy({ $0 >= 0x41 && $0 <= 0x5A }) else { return nil }
        self.init(first: bytes[0], second: bytes[1])
    }

    /// GPS.
    public static let gps = NMEATalker(first: 0x47, second: 0x50)
    /// Combined GNSS solution.
    public static let gnss = NMEATalker(first: 0x47, second: 0x4E)

    /// The talker as a two-letter string. Never allocates: two ASCII bytes fit a small string.
    public var string: String {
        String(decoding: CollectionOfOne(first), as: UTF8.self) + String(decoding: CollectionOfOne(second), as: UTF8.self)
    }
}

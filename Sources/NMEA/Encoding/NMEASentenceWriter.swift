/// Builds one sentence as ASCII bytes: address, comma-separated fields, `*HH`, CR LF.
struct NMEASentenceWriter {
    private(set) var bytes: [UInt8] = []

    /// Starts a sentence with `$`, the talker and the formatter, e.g. `$GPGGA`.
    init(talker: String, kind: NMEASentenceKind) {
        bytes.reserveCapacity(96)
        bytes.append(0x24)
        bytes.append(contentsOf: talker.utf8.prefix(2))
        bytes.append(contentsOf: kind.rawValue.utf8)
    }

    /// Starts the next field.
    mutating func comma() { bytes.append(0x2C) }

    /// Appends a field holding `text`.
    mutating func field(_ text: String) {
        comma()
        bytes.append(contentsOf: text.utf8)
    }

    /// Appends an empty field.
    mutating func empty() { comma() }

    /// Appends a fixed-point field with `decimals` digits after the point, empty when `value` is `nil`.
    mutating func field(_ value: Double?, decimals: Int, integerDigits: Int = 1) {
        comma()
        guard let value, value.isFinite else { return }
        appendFixed(value, decimals: decimals, integerDigits: integerDigits)
    }

    /// Appends an integer field zero-padded to `digits`, empty when `value` is `nil`.
    mutating func field(_ value: Int?, digits: Int = 1) {
        comma()
        guard let value else { return }
        appendInteger(Int64(value), digits: digits)
    }

    /// Appends `hhmmss.sss`, empty when `seconds` is `nil`.
    mutating func time(_ seconds: Double?) {
        comma()
        guard let seconds, seconds.isFinite else { return }
        let milliseconds = Int64(min(max((seconds * 1000).rounded(), 0), 86_399_999))
        let whole = milliseconds / 1000
        appendInteger(whole / 3600, digits: 2)
        appendInteger(whole / 60 % 60, digits: 2)
        appendInteger(whole % 60, digits: 2)
        bytes.append(0x2E)
        appendInteger(milliseconds % 1000, digits: 3)
    }

    /// Appends an RMC date `ddmmyy`, empty unless all three parts are known.
    mutating func date(year: Int?, month: Int?, day: Int?) {
        comma()
        guard let year, let month, let day else { return }
        appendInteger(Int64(day), digits: 2)
        appendInteger(Int64(month), digits: 2)
        appendInteger(Int64(year % 100), digits: 2)
    }

    /// Appends an angle as `ddmm.mmmmmm,H` (latitude) or `dddmm.mmmmmm,H` (longitude); two empty fields for `nil`.
    mutating func angle(_ degrees: Double?, degreeDigits: Int, positive: UInt8, negative: UInt8) {
        comma()
        guard let degrees, degrees.isFinite, abs(degrees) <= 180 else { comma(); return }
        let microMinutes = Int64((abs(degrees) * 60_000_000).rounded())
        appendInteger(microMinutes / 60_000_000, digits: degreeDigits)
        appendInteger(microMinutes % 60_000_000 / 1_000_000, digits: 2)
        bytes.append(0x2E)
        appendInteger(microMinutes % 1_000_000, digits: 6)
        comma()
        bytes.append(degrees < 0 ? negative : positive)
    }

    /// Ends the sentence with `*HH\r\n` and returns it.
    consuming func finish() -> String {
        let sum = NMEASentenceParser.checksum(of: bytes.dropFirst())
        let hex: [UInt8] = Array("0123456789ABCDEF".utf8)
        bytes.append(0x2A)
        bytes.append(hex[Int(sum >> 4)])
        bytes.append(hex[Int(sum & 0x0F)])
        bytes.append(0x0D)
        bytes.append(0x0A)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Writes nothing for a value too large for the field's fixed point (beyond 10¹⁸ units of its last
    /// digit: no receiver prints one), which an empty field says better than a trap.
    private mutating func appendFixed(_ value: Double, decimals: Int, integerDigits: Int) {
        let scale = Int64(NMEADecimal.powersOfTen(decimals))
        let product = (abs(value) * Double(scale)).rounded()
        guard product < 1e18 else { return }
        let scaled = Int64(product)
        if value < 0 && scaled != 0 { bytes.append(0x2D) }
        appendInteger(scaled / scale, digits: integerDigits)
        guard decimals > 0 else { return }
        bytes.append(0x2E)
        appendInteger(scaled % scale, digits: decimals)
    }

    private mutating func appendInteger(_ value: Int64, digits: Int) {
        var magnitude = value.magnitude
        if value < 0 { bytes.append(0x2D) }
        var reversed: [UInt8] = []
        repeat {
            reversed.append(UInt8(magnitude % 10) + 0x30)
            magnitude /= 10
        } while magnitude > 0
        while reversed.count < digits { reversed.append(0x30) }
        bytes.append(contentsOf: reversed.reversed())
    }
}

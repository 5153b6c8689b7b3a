/// One comma-separated field of a sentence: a view into the caller's bytes, never a copy.
struct NMEAField {
    /// The field's bytes, without the separating commas.
    let bytes: UnsafeRawBufferPointer
    /// The 1-based index of the field after the address, for error reports.
    let index: Int
    /// The sentence the field belongs to, for error reports.
    let sentence: NMEASentenceKind

    /// Whether the field is empty (the receiver left it blank).
    var isEmpty: Bool { bytes.isEmpty }

    /// The error for this field.
    func error(_ kind: NMEAErrorKind) -> NMEAError {
        NMEAError(kind, sentence: sentence, field: index)
    }

    /// The single character of a one-letter field, `nil` when empty.
    @inline(__always)
    func character() throws(NMEAError) -> UInt8? {
        if bytes.isEmpty { return nil }
        guard bytes.count == 1 else { throw error(.invalidField) }
        return bytes[0]
    }

    /// One hexadecimal digit (`0`–`9`, `A`–`F`, either case) as its value, `nil` when empty.
    func hexadecimalDigit() throws(NMEAError) -> Int? {
        guard let byte = try character() else { return nil }
        guard let value = NMEASentenceParser.hexValue(byte) else { throw error(.invalidField) }
        return Int(value)
    }

    /// A non-negative decimal integer, `nil` when empty.
    @inline(__always)
    func integer() throws(NMEAError) -> Int? {
        if bytes.isEmpty { return nil }
        guard bytes.count <= 9 else { throw error(.outOfRange) }
        var value = 0
        for byte in bytes {
            let digit = Int(byte) &- 0x30
            guard digit >= 0, digit <= 9 else { throw error(.invalidField) }
            value = value * 10 + digit
        }
        return value
    }

    /// A decimal number such as `-0028`, `1.5` or `3644.759368`, `nil` when empty.
    @inline(__always)
    func decimal() throws(NMEAError) -> Double? {
        if bytes.isEmpty { return nil }
        guard let number = NMEADecimal(bytes) else { throw error(.invalidField) }
        return number.value
    }

    /// A decimal number that must lie in `range`, `nil` when empty.
    @inline(__always)
    func decimal(in range: ClosedRange<Double>) throws(NMEAError) -> Double? {
        guard let value = try decimal() else { return nil }
        guard range.contains(value) else { throw error(.outOfRange) }
        return value
    }

    /// A UTC time of day `hhmmss[.sss…]`, `nil` when empty: six digits, then nothing or a fraction (`1.2345`
    /// or `12345.6` is no time of day).
    func timeOfDay() throws(NMEAError) -> NMEATimeOfDay? {
        if bytes.isEmpty { return nil }
        guard bytes.count >= 6, bytes.count == 6 || bytes[6] == 0x2E, bytes.prefix(6).allSatisfy({ (0x30...0x39).contains($0) }),
            let number = NMEADecimal(bytes), !number.negative
        else { throw error(.invalidField) }
        let hhmmss = number.integerPart
        let (hours, minutes, seconds) = (hhmmss / 10_000, hhmmss / 100 % 100, hhmmss % 100)
        guard hours < 24, minutes < 60, seconds < 61 else { throw error(.outOfRange) }
        let microseconds = number.fractionMicroseconds
        return NMEATimeOfDay(microseconds: Int64((hours * 3600 + minutes * 60 + seconds)) * 1_000_000 + microseconds)
    }

    /// An angle `dddmm.mmmm` with its hemisphere field, in signed degrees; `nil` when both are empty.
    ///
    /// - Parameters:
    ///   - hemisphere: the following N/S or E/W field.
    ///   - positive: the letter for positive values (`N` or `E`).
    ///   - negative: the letter for negative values (`S` or `W`).
    ///   - limit: 90 for latitude, 180 for longitude.
    func angle(hemisphere: NMEAField, positive: UInt8, negative: UInt8, limit: Double) throws(NMEAError) -> Double? {
        if bytes.isEmpty && hemisphere.isEmpty { return nil }
        guard let number = NMEADecimal(bytes), !number.negative else { throw error(.invalidField) }
        guard let letter = try hemisphere.character() else { throw hemisphere.error(.invalidField) }
        guard letter == positive || letter == negative else { throw hemisphere.error(.invalidField) }
        let degrees = number.integerPart / 100
        let minutes = Double(number.integerPart % 100) + number.fraction
        guard minutes < 60 else { throw error(.outOfRange) }
        let value = Double(degrees) + minutes / 60
        guard value <= limit else { throw error(.outOfRange) }
        return letter == negative ? -value : value
    }
}

/// A UTC time of day with microsecond resolution.
public struct NMEATimeOfDay: Sendable, Hashable, Comparable {
    /// Microseconds since midnight UTC.
    public var microseconds: Int64

    /// Creates a time of day from microseconds since midnight.
    public init(microseconds: Int64) { self.microseconds = microseconds }

    /// Seconds since midnight UTC.
    public var seconds: Double { Double(microseconds) / 1_000_000 }

    /// Orders times within one day.
    public static func < (lhs: NMEATimeOfDay, rhs: NMEATimeOfDay) -> Bool { lhs.microseconds < rhs.microseconds }

    /// How far apart two sentences' times may be and still belong to one navigation cycle: 10 ms, as gpsd
    /// takes them (receivers print one cycle's time to different precisions, `120824.758` beside `120824.76`).
    public static let sameCycleTolerance: Int64 = 10_000

    /// Whether `other` is this time within ``sameCycleTolerance``, across midnight too. A leap second
    /// (`23:59:60`) is a second of its own before the midnight that follows it, not the midnight.
    public func isSameCycle(as other: NMEATimeOfDay) -> Bool {
        let day: Int64 = 86_400_000_000
        // The day that holds a leap second is a second longer: its midnight comes after 23:59:60.999….
        let length = microseconds >= day || other.microseconds >= day ? day + 1_000_000 : day
        let apart = abs(microseconds - other.microseconds)
        return min(apart, length - apart) < NMEATimeOfDay.sameCycleTolerance
    }
}

/// A decimal number parsed straight from ASCII bytes, without `String` or `strtod`.
///
/// The digits accumulate into an integer mantissa which is divided once by an
/// exact power of ten, so values with up to 15 significant digits come out
/// correctly rounded, the same `Double` as `Double("…")` would give.
struct NMEADecimal {
    /// Whether a leading `-` was present.
    let negative: Bool
    /// The digits before the decimal point.
    let integerPart: Int
    /// The digits after the decimal point, as an integer.
    let fractionDigits: Int64
    /// How many digits followed the decimal point (at most 18 are kept).
    let fractionLength: Int

    /// Parses `[+-]digits[.digits]` (at least one digit, at most 15 before the point). Returns `nil` for anything else.
    ///
    /// - Complexity: O(n); digits past the 18th after the point are checked but ignored.
    @inline(__always)
    init?(_ bytes: UnsafeRawBufferPointer) {
        let count = bytes.count
        var index = 0
        var negative = false
        if count > 0, bytes[0] == 0x2D || bytes[0] == 0x2B {
            negative = bytes[0] == 0x2D
            index = 1
        }
        let integerStart = index
        var integer = 0
        while index < count {
            let digit = bytes[index] &- 0x30
            guard digit <= 9 else { break }
            integer = integer &* 10 &+ Int(digit)
            index &+= 1
        }
        let integerDigits = index &- integerStart
        guard integerDigits <= 15 else { return nil }
        var fraction: Int64 = 0
        var fractionLength = 0
        if index < count {
            guard bytes[index] == 0x2E else { return nil }
            index &+= 1
            let fractionStart = index
            let kept = min(count, index &+ 18)
            while index < kept {
                let digit = bytes[index] &- 0x30
                guard digit <= 9 else { return nil }
                fraction = fraction &* 10 &+ Int64(digit)
                index &+= 1
            }
            fractionLength = index &- fractionStart
            while index < count {
                guard bytes[index] &- 0x30 <= 9 else { return nil }
                index &+= 1
            }
        }
        guard integerDigits &+ fractionLength > 0 else { return nil }
        self.negative = negative
        self.integerPart = integer
        self.fractionDigits = fraction
        self.fractionLength = fractionLength
    }

    /// The fractional part as a `Double` in `[0, 1)`.
    var fraction: Double { Double(fractionDigits) / NMEADecimal.powersOfTen(fractionLength) }

    /// The fractional part in whole microseconds (truncated beyond six digits).
    var fractionMicroseconds: Int64 {
        var value = fractionDigits
        var length = fractionLength
        while length > 6 { value /= 10; length -= 1 }
        while length < 6 { value *= 10; length += 1 }
        return value
    }

    /// The signed value, correctly rounded when it has at most 15 significant digits.
    @inline(__always)
    var value: Double {
        if fractionDigits == 0 {
            return negative ? -Double(integerPart) : Double(integerPart)
        }
        let scale = NMEADecimal.powersOfTen(fractionLength)
        // mantissa = integer × 10^k + fraction is exact while it stays below 2^53: one rounding only.
        let (shifted, overflow) = Int64(integerPart).multipliedReportingOverflow(by: Int64(scale))
        let magnitude: Double
        if !overflow, shifted <= (1 << 53) - fractionDigits {
            magnitude = Double(shifted + fractionDigits) / scale
        } else {
            magnitude = Double(integerPart) + Double(fractionDigits) / scale
        }
        return negative ? -magnitude : magnitude
    }

    /// 10^n for n in 0...18, exact.
    static func powersOfTen(_ n: Int) -> Double {
        switch n {
        case 0: 1
        case 1: 1e1
        case 2: 1e2
        case 3: 1e3
        case 4: 1e4
        case 5: 1e5
        case 6: 1e6
        case 7: 1e7
        case 8: 1e8
        case 9: 1e9
        case 10: 1e10
        case 11: 1e11
        case 12: 1e12
        case 13: 1e13
        case 14: 1e14
        case 15: 1e15
        case 16: 1e16
        case 17: 1e17
        default: 1e18
        }
    }
}

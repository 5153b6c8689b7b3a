import LocationEngine
import SyntheticGPS

/// How one query parameter's text becomes a value: a pure function of that text alone.
struct QueryValue<Value>: Sendable {
    /// What the text must look like, for the message of a 400, and what was wrong with it when that
    /// says more than the expectation alone.
    struct Invalid: Error {
        var expected: String
        var problem: String? = nil

        /// "`problem`; expected `expected`", or "expected `expected`".
        var message: String { (problem.map { "\($0); " } ?? "") + "expected \(expected)" }
    }

    let parse: @Sendable (String) throws(Invalid) -> Value
}

/// What `accuracy` names: a standard level, or custom metres (whose recency comes from `maxAge`).
enum AccuracyText: Equatable, Sendable {
    case level(AccuracyLevel)
    case metres(Double)
}

extension QueryValue where Value == AccuracyText {
    /// `city`, `neighborhood`, `block`, `house`, `room`, or a positive number of metres.
    static var accuracy: Self {
        QueryValue { text throws(Invalid) in
            if let level = AccuracyLevel.allCases.first(where: { $0.description == text }) { return .level(level) }
            guard let metres = QueryNumber.decimal(text), metres > 0, metres <= QueryNumber.maximumMetres else {
                throw Invalid(expected: "city, neighborhood, block, house, room or a number of metres in (0, \(Int(QueryNumber.maximumMetres))]")
            }
            return .metres(metres)
        }
    }
}

extension QueryValue where Value == Duration {
    /// The longest duration a parameter takes: one day.
    static var maximumDuration: Duration { .seconds(86_400) }

    /// A duration of at most a day: seconds (`2.5`) or with units (`250ms`, `2s`, `1m`, `1h30m`);
    /// zero only when `allowingZero`. A refusal says what was wrong (negative, zero, under a millisecond,
    /// longer than a day, not a duration) beside what is accepted.
    static func duration(allowingZero: Bool) -> Self {
        QueryValue { text throws(Invalid) in
            let range = allowingZero ? "0 to 1 day" : "more than 0, up to 1 day"
            let expected = "a duration (\(range)) such as 2.5, 250ms, 2s or 1m"
            if text.hasPrefix("-") { throw Invalid(expected: expected, problem: "negative") }
            // No spaces (the command line's reader trims them; a number parameter refuses them too).
            guard !text.contains(" "), let seconds = try? DurationText.seconds(parsing: text) else {
                throw Invalid(expected: expected, problem: "not a duration (a number of seconds, or numbers with units ms, s, m, h, d)")
            }
            if let duration = duration(seconds: seconds, allowingZero: allowingZero) { return duration }
            throw Invalid(expected: expected, problem: refusal(seconds: seconds))
        }
    }

    /// Why `seconds` (not negative) gave no duration: zero, under the millisecond that durations are kept in
    /// (so it would be zero), not finite, or longer than a day.
    static func refusal(seconds: Double) -> String {
        if seconds == 0 { return "zero" }
        if !seconds.isFinite { return "not finite" }
        if seconds < maximumDuration / .seconds(1) { return "shorter than 1 millisecond, the smallest step" }
        return "longer than 1 day"
    }

    /// `seconds` in whole milliseconds, when that lies within 0 to 1 day (above 0 unless `allowingZero`); `nil`
    /// otherwise (negative, not finite, too long). The query's text and a JSON body's number both convert here.
    static func duration(seconds: Double, allowingZero: Bool) -> Duration? {
        guard seconds.isFinite, seconds >= 0 else { return nil }
        let duration = Duration.milliseconds(Int64((min(seconds, 86_401) * 1000).rounded()))
        // Zero only when it was asked for: a nonzero duration under a millisecond is refused, not taken as zero.
        guard duration <= maximumDuration, duration > .zero || (allowingZero && seconds == 0) else { return nil }
        return duration
    }
}

extension QueryValue where Value == Double {
    /// A distance in metres, 0 or more (at most half the Earth's circumference).
    static var distance: Self {
        QueryValue { text throws(Invalid) in
            guard let metres = QueryNumber.decimal(text), metres >= 0, metres <= QueryNumber.maximumMetres else {
                throw Invalid(expected: "a number of metres from 0 to \(Int(QueryNumber.maximumMetres))")
            }
            return metres
        }
    }
}

extension QueryValue where Value == Int {
    /// A whole number of 1 or more.
    static var count: Self {
        QueryValue { text throws(Invalid) in
            guard QueryNumber.isDigits(text) else {
                throw Invalid(expected: "a whole number of 1 or more")
            }
            guard let value = Int(text), value > 0 else {
                throw Invalid(expected: "a whole number from 1 to \(Int.max)")
            }
            return value
        }
    }
}

extension QueryValue where Value == SubscriptionKind {
    /// The names of the subscription kinds, as the query spells them.
    static var kindNames: KeyValuePairs<String, SubscriptionKind> {
        ["standard": .standard, "significant": .significantChange, "passive": .passive, "heading": .heading]
    }

    /// `standard`, `significant`, `passive` or `heading`.
    static var kind: Self {
        QueryValue { text throws(Invalid) in
            guard let kind = kindNames.first(where: { $0.key == text })?.value else {
                throw Invalid(expected: "standard, significant, passive or heading")
            }
            return kind
        }
    }
}

/// Plain decimal numbers, as a query spells them.
enum QueryNumber {
    /// Half the Earth's circumference: no distance or accuracy radius on it is larger.
    static let maximumMetres = 20_000_000.0

    /// Whether `text` is one or more decimal digits and nothing else (no sign, no space).
    static func isDigits(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }
    }

    /// `text` as a finite decimal number (`25`, `12.5`, `1e3`), or `nil`: no hexadecimal, `nan`,
    /// `inf`, spaces or signs other than an exponent's.
    static func decimal(_ text: String) -> Double? {
        guard let first = text.utf8.first, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first) || first == UInt8(ascii: "."),
            text.utf8.allSatisfy(allowed.contains), let value = Double(text), value.isFinite
        else { return nil }
        return value
    }

    /// The bytes of a decimal number: digits, a point, an exponent and its sign.
    private static let allowed = Set("0123456789.eE-+".utf8)
}

/// A UTC calendar date and time of day, converted from Unix time without Foundation
/// (Howard Hinnant's `civil_from_days`, exact for the proleptic Gregorian calendar).
public struct UTCDate: Sendable, Hashable {
    /// The year, e.g. 2026.
    public var year: Int
    /// The month, `1...12`.
    public var month: Int
    /// The day of the month, `1...31`.
    public var day: Int
    /// Seconds since midnight, `0 ..< 86400`.
    public var secondsOfDay: Double

    /// The date and time of `unixTime` (seconds since 1970-01-01T00:00:00Z; leap seconds are not counted).
    public init(unixTime: Double) {
        let days = (unixTime / 86_400).rounded(.down)
        secondsOfDay = unixTime - days * 86_400
        let z = Int(days) + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        day = doy - (153 * mp + 2) / 5 + 1
        month = mp < 10 ? mp + 3 : mp - 9
        year = yoe + era * 400 + (month <= 2 ? 1 : 0)
    }

    /// ISO 8601 with milliseconds, as gpsd writes it: `2026-01-01T12:00:00.000Z`.
    public var iso8601: String {
        let millis = min(86_399_999, Int((secondsOfDay * 1000).rounded()))
        let h = millis / 3_600_000, m = millis / 60_000 % 60, s = millis / 1000 % 60, ms = millis % 1000
        return "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))T\(pad(h, 2)):\(pad(m, 2)):\(pad(s, 2)).\(pad(ms, 3))Z"
    }

    private func pad(_ value: Int, _ width: Int) -> String {
        let digits = String(value)
        return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
    }
}

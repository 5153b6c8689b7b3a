import NMEA

/// The part of one gpsd JSON report (gpsd_json(5)) that the source reads. Unknown keys are ignored.
struct GPSDReport: Decodable, Sendable {
    /// The report class: `TPV`, `VERSION`, `DEVICES`, `DEVICE`, `WATCH`, `SKY`, `ERROR`, ….
    var `class`: String
    /// TPV: 0 unknown, 1 no fix, 2 2D, 3 3D.
    var mode: Int?
    /// TPV: UTC time, ISO 8601; absent on the first reports of a session.
    var time: String?
    /// TPV: latitude, degrees.
    var lat: Double?
    /// TPV: longitude, degrees.
    var lon: Double?
    /// TPV: altitude above mean sea level, metres.
    var altMSL: Double?
    /// TPV: altitude in gpsd before 3.20 (mean sea level), metres.
    var alt: Double?
    /// TPV: altitude above the WGS-84 ellipsoid, metres.
    var altHAE: Double?
    /// TPV: horizontal error estimate (≈ 95 %), metres.
    var eph: Double?
    /// TPV: longitude error estimate (≈ 95 %), metres.
    var epx: Double?
    /// TPV: latitude error estimate (≈ 95 %), metres.
    var epy: Double?
    /// TPV: vertical error estimate (≈ 95 %), metres.
    var epv: Double?
    /// TPV: ground speed, m/s.
    var speed: Double?
    /// TPV: course over ground, degrees from true north.
    var track: Double?
    /// ERROR: gpsd's complaint.
    var message: String?
    /// VERSION: gpsd's release.
    var release: String?
    /// DEVICE: the device path.
    var path: String?
    /// DEVICE: the driver gpsd identified the device with (absent until it has).
    var driver: String?
    /// TPV: the device the report came from.
    var device: String?
    /// DEVICES: the devices gpsd knows.
    var devices: [Device]?

    /// One entry of a DEVICES report.
    struct Device: Decodable, Sendable {
        /// The device path.
        var path: String?
        /// The driver gpsd identified the device with (absent until it has).
        var driver: String?
    }
}

/// Parses gpsd's TPV `time` (`2024-05-01T12:34:56.789Z`) into seconds since 1970-01-01.
enum GPSDTime {
    /// The Unix time of `text`, or `nil` when it is not `YYYY-MM-DDTHH:MM:SS[.fff]Z` of a date that
    /// exists (not `2024-02-30`).
    /// - Complexity: O(n) in the length of `text`.
    static func unixTime(_ text: String) -> Double? {
        let bytes = Array(text.utf8)
        guard bytes.count >= 20, bytes.count <= 40, bytes.last == UInt8(ascii: "Z"),
            bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"), bytes[10] == UInt8(ascii: "T"),
            bytes[13] == UInt8(ascii: ":"), bytes[16] == UInt8(ascii: ":"),
            let year = number(bytes, 0, 4), let month = number(bytes, 5, 2), let day = number(bytes, 8, 2),
            let hour = number(bytes, 11, 2), let minute = number(bytes, 14, 2), let second = number(bytes, 17, 2),
            (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second <= 60
        else { return nil }
        var fraction = 0.0
        if bytes.count > 20 {
            guard bytes[19] == UInt8(ascii: "."), bytes.count > 21 else { return nil }
            var scale = 0.1
            for byte in bytes[20..<(bytes.count - 1)] {
                guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
                fraction += Double(byte - UInt8(ascii: "0")) * scale
                scale /= 10
            }
        }
        // The NMEA module owns the calendar arithmetic: let an epoch do the date-to-seconds sum.
        var epoch = NMEAEpoch()
        epoch.year = year
        epoch.month = month
        epoch.day = day
        epoch.secondsOfDay = Double(hour * 3600 + minute * 60 + second) + fraction
        return epoch.unixTime
    }

    private static func number(_ bytes: [UInt8], _ start: Int, _ count: Int) -> Int? {
        var value = 0
        for byte in bytes[start..<(start + count)] {
            guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
            value = value * 10 + Int(byte - UInt8(ascii: "0"))
        }
        return value
    }
}

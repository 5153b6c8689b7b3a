/// Writes fixes as a GeoJSON `FeatureCollection` of `Point`s (RFC 7946: `[longitude, latitude, altitude]`),
/// each with `time`, `mode`, `accuracy` (68 % radius, metres), `speed`, `course` and the ground truth
/// `truth: [longitude, latitude]`, so a map shows reported and true tracks side by side.
/// Epochs without a fix are left out.
public struct GeoJSONWriter: EpochWriter {
    /// The collection's name (a top-level `name` member).
    public var name: String
    private var wroteFeature = false

    /// A writer for a collection called `name`.
    public init(name: String) {
        self.name = name
    }

    /// The collection's opening.
    public func header() -> String {
        "{\"type\":\"FeatureCollection\",\"name\":\(JSONText.string(name)),\"features\":[\n"
    }

    /// Appends a `Point` feature for a fix; nothing for an epoch without one.
    public mutating func write(_ epoch: SyntheticEpoch, to output: inout String) {
        guard let fix = epoch.fix else { return }
        if wroteFeature { output += ",\n" }
        wroteFeature = true
        var coordinates = "\(DecimalText.fixed(fix.longitude, decimals: 8)),\(DecimalText.fixed(fix.latitude, decimals: 8))"
        if let altitude = fix.altitude { coordinates += ",\(DecimalText.fixed(altitude, decimals: 2))" }
        output += "{\"type\":\"Feature\",\"geometry\":{\"type\":\"Point\",\"coordinates\":[\(coordinates)]},"
        output += "\"properties\":{\"time\":\"\(UTCDate(unixTime: epoch.unixTime).iso8601)\""
        output += ",\"mode\":\(fix.is3D ? 3 : 2),\"accuracy\":\(DecimalText.fixed(fix.horizontalAccuracy, decimals: 2))"
        if let speed = fix.speed { output += ",\"speed\":\(DecimalText.fixed(speed, decimals: 3))" }
        if let course = fix.course { output += ",\"course\":\(DecimalText.fixed(course, decimals: 2))" }
        output += ",\"truth\":[\(DecimalText.fixed(epoch.truth.longitude, decimals: 8)),"
        output += "\(DecimalText.fixed(epoch.truth.latitude, decimals: 8))]}}"
    }

    /// The collection's closing.
    public func footer() -> String { "\n]}\n" }
}

/// Minimal JSON string escaping for the writers.
enum JSONText {
    /// `text` as a quoted JSON string.
    static func string(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                result += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }
}

import Foundation
import LocationEngine

/// A position that does not move — a server in a rack, a kiosk, a base station — with the radius it is known
/// to: what a ``FixedLocationSource`` reports.
public struct FixedLocation: Sendable, Hashable {
    /// Degrees north, −90 to 90.
    public let latitude: Double
    /// Degrees east, −180 to 180.
    public let longitude: Double
    /// Metres above mean sea level, if known.
    public let altitude: Double?
    /// The radius within which the true position lies, metres (at least 0).
    public let accuracy: Double

    /// A position, checked: finite coordinates within range and a finite, non-negative accuracy.
    public init(latitude: Double, longitude: Double, altitude: Double? = nil, accuracy: Double) throws(FixedLocationError) {
        guard latitude.isFinite, (-90...90).contains(latitude) else { throw .invalid("latitude must be a number from -90 to 90 (got \(latitude))") }
        guard longitude.isFinite, (-180...180).contains(longitude) else {
            throw .invalid("longitude must be a number from -180 to 180 (got \(longitude))")
        }
        if let altitude, !altitude.isFinite { throw .invalid("altitude must be a finite number of metres (got \(altitude))") }
        guard accuracy.isFinite, accuracy >= 0 else { throw .invalid("accuracy must be a finite radius of at least 0 m (got \(accuracy))") }
        self.latitude = latitude
        self.longitude = longitude
        self.altitude = altitude
        self.accuracy = accuracy
    }

    /// Reads the `/etc/geolocation` format that GeoClue's static source reads: four values, one per line —
    /// latitude, longitude, altitude (metres), accuracy radius (metres) — with `#` starting a comment and
    /// blank lines ignored; what follows the fourth value is not read. Lines may end in `\n` or `\r\n`.
    /// - Throws: ``FixedLocationError`` naming the line, for a value that is not a number, a missing value, or
    ///   a position out of range.
    public init(geolocation text: String) throws(FixedLocationError) {
        var values: [Double] = []
        // Any line ending: a file written on Windows ends its lines with "\r\n", one Character in Swift.
        let lines = text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline)
        for (index, rawLine) in lines.enumerated() where values.count < 4 {
            let content = rawLine.prefix { $0 != "#" }.trimmingCharacters(in: .whitespaces)
            guard !content.isEmpty else { continue }
            // Whole-line numbers only, as GeoClue reads them (no units, no second value on the line).
            guard let value = Double(content), !content.contains(where: { $0.isLetter && $0 != "e" && $0 != "E" }) else {
                throw .invalid("line \(index + 1): '\(content)' is not a number (\(Self.fields[values.count]) expected)")
            }
            values.append(value)
        }
        guard values.count == 4 else {
            throw .invalid("\(values.count) of 4 values (latitude, longitude, altitude, accuracy); \(Self.fields[values.count]) is missing")
        }
        try self.init(latitude: values[0], longitude: values[1], altitude: values[2], accuracy: values[3])
    }

    private static let fields = ["the latitude", "the longitude", "the altitude", "the accuracy radius", ""]

    /// The position as a fix (no speed, no course), stamped with `utcTime` seconds since 1970 if given.
    public func fix(utcTime: Double? = nil) -> Location {
        Location(latitude: latitude, longitude: longitude, horizontalAccuracy: accuracy, altitude: altitude, utcTime: utcTime)
    }
}

/// A fixed position that cannot be used: out of range, or a file that does not say one.
public struct FixedLocationError: Error, Sendable, Hashable, CustomStringConvertible {
    public let description: String

    init(description: String) { self.description = description }

    static func invalid(_ reason: String) -> FixedLocationError { FixedLocationError(description: "invalid fixed location: \(reason)") }
}

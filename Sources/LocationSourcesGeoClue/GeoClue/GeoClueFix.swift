import LocationEngine

/// Turns the properties of a GeoClue `Location` object (`org.freedesktop.GeoClue2.Location`, as `GetAll`
/// answers) into a fix, or says why they are not one.
///
/// GeoClue marks what it does not know: an altitude of `-Double.greatestFiniteMagnitude`, a speed or heading
/// of −1. Those become unknown (`nil`). Its NMEA source reports accuracy as a class of the HDOP (0 for the
/// best, not a perfect fix): a reported accuracy found in ``GeoClueConfiguration/accuracyClasses`` becomes the
/// radius it maps to, marked as estimated. An accuracy of −1 (GeoClue's "unknown": an NMEA feed of RMC alone
/// has no HDOP) becomes the coarsest class's radius, estimated.
/// Anything else that cannot be a fix — a latitude or longitude that is missing, not a number,
/// not finite or out of range, an accuracy that is negative (other than −1) or not finite, a speed, heading or altitude
/// that is NaN or infinite — rejects the whole fix with the reason; the source counts it and delivers
/// nothing.
enum GeoClueFix {
    /// Why a `Location` object's properties are not a fix.
    struct Rejection: Error, Sendable, Hashable, CustomStringConvertible {
        /// The property at fault.
        var property: String
        /// What is wrong with it.
        var reason: String
        var description: String { "\(property): \(reason)" }
    }

    /// The fix the properties describe; an accuracy that is one of `accuracyClasses` becomes its radius (estimated).
    /// - Throws: ``Rejection`` naming the first property that makes it no fix.
    static func location(from properties: [String: DBusValue], accuracyClasses: [Double: Double]) throws(Rejection) -> Location {
        let latitude = try required("Latitude", in: properties, range: -90...90)
        let longitude = try required("Longitude", in: properties, range: -180...180)
        // −1 is GeoClue's "accuracy unknown" (every new location starts with it; an RMC-only NMEA feed keeps it).
        let reported = try required("Accuracy", in: properties, range: -1...Double.greatestFiniteMagnitude)
        guard reported >= 0 || reported == -1 else {
            throw Rejection(property: "Accuracy", reason: "\(reported) is negative and not GeoClue's unknown (-1)")
        }
        var location = Location(latitude: latitude, longitude: longitude, horizontalAccuracy: reported)
        if reported >= 0, let radius = accuracyClasses[reported] {
            location.horizontalAccuracy = radius
            location.horizontalAccuracyIsEstimated = true
        } else if reported <= 0 {
            // Unknown (−1, or a 0 no class maps): nothing finer than the coarsest class.
            location.horizontalAccuracy = GeoClueConfiguration.nmeaAccuracyClasses[300]!
            location.horizontalAccuracyIsEstimated = true
        }
        // Below the deepest mine or above the edge of space is GeoClue's "unknown" marker or nonsense.
        location.altitude = try optional("Altitude", in: properties, known: -12_000...100_000)
        location.speed = try optional("Speed", in: properties, known: 0...Double.greatestFiniteMagnitude)
        location.course = try optional("Heading", in: properties, known: 0...360).map { $0 == 360 ? 0 : $0 }
        location.utcTime = try timestamp(properties["Timestamp"])
        return location
    }

    private static func number(_ name: String, _ value: DBusValue) throws(Rejection) -> Double {
        guard let number = value.number else { throw Rejection(property: name, reason: "not a number (\(value))") }
        guard number.isFinite else { throw Rejection(property: name, reason: "not finite (\(number))") }
        return number
    }

    private static func required(_ name: String, in properties: [String: DBusValue], range: ClosedRange<Double>) throws(Rejection) -> Double {
        guard let value = properties[name] else { throw Rejection(property: name, reason: "missing") }
        let number = try number(name, value)
        guard range.contains(number) else { throw Rejection(property: name, reason: "\(number) is out of range \(range)") }
        return number
    }

    /// A property that may be unknown: absent, or outside `known` (GeoClue's markers), is `nil`.
    private static func optional(_ name: String, in properties: [String: DBusValue], known: ClosedRange<Double>) throws(Rejection) -> Double? {
        guard let value = properties[name] else { return nil }
        let number = try number(name, value)
        return known.contains(number) ? number : nil
    }

    /// `Timestamp` is `(tt)`: seconds and microseconds since the Unix epoch; absent or zero is unknown.
    /// A peer may send other numeric types in the structure: negative, fractional beyond a microsecond or
    /// non-finite parts are not a time.
    private static func timestamp(_ value: DBusValue?) throws(Rejection) -> Double? {
        guard let value else { return nil }
        guard case .structure(let parts) = value.unwrapped, parts.count == 2, let seconds = parts[0].number, let micro = parts[1].number,
            seconds.isFinite, seconds >= 0, micro >= 0, micro < 1_000_000
        else {
            throw Rejection(property: "Timestamp", reason: "not (seconds, microseconds) (\(value))")
        }
        return seconds == 0 ? nil : seconds + micro / 1_000_000
    }
}

import CDBus
import LocationEngine
@testable import LocationSourcesGeoClue

/// One libFuzzer run of what the GeoClue source reads from the bus: D-Bus messages decoded into values, and
/// a `Location` object's properties mapped to a fix.
///
/// An input whose first byte is even is a marshalled D-Bus message (libdbus validates and demarshals it;
/// its arguments are decoded as the source decodes a reply, and an `a{sv}` among them is mapped). An odd
/// first byte builds the properties directly: each of GeoClue's property names is absent, a double, an
/// unsigned integer, a string or a nested variant, from the bytes that follow.
/// Invariants: no crash, no hang; every fix delivered is valid (finite, in range, non-negative accuracy),
/// with a course in [0, 360), a non-negative finite speed and a finite altitude when they are known.
func fuzzGeoClueValues(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let data, size > 1 else { return 0 }
    let bytes = UnsafeBufferPointer(start: data, count: size)
    if bytes[0] % 2 == 0 {
        var error = CDBus.DBusError()
        dbus_error_init(&error)
        defer { dbus_error_free(&error) }
        let message = bytes.baseAddress!.advanced(by: 1).withMemoryRebound(to: CChar.self, capacity: size - 1) {
            dbus_message_demarshal($0, Int32(size - 1), &error)
        }
        guard let message else { return 0 }
        defer { dbus_message_unref(message) }
        guard let arguments = try? DBusMessageCoding.arguments(of: message) else { return 0 }
        for argument in arguments { if let properties = argument.stringKeyedDictionary { check(properties) } }
    } else {
        var reader = ByteReader(bytes: bytes.dropFirst())
        var properties: [String: DBusValue] = [:]
        for name in ["Latitude", "Longitude", "Accuracy", "Altitude", "Speed", "Heading", "Timestamp"] {
            if let value = reader.value() { properties[name] = value }
        }
        check(properties)
    }
    return 0
}

private func check(_ properties: [String: DBusValue]) {
    guard let fix = try? GeoClueFix.location(from: properties, accuracyClasses: GeoClueConfiguration.nmeaAccuracyClasses) else { return }
    precondition(fix.isValid, "an invalid fix was delivered")
    if let course = fix.course { precondition((0..<360).contains(course), "course out of range") }
    if let speed = fix.speed { precondition(speed.isFinite && speed >= 0, "speed not finite or negative") }
    if let altitude = fix.altitude { precondition(altitude.isFinite, "altitude not finite") }
    if let time = fix.utcTime { precondition(time.isFinite && time > 0, "timestamp not finite") }
}

/// Draws values from the fuzzer's bytes.
private struct ByteReader {
    var bytes: Slice<UnsafeBufferPointer<UInt8>>

    mutating func byte() -> UInt8? { bytes.popFirst() }

    mutating func word() -> UInt64 {
        var result: UInt64 = 0
        for _ in 0..<8 { result = result << 8 | UInt64(byte() ?? 0) }
        return result
    }

    mutating func value(depth: Int = 0) -> DBusValue? {
        guard let kind = byte() else { return nil }
        switch kind % 6 {
        case 0: return nil
        case 1: return .variant(.double(Double(bitPattern: word())))
        case 2: return .variant(.uint32(UInt32(truncatingIfNeeded: word())))
        case 3: return .variant(.string(String(decoding: [byte() ?? 0, byte() ?? 0], as: UTF8.self)))
        case 4: return .variant(.structure([.uint64(word()), .uint64(word())]))
        default: return depth < 4 ? value(depth: depth + 1).map { .variant($0) } : nil
        }
    }
}

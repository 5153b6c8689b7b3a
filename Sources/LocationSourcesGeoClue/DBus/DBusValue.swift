/// A value read from or written to a D-Bus message: the basic types GeoClue's interfaces use and the
/// containers around them.
///
/// A value decoded from a message is checked as it is read: strings are valid UTF-8 (libdbus has checked
/// the message), containers nest at most ``maximumDepth`` deep (the bus allows 64; nothing GeoClue sends
/// nests more than three), so a malformed or hostile message yields an error, never a crash.
enum DBusValue: Sendable, Hashable {
    case byte(UInt8)
    case boolean(Bool)
    case int16(Int16)
    case uint16(UInt16)
    case int32(Int32)
    case uint32(UInt32)
    case int64(Int64)
    case uint64(UInt64)
    case double(Double)
    case string(String)
    case objectPath(String)
    case signature(String)
    /// A Unix file descriptor passed in the message; only its presence is kept (GeoClue sends none).
    case unixFD
    indirect case variant(DBusValue)
    /// An array: of values, or of dictionary entries (``dictionaryEntry(_:_:)``).
    case array([DBusValue])
    case structure([DBusValue])
    indirect case dictionaryEntry(DBusValue, DBusValue)

    /// How deep decoded containers may nest.
    static let maximumDepth = 16

    /// The value inside any number of variants.
    var unwrapped: DBusValue {
        if case .variant(let inner) = self { return inner.unwrapped }
        return self
    }

    /// The value as a number, if it is one (any width), inside variants.
    var number: Double? {
        switch unwrapped {
        case .byte(let value): Double(value)
        case .int16(let value): Double(value)
        case .uint16(let value): Double(value)
        case .int32(let value): Double(value)
        case .uint32(let value): Double(value)
        case .int64(let value): Double(value)
        case .uint64(let value): Double(value)
        case .double(let value): value
        default: nil
        }
    }

    /// The value as a string or object path, inside variants.
    var text: String? {
        switch unwrapped {
        case .string(let value), .objectPath(let value): value
        default: nil
        }
    }

    /// An array of dictionary entries with string keys (`a{sv}`, as `GetAll` answers), as a dictionary;
    /// `nil` for anything else. A key given twice keeps its last value.
    var stringKeyedDictionary: [String: DBusValue]? {
        guard case .array(let entries) = unwrapped else { return nil }
        var result: [String: DBusValue] = [:]
        for entry in entries {
            guard case .dictionaryEntry(.string(let key), let value) = entry else { return nil }
            result[key] = value
        }
        return result
    }
}

import CDBus

/// Reads and writes ``DBusValue``s through libdbus's message iterators.
enum DBusMessageCoding {
    // libdbus's type codes are C macros of character literals (`((int) 's')`), which Swift does not import.
    static func code(_ character: Unicode.Scalar) -> Int32 { Int32(character.value) }

    /// The most values one message's arguments are read into. GeoClue's largest answer (a location's
    /// properties) is a few dozen; a bus message may be 32 MiB, and any local user may address a signal to the
    /// source's connection, so an array of millions of bytes is refused rather than turned into millions of
    /// values (half a gigabyte of them, read before the sender is even looked at).
    static let maximumValues = 4096

    /// Every argument of `message`.
    /// - Throws: a malformed-message failure for more than ``maximumValues`` values, nesting deeper than
    ///   ``DBusValue/maximumDepth``, or a type the reader does not know.
    static func arguments(of message: OpaquePointer) throws(DBusFailure) -> [DBusValue] {
        var iterator = DBusMessageIter()
        guard dbus_message_iter_init(message, &iterator) != 0 else { return [] }
        var budget = maximumValues
        return try values(&iterator, depth: 0, budget: &budget)
    }

    private static func values(_ iterator: inout DBusMessageIter, depth: Int, budget: inout Int) throws(DBusFailure) -> [DBusValue] {
        var result: [DBusValue] = []
        while dbus_message_iter_get_arg_type(&iterator) != 0 {  // DBUS_TYPE_INVALID
            guard budget > 0 else {
                throw DBusFailure(name: DBusFailure.Name.malformed, message: "more than \(maximumValues) values in one message")
            }
            budget -= 1
            result.append(try value(&iterator, depth: depth, budget: &budget))
            dbus_message_iter_next(&iterator)
        }
        return result
    }

    private static func value(_ iterator: inout DBusMessageIter, depth: Int, budget: inout Int) throws(DBusFailure) -> DBusValue {
        let type = dbus_message_iter_get_arg_type(&iterator)
        var basic = DBusBasicValue()
        func read() { dbus_message_iter_get_basic(&iterator, &basic) }
        switch type {
        case code("y"): read(); return .byte(basic.byt)
        case code("b"): read(); return .boolean(basic.bool_val != 0)
        case code("n"): read(); return .int16(basic.i16)
        case code("q"): read(); return .uint16(basic.u16)
        case code("i"): read(); return .int32(basic.i32)
        case code("u"): read(); return .uint32(basic.u32)
        case code("x"): read(); return .int64(Int64(basic.i64))
        case code("t"): read(); return .uint64(UInt64(basic.u64))
        case code("d"): read(); return .double(basic.dbl)
        case code("s"), code("o"), code("g"):
            read()
            let text = basic.str.map { String(cString: $0) } ?? ""
            return type == code("s") ? .string(text) : type == code("o") ? .objectPath(text) : .signature(text)
        // Reading a descriptor duplicates it; nothing here uses one, so it is not read (and never leaked).
        case code("h"): return .unixFD
        case code("v"), code("a"), code("r"), code("e"):
            guard depth < DBusValue.maximumDepth else {
                throw DBusFailure(name: DBusFailure.Name.malformed, message: "containers nested deeper than \(DBusValue.maximumDepth)")
            }
            var inner = DBusMessageIter()
            dbus_message_iter_recurse(&iterator, &inner)
            let contents = try values(&inner, depth: depth + 1, budget: &budget)
            switch type {
            case code("v"):
                guard contents.count == 1 else { throw DBusFailure(name: DBusFailure.Name.malformed, message: "a variant without one value") }
                return .variant(contents[0])
            case code("a"): return .array(contents)
            case code("r"): return .structure(contents)
            default:
                guard contents.count == 2 else { throw DBusFailure(name: DBusFailure.Name.malformed, message: "a dictionary entry without a key and a value") }
                return .dictionaryEntry(contents[0], contents[1])
            }
        default:
            throw DBusFailure(name: DBusFailure.Name.malformed, message: "unknown D-Bus type code \(type)")
        }
    }

    /// Appends `arguments` to `message` (any value but a file descriptor or an empty array).
    static func append(_ arguments: [DBusValue], to message: OpaquePointer) throws(DBusFailure) {
        var iterator = DBusMessageIter()
        dbus_message_iter_init_append(message, &iterator)
        for argument in arguments { try append(argument, to: &iterator) }
    }

    private static func append(_ value: DBusValue, to iterator: inout DBusMessageIter) throws(DBusFailure) {
        var basic = DBusBasicValue()
        let ok: dbus_bool_t
        switch value {
        case .byte(let v): basic.byt = v; ok = dbus_message_iter_append_basic(&iterator, code("y"), &basic)
        case .boolean(let v): basic.bool_val = v ? 1 : 0; ok = dbus_message_iter_append_basic(&iterator, code("b"), &basic)
        case .int16(let v): basic.i16 = v; ok = dbus_message_iter_append_basic(&iterator, code("n"), &basic)
        case .uint16(let v): basic.u16 = v; ok = dbus_message_iter_append_basic(&iterator, code("q"), &basic)
        case .int32(let v): basic.i32 = v; ok = dbus_message_iter_append_basic(&iterator, code("i"), &basic)
        case .uint32(let v): basic.u32 = v; ok = dbus_message_iter_append_basic(&iterator, code("u"), &basic)
        case .int64(let v): basic.i64 = dbus_int64_t(v); ok = dbus_message_iter_append_basic(&iterator, code("x"), &basic)
        case .uint64(let v): basic.u64 = dbus_uint64_t(v); ok = dbus_message_iter_append_basic(&iterator, code("t"), &basic)
        case .double(let v): basic.dbl = v; ok = dbus_message_iter_append_basic(&iterator, code("d"), &basic)
        case .string(let text), .objectPath(let text), .signature(let text):
            let type: Unicode.Scalar = if case .string = value { "s" } else if case .objectPath = value { "o" } else { "g" }
            // libdbus aborts the process on a string that is not valid for its type: check first.
            guard validate(text, as: type) else {
                throw DBusFailure(name: DBusFailure.Name.malformed, message: "not a valid D-Bus \(type == "s" ? "string" : type == "o" ? "object path" : "signature"): \(text.debugDescription)")
            }
            ok = text.withCString { pointer in
                var string: UnsafePointer<CChar>? = pointer
                return dbus_message_iter_append_basic(&iterator, code(type), &string)
            }
        case .variant(let inner):
            ok = try container("v", signature: try signature(of: inner), [inner], in: &iterator)
        case .array(let elements):
            guard let first = elements.first else {
                throw DBusFailure(name: DBusFailure.Name.malformed, message: "an empty array has no element type to send")
            }
            let element = try signature(of: first)
            for other in elements.dropFirst() where try signature(of: other) != element {
                throw DBusFailure(name: DBusFailure.Name.malformed, message: "an array's elements differ in type")
            }
            ok = try container("a", signature: element, elements, in: &iterator)
        case .structure(let fields):
            ok = try container("r", signature: nil, fields, in: &iterator)
        case .dictionaryEntry(let key, let value):
            ok = try container("e", signature: nil, [key, value], in: &iterator)
        case .unixFD:
            throw DBusFailure(name: DBusFailure.Name.malformed, message: "a file descriptor cannot be sent")
        }
        guard ok != 0 else { throw outOfMemory }
    }

    /// Appends a container of `type` holding `contents`; `signature` is its element's (arrays) or value's
    /// (variants) signature, `nil` for structures and dictionary entries.
    private static func container(
        _ type: Unicode.Scalar, signature: String?, _ contents: [DBusValue], in iterator: inout DBusMessageIter
    ) throws(DBusFailure) -> dbus_bool_t {
        var sub = DBusMessageIter()
        guard dbus_message_iter_open_container(&iterator, code(type), signature, &sub) != 0 else { throw outOfMemory }
        do {
            for value in contents { try append(value, to: &sub) }
        } catch {
            dbus_message_iter_abandon_container(&iterator, &sub)
            throw error
        }
        return dbus_message_iter_close_container(&iterator, &sub)
    }

    private static var outOfMemory: DBusFailure { DBusFailure(name: "org.freedesktop.DBus.Error.NoMemory", message: "libdbus ran out of memory") }

    /// The type signature of `value`; an empty array has none (its element type is unknown).
    private static func signature(of value: DBusValue) throws(DBusFailure) -> String {
        switch value {
        case .byte: return "y"
        case .boolean: return "b"
        case .int16: return "n"
        case .uint16: return "q"
        case .int32: return "i"
        case .uint32: return "u"
        case .int64: return "x"
        case .uint64: return "t"
        case .double: return "d"
        case .string: return "s"
        case .objectPath: return "o"
        case .signature: return "g"
        case .unixFD: return "h"
        case .variant: return "v"
        case .array(let elements):
            guard let first = elements.first else {
                throw DBusFailure(name: DBusFailure.Name.malformed, message: "an empty array has no element type to send")
            }
            return "a" + (try signature(of: first))
        case .structure(let fields):
            var result = "("
            for field in fields { result += try signature(of: field) }
            return result + ")"
        case .dictionaryEntry(let key, let value):
            return "{" + (try signature(of: key)) + (try signature(of: value)) + "}"
        }
    }

    /// Whether a method call with these header fields can be built. libdbus aborts the process on an
    /// invalid one (its default for a failed argument check), so each is checked before a message is made:
    /// a path from a peer (a signal's argument) is the peer's to get wrong, never the process's end.
    static func isValidCall(destination: String, path: String, interface: String, member: String) -> Bool {
        var error = CDBus.DBusError()
        dbus_error_init(&error)
        defer { dbus_error_free(&error) }
        return dbus_validate_bus_name(destination, &error) != 0 && isValidSignal(path: path, interface: interface, member: member)
    }

    /// Whether libdbus takes a signal from `path` of `interface` named `member` (it aborts the process on one it
    /// does not).
    static func isValidSignal(path: String, interface: String, member: String) -> Bool {
        var error = CDBus.DBusError()
        dbus_error_init(&error)
        defer { dbus_error_free(&error) }
        return dbus_validate_path(path, &error) != 0 && dbus_validate_interface(interface, &error) != 0 && dbus_validate_member(member, &error) != 0
    }

    private static func validate(_ text: String, as type: Unicode.Scalar) -> Bool {
        var error = CDBus.DBusError()
        dbus_error_init(&error)
        defer { dbus_error_free(&error) }
        switch type {
        case "o": return dbus_validate_path(text, &error) != 0
        case "g": return dbus_signature_validate(text, &error) != 0
        default: return dbus_validate_utf8(text, &error) != 0
        }
    }
}

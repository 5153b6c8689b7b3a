import Foundation
import LocationEngine

/// The body of `POST /geofences`, read strictly: one JSON object with exactly one shape —
/// `{"circle": {"latitude": …, "longitude": …, "radius": …}}` or `{"polygon": [[lat, lon], …]}` — and
/// optionally `loiteringDelay` (a duration as the query spells one, `"2m"`, `"250ms"`, or a number of
/// seconds), `responsiveness` (the engine's latency budget, a duration of at most five minutes) and `name` (a
/// label for people, 1 to 100 characters).
///
/// Unknown or missing fields, wrong types, both shapes or neither, a value out of range and a body over
/// ``maximumBytes`` are refused with a ``GeofenceBodyError`` naming the field; a region the engine
/// cannot monitor is refused with the engine's own ``GeofenceError`` wording. Depends on Foundation, the
/// engine and the query's value parsing (`QueryValue`) only, so that the fuzz target compiles the two
/// files as they are.
struct GeofenceBody: Equatable, Sendable {
    /// The largest body read (64 KiB): room for a polygon of the engine's maximum of 1,024 vertices at
    /// full precision, while a body of 10⁶ vertices is refused before any of it is parsed.
    static let maximumBytes = 64 * 1024
    /// The longest `name`, in characters (what a reader counts, grapheme clusters).
    static let maximumNameLength = 100
    /// The longest `name` in UTF-8 bytes: four per character, so that one "character" of thousands of
    /// combining marks does not pass for one.
    static let maximumNameBytes = 4 * maximumNameLength
    /// The fields the body accepts.
    static let accepted: Set<String> = ["circle", "polygon", "loiteringDelay", "responsiveness", "name"]

    /// The region to monitor, checked by the engine.
    var region: GeofenceRegion
    /// How it is monitored.
    var options: GeofenceOptions
    /// The client's label, if any.
    var name: String?

    /// Reads `json`: a client's body, or with `stored` one the database kept, whose name is taken as an earlier
    /// server accepted it (the rules for names have grown stricter; a fence kept must still come back).
    /// - Throws: ``GeofenceBodyError`` naming the field at fault (`body` for the body as a whole).
    init(json: Data, stored: Bool = false) throws(GeofenceBodyError) {
        guard !json.isEmpty else { throw GeofenceBodyError(field: "body", "empty — \(GeofenceBodyError.expected)") }
        guard json.count <= Self.maximumBytes else {
            throw GeofenceBodyError(
                field: "body", "the body has more than \(Self.maximumBytes) bytes (a polygon has at most \(GeofenceRegion.maximumVertices) vertices)")
        }
        do {
            let decoder = JSONDecoder()
            decoder.userInfo[Decoded.stored] = stored
            self = try decoder.decode(Decoded.self, from: json).body
        } catch let error as GeofenceBodyError {
            throw error
        } catch let error as DecodingError {
            throw GeofenceBodyError(error, in: json)
        } catch {
            throw GeofenceBodyError(field: "body", "not a JSON object: \(error)")
        }
    }

    init(region: GeofenceRegion, options: GeofenceOptions = GeofenceOptions(), name: String? = nil) {
        self.region = region
        self.options = options
        self.name = name
    }
}

/// A body that cannot be used: answered with 400 and ``message``, which begins with ``field``.
struct GeofenceBodyError: Error, Equatable, CustomStringConvertible {
    /// The field at fault, as a path (`circle.radius`, `polygon[3]`), or `body`.
    var field: String
    /// What is wrong and what would be accepted.
    var message: String

    init(field: String, _ problem: String) {
        self.field = field
        self.message = "\(field): \(problem)"
    }

    /// A region the engine refused, with its wording.
    init(field: String, _ error: GeofenceError) { self.init(field: field, error.description) }

    /// What JSONDecoder found wrong in `json`, at the field it was reading.
    init(_ error: DecodingError, in json: Data) {
        func path(_ keys: [any CodingKey]) -> String {
            let text = keys.reduce(into: "") { text, key in
                if let index = key.intValue { text += "[\(index)]" } else { text += (text.isEmpty ? "" : ".") + key.stringValue }
            }
            return text.isEmpty ? "body" : text
        }
        switch error {
        case .typeMismatch(let type, let context):
            self.init(field: path(context.codingPath), Self.mismatch(expected: type, context.debugDescription))
        case .valueNotFound(_, let context):
            self.init(field: path(context.codingPath), "must not be null")
        case .keyNotFound(let key, let context):
            self.init(field: path(context.codingPath + [key]), "missing")
        case .dataCorrupted(let context):
            guard context.codingPath.isEmpty else {
                self.init(field: path(context.codingPath), context.debugDescription)
                return
            }
            let why = Self.whyNotJSON(json)
            self.init(field: "body", "not valid JSON\(why.map { " (\($0))" } ?? "") — \(Self.expected)")
        @unknown default:
            self.init(field: "body", "\(error)")
        }
    }

    var description: String { message }

    /// What makes `json` no JSON, in Foundation's words: its decoder says only "The given data was not valid
    /// JSON." on Linux, its JSON reader says where and why ("Number 1e999 is not representable in Swift.").
    static func whyNotJSON(_ json: Data) -> String? {
        do {
            _ = try JSONSerialization.jsonObject(with: json, options: [.fragmentsAllowed])
            return nil
        } catch {
            return (error as NSError).userInfo[NSDebugDescriptionErrorKey] as? String
        }
    }

    /// What a fence's body may be, for an error that cannot name a field.
    static let expected =
        #"expected a JSON object with "circle": {"latitude", "longitude", "radius" in metres} or "polygon": [[latitude, longitude], …], "#
        + #"and optionally "name" and "loiteringDelay""#

    /// "expected a number, found a string": what the field must be, in the body's own terms (JSON's, not
    /// Swift's), and what it was, when the decoder said.
    static func mismatch(expected type: Any.Type, _ detail: String) -> String {
        let wanted =
            switch type {
            case is Double.Type, is Int.Type: "a number"
            case is String.Type: "a string"
            case is Bool.Type: "true or false"
            case is [Any].Type: "a list"
            default: "an object"
            }
        // Foundation's wording: "Expected to decode Double but found a string instead."
        guard let found = detail.range(of: "found "), let instead = detail.range(of: " instead", range: found.upperBound..<detail.endIndex)
        else { return "expected \(wanted)" }
        let what =
            switch String(detail[found.upperBound..<instead.lowerBound]) {
            case "a dictionary": "an object"
            case "an array": "a list"
            case "number", "a number": "a number"
            case "bool", "a bool", "a boolean": "true or false"
            case let other: other
            }
        return "expected \(wanted), found \(what)"
    }
}

/// Any field name, so that unknown fields can be named rather than ignored.
private struct FieldKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(_ name: String) { stringValue = name }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}

/// The decoding, field by field.
private struct Decoded: Decodable {
    var body: GeofenceBody

    /// Whether the body is one the database kept (a `Bool`).
    static let stored = CodingUserInfoKey(rawValue: "stored")!

    init(from decoder: any Decoder) throws {
        let fields = try decoder.container(keyedBy: FieldKey.self)
        try Self.refuseUnknown(fields, accepted: GeofenceBody.accepted, at: "")
        let region: GeofenceRegion
        switch (fields.contains(FieldKey("circle")), fields.contains(FieldKey("polygon"))) {
        case (true, true):
            throw GeofenceBodyError(field: "polygon", "give one shape, circle or polygon, not both")
        case (false, false):
            throw GeofenceBodyError(field: "circle", "missing: give a circle {latitude, longitude, radius} or a polygon [[latitude, longitude], …]")
        case (true, false):
            region = try Self.circle(fields.nestedContainer(keyedBy: FieldKey.self, forKey: FieldKey("circle")))
        case (false, true):
            region = try Self.polygon(fields.nestedUnkeyedContainer(forKey: FieldKey("polygon")))
        }
        var options = GeofenceOptions()
        if fields.contains(FieldKey("loiteringDelay")) { options.loiteringDelay = try Self.duration(fields, "loiteringDelay") }
        if fields.contains(FieldKey("responsiveness")) {
            options.responsiveness = try Self.duration(fields, "responsiveness")
            guard options.responsiveness <= GeofenceOptions.maximumResponsiveness else {
                throw GeofenceBodyError(field: "responsiveness", "longer than five minutes, the engine's largest latency budget")
            }
        }
        var name: String?
        if fields.contains(FieldKey("name")) {
            let text = try fields.decode(String.self, forKey: FieldKey("name"))
            let stored = decoder.userInfo[Self.stored] as? Bool ?? false
            guard stored
                || ((1...GeofenceBody.maximumNameLength).contains(text.count) && text.utf8.count <= GeofenceBody.maximumNameBytes
                    && !text.unicodeScalars.contains(where: Self.isRefusedInName))
            else {
                throw GeofenceBodyError(
                    field: "name",
                    "expected 1 to \(GeofenceBody.maximumNameLength) characters in at most \(GeofenceBody.maximumNameBytes) bytes, none of them control characters or bidirectional overrides")
            }
            name = text
        }
        body = GeofenceBody(region: region, options: options, name: name)
    }

    /// Control characters, and the bidirectional embeddings, overrides and isolates that make a name read in
    /// an order other than its characters' in a listing or a log (U+202A–U+202E, U+2066–U+2069).
    static func isRefusedInName(_ scalar: Unicode.Scalar) -> Bool {
        scalar.properties.generalCategory == .control || (0x202A...0x202E).contains(scalar.value) || (0x2066...0x2069).contains(scalar.value)
    }

    static func refuseUnknown(_ fields: KeyedDecodingContainer<FieldKey>, accepted: Set<String>, at prefix: String) throws {
        guard let unknown = fields.allKeys.map(\.stringValue).filter({ !accepted.contains($0) }).min() else { return }
        // An empty name is shown as JSON writes it, so that the message still names a field.
        throw GeofenceBodyError(field: prefix + (unknown.isEmpty ? #""""# : unknown), "unknown field; accepted: \(accepted.sorted().joined(separator: ", "))")
    }

    static func circle(_ fields: KeyedDecodingContainer<FieldKey>) throws -> GeofenceRegion {
        try refuseUnknown(fields, accepted: ["latitude", "longitude", "radius"], at: "circle.")
        let latitude = try fields.decode(Double.self, forKey: FieldKey("latitude"))
        let longitude = try fields.decode(Double.self, forKey: FieldKey("longitude"))
        let radius = try fields.decode(Double.self, forKey: FieldKey("radius"))
        let centre = GeoPoint(latitude: latitude, longitude: longitude)
        do throws(GeofenceError) {
            return try GeofenceRegion.circle(centre: centre, radius: radius)
        } catch {
            switch error {
            case .invalidCentre:
                let latitudeValid = GeoPoint(latitude: latitude, longitude: 0).isValid
                throw GeofenceBodyError(field: latitudeValid ? "circle.longitude" : "circle.latitude", error)
            case .invalidRadius, .regionTooLarge: throw GeofenceBodyError(field: "circle.radius", error)
            default: throw GeofenceBodyError(field: "circle", error)
            }
        }
    }

    static func polygon(_ ring: any UnkeyedDecodingContainer) throws -> GeofenceRegion {
        var ring = ring
        // Counted before any vertex is read: an absurd ring costs no more than the engine's own check.
        if let count = ring.count, count > GeofenceRegion.maximumVertices + 1 {
            throw GeofenceBodyError(field: "polygon", GeofenceError.tooManyVertices(count))
        }
        var vertices: [GeoPoint] = []
        while !ring.isAtEnd {
            let index = ring.currentIndex
            var pair = try ring.nestedUnkeyedContainer()
            guard pair.count == 2 else { throw GeofenceBodyError(field: "polygon[\(index)]", "expected [latitude, longitude]") }
            let latitude = try pair.decode(Double.self)
            let longitude = try pair.decode(Double.self)
            vertices.append(GeoPoint(latitude: latitude, longitude: longitude))
        }
        do throws(GeofenceError) {
            return try GeofenceRegion.polygon(vertices)
        } catch {
            if let index = (0..<vertices.count).first(where: { error == .invalidVertex(at: $0) }) {
                throw GeofenceBodyError(field: "polygon[\(index)]", error)
            }
            throw GeofenceBodyError(field: "polygon", error)
        }
    }

    /// A duration of 0 to 1 day: a number of seconds, or text in the query's duration syntax.
    static func duration(_ fields: KeyedDecodingContainer<FieldKey>, _ name: String) throws -> Duration {
        let expected = "expected a duration (0 to 1 day): seconds as a number, or text such as \"250ms\", \"2s\" or \"1m\""
        if let seconds = try? fields.decode(Double.self, forKey: FieldKey(name)) {
            guard let duration = QueryValue<Duration>.duration(seconds: seconds, allowingZero: true) else {
                throw GeofenceBodyError(field: name, "\(seconds < 0 ? "negative" : QueryValue<Duration>.refusal(seconds: seconds)); \(expected)")
            }
            return duration
        }
        guard let text = try? fields.decode(String.self, forKey: FieldKey(name)) else {
            throw GeofenceBodyError(field: name, "neither a number nor text; \(expected)")
        }
        do throws(QueryValue<Duration>.Invalid) {
            return try QueryValue<Duration>.duration(allowingZero: true).parse(text)
        } catch {
            throw GeofenceBodyError(field: name, error.message)
        }
    }
}

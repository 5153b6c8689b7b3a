import Foundation
import LocationEngine

/// One libFuzzer run of the example server's `POST /geofences` body parser (``GeofenceBody``, with the
/// query's duration syntax it shares). The example is its own package, which a fuzz build cannot
/// depend on: its two files are symbolic links in this target, compiled as they are.
///
/// The input is the body as received. Invariants: no crash, no hang; a rejection names a field (or `body`)
/// at the start of its message; an accepted body fits the size cap, its name and
/// loitering delay are within their bounds, and written back as JSON it parses to an equal body.
func fuzzGeofenceBody(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let json = data.map { Data(bytes: $0, count: size) } ?? Data()
    let body: GeofenceBody
    do throws(GeofenceBodyError) {
        body = try GeofenceBody(json: json)
    } catch {
        precondition(!error.field.isEmpty, "a rejection names no field: '\(error.message)'")
        precondition(error.message.hasPrefix(error.field + ": ") && error.message.count > error.field.count + 2, "message '\(error.message)'")
        return 0
    }
    precondition(json.count <= GeofenceBody.maximumBytes, "accepted a body of \(json.count) bytes")
    if let name = body.name { precondition((1...GeofenceBody.maximumNameLength).contains(name.count), "name of \(name.count) characters") }
    if let delay = body.options.loiteringDelay { precondition((.zero...(.seconds(86_400))).contains(delay), "loitering delay \(delay)") }
    let written = canonicalJSON(body)
    guard let again = try? GeofenceBody(json: Data(written.utf8)) else { preconditionFailure("'\(written)' does not parse back") }
    precondition(again == body, "'\(written)' parses back to a different body")
    return 0
}

/// `body` as JSON: the region as the engine keeps it, the delay in milliseconds as text.
private func canonicalJSON(_ body: GeofenceBody) -> String {
    var fields: [String] = []
    switch body.region.shape {
    case .circle(let centre, let radius):
        fields.append(#""circle": {"latitude": \#(centre.latitude), "longitude": \#(centre.longitude), "radius": \#(radius)}"#)
    case .polygon(let ring):
        fields.append(#""polygon": ["# + ring.map { "[\($0.latitude), \($0.longitude)]" }.joined(separator: ", ") + "]")
    }
    if let delay = body.options.loiteringDelay {
        fields.append(#""loiteringDelay": "\#(delay.components.seconds * 1000 + delay.components.attoseconds / 1_000_000_000_000_000)ms""#)
    }
    if let name = body.name, let encoded = try? JSONEncoder().encode(name) {
        fields.append(#""name": "# + String(decoding: encoded, as: UTF8.self))
    }
    return "{" + fields.joined(separator: ", ") + "}"
}

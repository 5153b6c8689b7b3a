import Foundation
import LocationEngine
import Testing

@testable import LocationServer

@Suite("POST /geofences body")
struct GeofenceBodyTests {
    static func parse(_ text: String) throws(GeofenceBodyError) -> GeofenceBody { try GeofenceBody(json: Data(text.utf8)) }

    @Test("a circle with a name and a loitering delay in either syntax")
    func circle() throws {
        let body = try Self.parse(#"{"circle": {"latitude": 48.137, "longitude": 11.575, "radius": 150}, "loiteringDelay": "2m", "name": "depot"}"#)
        #expect(body.region == (try GeofenceRegion.circle(centre: GeoPoint(latitude: 48.137, longitude: 11.575), radius: 150)))
        #expect(body.options.loiteringDelay == .seconds(120))
        #expect(body.name == "depot")
        let seconds = try Self.parse(#"{"circle": {"latitude": 48, "longitude": 11, "radius": 1}, "loiteringDelay": 2.5}"#)
        #expect(seconds.options.loiteringDelay == .milliseconds(2500))
        #expect(seconds.name == nil)
    }

    @Test("a responsiveness is a duration of at most five minutes, kept with the fence")
    func responsiveness() throws {
        let body = try Self.parse(#"{"circle": {"latitude": 48, "longitude": 11, "radius": 150}, "responsiveness": "30s"}"#)
        #expect(body.options.responsiveness == .seconds(30))
        #expect(try GeofenceBody(json: Data(body.storedJSON.utf8)).options.responsiveness == .seconds(30))
        #expect(try Self.parse(#"{"circle": {"latitude": 48, "longitude": 11, "radius": 150}}"#).options.responsiveness == .zero)
        #expect(try Self.parse(#"{"circle": {"latitude": 48, "longitude": 11, "radius": 150}, "responsiveness": "5m"}"#).options.responsiveness == .seconds(300))
        let error = #expect(throws: GeofenceBodyError.self) {
            try Self.parse(#"{"circle": {"latitude": 48, "longitude": 11, "radius": 150}, "responsiveness": "301s"}"#)
        }
        #expect(error?.field == "responsiveness")
    }

    @Test("a polygon keeps the engine's ring: a closing repeat is dropped")
    func polygon() throws {
        let body = try Self.parse(#"{"polygon": [[48.0, 11.0], [48.0, 11.01], [48.01, 11.01], [48.0, 11.0]]}"#)
        guard case .polygon(let ring) = body.region.shape else { Issue.record("not a polygon"); return }
        #expect(ring.count == 3)
        #expect(body.options.loiteringDelay == nil)
    }

    @Test(
        "each bad body names its field, in the engine's words where the engine refused the region",
        arguments: [
            (#"{"circle": {"latitude": "NaN", "longitude": 11, "radius": 10}}"#, "circle.latitude", ""),
            // Foundation's reader refuses a number no Double holds before any field is read.
            (#"{"circle": {"latitude": 1e999, "longitude": 11, "radius": 10}}"#, "body", "not valid JSON (Number 1e999 is not representable"),
            (#"{"circle": {"latitude": 48, "longitude": 200, "radius": 10}}"#, "circle.longitude", GeofenceError.invalidCentre.description),
            (#"{"circle": {"latitude": 48, "longitude": 11, "radius": -5}}"#, "circle.radius", GeofenceError.invalidRadius.description),
            (#"{"circle": {"latitude": 48, "longitude": 11, "radius": 60000}}"#, "circle.radius", GeofenceError.regionTooLarge.description),
            (#"{"circle": {"latitude": 89, "longitude": 11, "radius": 10}}"#, "circle", GeofenceError.tooCloseToPole.description),
            (#"{"circle": {"latitude": true, "longitude": 11, "radius": 10}}"#, "circle.latitude", ""),
            (#"{"circle": {"latitude": 48, "longitude": 11}}"#, "circle.radius", "missing"),
            (#"{"circle": {"latitude": 48, "longitude": 11, "radius": 10, "height": 3}}"#, "circle.height", "unknown field"),
            (#"{"circle": [48, 11, 10]}"#, "circle", ""),
            (#"{"polygon": [[48, 11], [48.001, 11]]}"#, "polygon", GeofenceError.tooFewVertices(2).description),
            (#"{"polygon": [[48, 11], [48.001, 11], [48.001]]}"#, "polygon[2]", "expected [latitude, longitude]"),
            (#"{"polygon": [[48, 11], [91, 11], [48, 12]]}"#, "polygon[1]", GeofenceError.invalidVertex(at: 1).description),
            (#"{"polygon": [[0, 0], [0, 0.001], [0.001, 0], [0.001, 0.001]]}"#, "polygon", "crosses itself"),
            (#"{"polygon": [[0, 0], [0, 0.001], [0, 0.002]]}"#, "polygon", GeofenceError.degenerateRing.description),
            (#"{"polygon": null}"#, "polygon", ""),
            (#"{"circle": {"latitude": 48, "longitude": 11, "radius": 10}, "polygon": [[0, 0], [0, 1], [1, 0]]}"#, "polygon", "not both"),
            (#"{}"#, "circle", "missing"),
            (#"{"name": "depot"}"#, "circle", "missing"),
            (#"{"circle": {"latitude": 48, "longitude": 11, "radius": 10}, "colour": "red"}"#, "colour", "unknown field"),
            (#"{"": {"latitude": 11, "radius": -5}}"#, #""""#, "unknown field"),   // found by the fuzzer
            (#"{"circle": {"": 1, "latitude": 48, "longitude": 11, "radius": 10}}"#, #"circle."""#, "unknown field"),
            (#"{"circle": {"latitude": 48, "longitude": 11, "radius": 10}, "loiteringDelay": "soon"}"#, "loiteringDelay", "a duration"),
            (#"{"circle": {"latitude": 48, "longitude": 11, "radius": 10}, "loiteringDelay": -1}"#, "loiteringDelay", "a duration"),
            (#"{"circle": {"latitude": 48, "longitude": 11, "radius": 10}, "loiteringDelay": 86401}"#, "loiteringDelay", "longer than 1 day"),
            (#"{"circle": {"latitude": 48, "longitude": 11, "radius": 10}, "loiteringDelay": 0.0004}"#, "loiteringDelay", "shorter than 1 millisecond"),
            (#"{"circle": {"latitude": 48, "longitude": 11, "radius": 10}, "name": ""}"#, "name", "1 to 100"),
            (#"{"circle": {"latitude": 48, "longitude": 11, "radius": 10}, "name": "e"#
                + String(repeating: "\u{301}", count: 400) + #""}"#, "name", "at most 400 bytes"),
            (#"{"circle": {"latitude": 48, "longitude": 11, "radius": 10}, "name": "depot\u202Etxt.exe"}"#, "name", "bidirectional overrides"),
            (#"{"circle": {"latitude": 48, "longitude": 11, "radius": 10}, "name": "a\u2067b"}"#, "name", "bidirectional overrides"),
            (#"{"circle": {"latitude": 48, "longitude": 11, "radius": 10}, "name": "a\u0007b"}"#, "name", "control characters"),
            (#"{"circle": {"latitude": 48, "longitude": 11, "radius": 10}, "name": 7}"#, "name", ""),
            (#"[1, 2]"#, "body", ""),
            (#"not json"#, "body", #"not valid JSON (Invalid value around character 1.) — expected a JSON object with "circle""#),
            (#""#, "body", #"empty — expected a JSON object with "circle": {"latitude", "longitude", "radius" in metres} or "polygon""#),
        ])
    func rejected(text: String, field: String, wording: String) {
        let error = #expect(throws: GeofenceBodyError.self) { try Self.parse(text) }
        let message = error?.message ?? ""
        #expect(error?.field == field, "\(message)")
        #expect(message.hasPrefix(field + ": "), "\(message)")
        #expect(wording.isEmpty || message.contains(wording), "\(message)")
    }

    @Test(
        "a value of the wrong type is named in JSON's terms, never in Swift's",
        arguments: [
            (#"{"circle": {"latitude": 48, "longitude": 11, "radius": "150"}}"#, "circle.radius: expected a number, found a string"),
            (#"{"circle": {"latitude": 48, "longitude": 11, "radius": 10}, "name": 7}"#, "name: expected a string, found a number"),
            (#"{"circle": [48, 11, 10]}"#, "circle: expected an object, found a list"),
        ])
    func wrongType(text: String, message: String) {
        let error = #expect(throws: GeofenceBodyError.self) { try Self.parse(text) }
        #expect(error?.message == message)
        #expect(error?.message.contains("decode") == false)
    }

    @Test("a ring of more vertices than the engine takes is refused by count, a huge body by size")
    func tooLarge() throws {
        let ring = (0..<2_000).map { "[\(Double($0) * 1e-5), 0]" }.joined(separator: ",")
        #expect(throws: GeofenceBodyError(field: "polygon", GeofenceError.tooManyVertices(2_000))) {
            try Self.parse(#"{"polygon": [\#(ring)]}"#)
        }
        let million = String(repeating: "[0,0],", count: 1_000_000)
        let error = #expect(throws: GeofenceBodyError.self) { try Self.parse(#"{"polygon": [\#(million)[0,0]]}"#) }
        #expect(error?.field == "body" && error?.message.contains("\(GeofenceBody.maximumBytes) bytes") == true)
    }
}

import Foundation
import LocationEngine

extension GeofenceBody {
    /// The body as `POST /geofences` takes it, which is how the database keeps a fence: read back with
    /// ``init(json:)``, it checks the region again at restore.
    var storedJSON: String {
        var object: [String: StoredValue] = [:]
        switch region.shape {
        case .circle(let centre, let radius):
            object["circle"] = .circle(latitude: centre.latitude, longitude: centre.longitude, radius: radius)
        case .polygon(let ring):
            object["polygon"] = .ring(ring.map { [$0.latitude, $0.longitude] })
        }
        if let delay = options.loiteringDelay { object["loiteringDelay"] = .number(delay.secondsValue) }
        if options.responsiveness > .zero { object["responsiveness"] = .number(options.responsiveness.secondsValue) }
        if let name { object["name"] = .text(name) }
        return ServerSentEvent.json(object)
    }
}

/// A value of a stored body.
private enum StoredValue: Encodable {
    case circle(latitude: Double, longitude: Double, radius: Double)
    case ring([[Double]])
    case number(Double)
    case text(String)

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .circle(let latitude, let longitude, let radius):
            try container.encode(["latitude": latitude, "longitude": longitude, "radius": radius])
        case .ring(let ring): try container.encode(ring)
        case .number(let number): try container.encode(number)
        case .text(let text): try container.encode(text)
        }
    }
}

import Foundation
import Hummingbird
import LocationEngine

/// One server-sent event: `event: NAME`, `data: JSON`, blank line.
struct ServerSentEvent {
    var name: String
    var data: String

    init(name: String, data: String) {
        self.name = name
        self.data = data
    }

    init(_ event: SubscriptionEvent) {
        switch event {
        case .location(let update):
            self.init(name: "location", data: Self.json(UpdateJSON(
                fix: FixJSON(update.location, age: update.age), achievedAccuracy: update.achievedAccuracy?.description)))
        case .heading(let heading):
            self.init(name: "heading", data: Self.json(HeadingJSON(course: heading.course, fix: FixJSON(heading.location, age: nil))))
        case .sourceError(let error):
            self.init(name: "error", data: Self.json(["code": error.code, "message": error.message]))
        case .ended(let end):
            self.init(name: "end", data: Self.json(["reason": end.outcome]))
        }
    }

    var buffer: ByteBuffer { ByteBuffer(string: "event: \(name)\ndata: \(data)\n\n") }

    private static func json(_ value: some Encodable) -> String {
        // Encoding these plain structs cannot fail.
        (try? String(decoding: JSONEncoder().encode(value), as: UTF8.self)) ?? "{}"
    }
}

/// The data of a `location` event.
struct UpdateJSON: Codable, Equatable {
    var fix: FixJSON
    var achievedAccuracy: String?
}

/// The data of a `heading` event: course over ground in degrees (0 is north) and the fix it came with.
struct HeadingJSON: Codable, Equatable {
    var course: Double
    var fix: FixJSON
}

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

    /// The event for `event`, its fix marked `coarsened` when it is; an ending becomes an `end` event for a
    /// subscription that delivered no update.
    init(_ event: SubscriptionEvent, coarsened: Bool = false) {
        switch event {
        case .location(let update):
            self.init(name: "location", data: Self.json(UpdateJSON(
                fix: FixJSON(update.location, age: update.age, coarsened: coarsened), achievedAccuracy: update.achievedAccuracy?.description)))
        case .heading(let heading):
            self.init(
                name: "heading", data: Self.json(HeadingJSON(course: heading.course, fix: FixJSON(heading.location, age: nil, coarsened: coarsened))))
        case .sourceError(let error):
            self.init(name: "error", data: Self.json(["code": error.code, "message": error.message]))
        case .ended(let end):
            self.init(EndJSON(end, updates: 0))
        }
    }

    /// The `end` event, the last of every stream.
    init(_ end: EndJSON) {
        self.init(name: "end", data: Self.json(end))
    }

    var buffer: ByteBuffer { ByteBuffer(string: "event: \(name)\ndata: \(data)\n\n") }

    static func json(_ value: some Encodable) -> String {
        // Encoding these plain structs cannot fail.
        (try? String(decoding: ServerRequestContext.encoder().encode(value), as: UTF8.self)) ?? "{}"
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

/// The data of the `end` event: why the subscription ended, under the engine's outcome name (the
/// `outcome` of `locationengine_requests_ended`), how many updates it delivered, and in words why
/// when that is not plain from the reason.
struct EndJSON: Codable, Equatable {
    /// ``SubscriptionEnd/outcome``: `maximum_updates_reached`, `duration_elapsed`, `shut_down`, `failed`…
    var reason: String
    /// Locations (or headings) delivered before the end.
    var updates: Int
    /// A source error's code, for `failed`.
    var code: String?
    /// Why, in words: the error, the refusal, or why nothing was delivered.
    var detail: String?
    /// Events the client, reading slower than they came, did not get (the newest 64 wait for it; older ones
    /// are skipped): absent when none was.
    var skipped: Int?

    init(reason: String, updates: Int, code: String? = nil, detail: String? = nil) {
        self.reason = reason
        self.updates = updates
        self.code = code
        self.detail = detail
    }

    /// The end of a subscription that delivered `updates` updates.
    init(_ end: SubscriptionEnd, updates: Int) {
        self.init(reason: end.outcome, updates: updates)
        switch end {
        case .failed(let error):
            code = error.code
            detail = error.message
        case .unauthorized(let failure):
            detail = "location access is not authorized (\(failure))"
        case .misconfigured(let error):
            detail = "\(error)"
        case .rejected(let reason):
            detail = reason
        case .headingUnavailable:
            detail = "the source provides no course"
        case .accuracyReduced:
            detail = "only reduced accuracy is authorized, and this subscription needs full accuracy"
        case .maximumUpdatesReached, .durationElapsed, .forceCompleted, .shutDown:
            break
        }
    }
}

import Hummingbird
import LocationEngine

/// A fence as `GET /geofences` and `POST /geofences` answer it: its ID, label, shape, loitering delay
/// (seconds) and state (`inside`, `outside`, `unknown`: the engine's names, as of its last transition).
struct GeofenceJSON: ResponseCodable, Equatable {
    struct Circle: Codable, Equatable {
        var latitude: Double
        var longitude: Double
        var radius: Double
    }

    var id: UInt64
    var name: String?
    var circle: Circle?
    /// The ring as the engine keeps it: `[latitude, longitude]` pairs, without a closing repeat.
    var polygon: [[Double]]?
    var loiteringDelay: Double?
    var state: String
    /// `true` while the state is the one the fence was restored with at start (no transition since).
    var restored: Bool?
    /// While the fence waits to be monitored again after an end outside it: why (the engine's outcome name)
    /// and since when (Unix seconds).
    var suspended: Suspended?

    struct Suspended: Codable, Equatable {
        var reason: String
        var since: Double
    }

    init(_ fence: GeofenceRegistry.Fence) {
        id = fence.id
        name = fence.body.name
        switch fence.body.region.shape {
        case .circle(let centre, let radius): circle = Circle(latitude: centre.latitude, longitude: centre.longitude, radius: radius)
        case .polygon(let ring): polygon = ring.map { [$0.latitude, $0.longitude] }
        }
        loiteringDelay = fence.body.options.loiteringDelay.map(\.secondsValue)
        state = fence.state.description
        restored = fence.restored ? true : nil
        suspended = fence.suspension.flatMap { $0.waiting ? Suspended(reason: $0.reason, since: $0.since) : nil }
    }
}

/// The answer of `GET /geofences`.
struct GeofenceListJSON: ResponseCodable, Equatable {
    var geofences: [GeofenceJSON]
    /// The most fences the server monitors at once.
    var maximum: Int
    /// The most fences one client has at once (`--max-geofences-per-client`).
    var maximumPerClient: Int
}

/// The data of a `transition` event on `GET /geofences/events`: the fence, the engine's name for the
/// transition (``GeofenceTransition/name``), the state after it, and its instant in seconds on the
/// engine's timeline (the fix's, or the deadline's for `dwelled` and `becameUnknown`). An `entered` or
/// `exited` (or a crossing's pair) also carries `estimatedCrossing`: when the device crossed the
/// boundary, estimated from the fixes before the deciding one, in the same seconds — earlier than
/// `at` by the travel a confident decision needs. The first `entered` or `exited` of a fence restored at
/// start carries `whileStopped: true` when it was decided against the state the fence was restored
/// with: the device crossed while the server was not running (or before its first fix), and there is
/// no `estimatedCrossing`.
struct GeofenceTransitionJSON: Codable, Equatable {
    var fence: UInt64
    var transition: String
    var state: String
    var at: Double
    var estimatedCrossing: Double?
    var whileStopped: Bool?
}

/// The data of an `end` event on `GET /geofences/events`: a fence's end (`fence` set; `reason` the
/// engine's outcome name, or `cancelled` for `DELETE`), or the stream's own, last event (`shut_down`).
/// A stream that fell behind the retention ends with `behind_retention` and `oldestEventId`, the oldest
/// event kept.
struct GeofenceEndJSON: Codable, Equatable {
    var fence: UInt64?
    var reason: String
    var oldestEventId: Int64?
    /// Why, in words, where the reason alone does not say (`unauthorized`).
    var detail: String?
}

extension ServerSentEvent {
    /// The event a listener receives for `event`.
    init(_ event: GeofenceRegistry.Event) {
        switch event {
        case .transition(let fence, let change):
            self.init(name: "transition", data: Self.json(GeofenceTransitionJSON(
                fence: fence, transition: change.transition.name, state: change.transition.state.description,
                at: change.at.sinceEpoch.secondsValue, estimatedCrossing: change.estimatedCrossing?.sinceEpoch.secondsValue,
                whileStopped: change.againstRestoredState ? true : nil)))
        case .ended(let fence, let reason):
            self.init(name: "end", data: Self.json(GeofenceEndJSON(fence: fence, reason: reason)))
        case .suspended(let fence, let reason, let detail):
            self.init(name: "suspended", data: Self.json(GeofenceEndJSON(fence: fence, reason: reason, detail: detail)))
        }
    }
}

extension Duration {
    /// The duration in seconds, as JSON carries it.
    var secondsValue: Double { Double(components.seconds) + Double(components.attoseconds) * 1e-18 }
}

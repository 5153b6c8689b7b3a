import Foundation
import NIOCore

/// One event of `GET /geofences/events` as it is stored and sent: its id, when it was recorded (Unix
/// seconds), the fence it is about (none for the stream's own), and its name and JSON data.
struct StoredEvent: Sendable, Equatable {
    var id: Int64
    var time: Double
    var fence: UInt64?
    var name: String
    var data: String
    /// When the server appended it (not stored): the delivery latency of a stream that sends it from memory.
    var appendedAt: ContinuousClock.Instant? = nil

    /// Writes the event as it goes on the wire: `id:`, `event:`, `data:`, blank line.
    func write(to buffer: inout ByteBuffer) {
        buffer.writeString("id: \(id)\nevent: \(name)\ndata: \(data)\n\n")
    }
}

/// A fence as it is stored: its body (``GeofenceBody`` as JSON) and the state its last transition left it in.
struct StoredFence: Sendable, Equatable {
    var id: UInt64
    var body: String
    var state: String
    /// Since when it is in `state`, Unix seconds (`nil`: never decided).
    var since: Double?
    /// Whether it dwelled since it became inside.
    var dwelled: Bool
}

/// One change to the database, in the order the server made it.
enum StoreWrite: Sendable {
    /// A fence created (its whole row).
    case fence(StoredFence)
    /// A fence's state changed: the state, since when (Unix seconds), whether it dwelled since.
    case fenceState(UInt64, state: String, since: Double?, dwelled: Bool)
    /// A fence deleted or ended.
    case fenceRemoved(UInt64)
    /// An event recorded.
    case event(StoredEvent)
    /// The last fence ID handed out (never reused, even once that fence is gone).
    case lastFenceID(UInt64)
}

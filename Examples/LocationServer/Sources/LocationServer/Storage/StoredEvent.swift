import Foundation
import NIOCore

/// One event of `GET /geofences/events` as it is stored and sent: its id, when it was recorded (Unix
/// seconds), the fence it is about (none for the stream's own) and the client that owns that fence, and
/// its name and JSON data.
struct StoredEvent: Sendable, Equatable {
    var id: Int64
    var time: Double
    var fence: UInt64?
    /// The client that owns the fence (`nil`: a fence stored before clients existed, an admin's to see).
    var owner: String? = nil
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
    /// The client that created it (`nil`: stored before clients existed).
    var owner: String?
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
    /// A client's grant changed (``GrantHistory``).
    case grant(GrantChange)
}

/// Identifies one request made to a ``LocationEngine``. Unique for the engine's lifetime, never reused.
///
/// IDs are handed out before any result of the request is delivered, so a handler may compare the ID
/// it was given with the one stored by its caller. Cancelling or force-completing an unknown or
/// finished ID is a no-op.
public struct RequestID: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The raw value: increasing in submission order.
    public let rawValue: UInt64

    /// Wraps a raw value.
    @inlinable public init(rawValue: UInt64) { self.rawValue = rawValue }

    @inlinable public static func < (lhs: RequestID, rhs: RequestID) -> Bool { lhs.rawValue < rhs.rawValue }

    public var description: String { "#\(rawValue)" }
}

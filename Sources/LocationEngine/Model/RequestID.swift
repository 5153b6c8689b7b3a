/// Identifies one request made to a ``LocationEngine``. Unique for the engine's lifetime, never reused,
/// and distinct from every other engine's IDs in the process (see ``rawValue``).
///
/// IDs are handed out before any result of the request is delivered, so a handler may compare the ID
/// it was given with the one stored by its caller. Cancelling or force-completing an unknown or
/// finished ID is a no-op, and so is one that another engine handed out.
public struct RequestID: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The raw value: the engine's number in the top 16 bits (engines are numbered from 0 as they are made
    /// in a process, modulo 65,536), then the request's number within its engine, from 1 and increasing in
    /// submission order. So a process's first engine numbers its requests 1, 2, 3…, and no two of the 65,536
    /// engines made next to it share an ID (among each one's first 2⁴⁸ − 1 requests: at a million a second, nine
    /// years).
    public let rawValue: UInt64

    /// Wraps a raw value.
    @inlinable public init(rawValue: UInt64) { self.rawValue = rawValue }

    /// The bits of ``rawValue`` that number a request within its engine, and their mask.
    private static var sequenceBits: UInt64 { 48 }
    private static var sequenceMask: UInt64 { 1 << sequenceBits - 1 }

    /// How many engines' IDs are told apart: an engine's number is taken modulo this.
    package static var engineNumbers: UInt64 { 1 << (64 - sequenceBits) }

    /// The ID of request number `sequence` (from 1) of engine number `engine`.
    package init(engine: UInt64, sequence: UInt64) {
        rawValue = (engine % Self.engineNumbers) << Self.sequenceBits | sequence & Self.sequenceMask
    }

    /// The request's number within its engine: 1 for the engine's first request.
    package var sequence: UInt64 { rawValue & Self.sequenceMask }

    /// The number of the engine that handed the ID out.
    package var engine: UInt64 { rawValue >> Self.sequenceBits }

    @inlinable public static func < (lhs: RequestID, rhs: RequestID) -> Bool { lhs.rawValue < rhs.rawValue }

    /// `#5` for a process's first engine, `#5 (engine 2)` for another.
    public var description: String { engine == 0 ? "#\(sequence)" : "#\(sequence) (engine \(engine))" }
}

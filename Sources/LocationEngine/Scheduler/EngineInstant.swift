/// A point on the scheduler's timeline: nanoseconds since the engine started.
///
/// The pure core never reads a clock; the ``LocationEngine`` actor converts its `Clock`'s instants
/// into these and passes them in as `now`. An `Int64` of nanoseconds keeps queue entries small and
/// covers 292 years.
public struct EngineInstant: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// Nanoseconds since the engine's epoch.
    public var nanoseconds: Int64

    /// Creates an instant `nanoseconds` after the epoch.
    @inlinable public init(nanoseconds: Int64) { self.nanoseconds = nanoseconds }

    /// The epoch.
    public static let zero = EngineInstant(nanoseconds: 0)

    /// The instant `duration` after the epoch (saturating).
    @inlinable public init(_ duration: Duration) { self.nanoseconds = Self.saturatingNanoseconds(duration) }

    /// This instant as a duration since the epoch.
    @inlinable public var sinceEpoch: Duration { .nanoseconds(nanoseconds) }

    @inlinable public static func < (lhs: EngineInstant, rhs: EngineInstant) -> Bool { lhs.nanoseconds < rhs.nanoseconds }

    /// `lhs` moved by `rhs` (saturating at the ends of the range).
    @inlinable public static func + (lhs: EngineInstant, rhs: Duration) -> EngineInstant {
        let (sum, overflow) = lhs.nanoseconds.addingReportingOverflow(saturatingNanoseconds(rhs))
        if overflow { return EngineInstant(nanoseconds: rhs > .zero ? .max : .min) }
        return EngineInstant(nanoseconds: sum)
    }

    /// `lhs` moved back by `rhs` (saturating).
    @inlinable public static func - (lhs: EngineInstant, rhs: Duration) -> EngineInstant {
        lhs + (Duration.zero - rhs)
    }

    /// The duration from `rhs` to `lhs`, exact for any two instants (the span between the ends of the range does
    /// not fit in `Int64` nanoseconds: those few pay for `Duration`'s 128-bit subtraction).
    @inlinable public static func - (lhs: EngineInstant, rhs: EngineInstant) -> Duration {
        let (difference, overflow) = lhs.nanoseconds.subtractingReportingOverflow(rhs.nanoseconds)
        if _fastPath(!overflow) { return .nanoseconds(difference) }
        return .nanoseconds(lhs.nanoseconds) - .nanoseconds(rhs.nanoseconds)
    }

    public var description: String { "t+\(sinceEpoch)" }
}

extension EngineInstant {
    /// `duration` in whole nanoseconds, clamped to the range of `Int64`.
    ///
    /// One 128-bit division of `attoseconds`: `components` costs about four times as
    /// much (two divisions, out of line), and the engine converts a duration for every request.
    @inlinable @inline(__always)
    static func saturatingNanoseconds(_ duration: Duration) -> Int64 {
        Int64(clamping: duration.attoseconds / 1_000_000_000)
    }
}

extension Duration {
    /// Whether the duration is below zero, read from the sign of its attoseconds. `Duration`'s `<` is not
    /// inlinable: a call into the standard library (about 11 instructions, callgrind) for each of the
    /// three checks on every one-shot's way in.
    @inlinable @inline(__always)
    var isNegative: Bool { attoseconds < 0 }

    /// Whether the duration is above zero (as ``isNegative``).
    @inlinable @inline(__always)
    var isPositive: Bool { attoseconds > 0 }

    /// The duration in whole nanoseconds, clamped to the range of `Int64`: for the package's own tools
    /// (`@_spi(Internals) import LocationEngine`), not part of the engine's API.
    @_spi(Internals) public var saturatingNanoseconds: Int64 { EngineInstant.saturatingNanoseconds(self) }
}

/// The earlier of two optional instants (`nil` when both are).
@inline(__always)
func earliest(_ a: EngineInstant?, _ b: EngineInstant?) -> EngineInstant? {
    switch (a, b) {
    case (let a?, let b?): min(a, b)
    case (let a?, nil): a
    case (nil, let b?): b
    case (nil, nil): nil
    }
}

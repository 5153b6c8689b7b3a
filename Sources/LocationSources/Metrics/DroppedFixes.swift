/// Fixes a source decoded but did not hand to the engine, by reason. Each dropped fix is counted
/// once, under one reason; the same counts are in the source's `locationsource_fixes` metric
/// (`result` = `duplicate`, `invalid`, `stale`).
public struct DroppedFixes: Sendable, Hashable {
    /// Repeats of a fix already delivered in the same session (same receiver time).
    public var duplicate: Int
    /// Fixes with impossible values (position out of range, NaN, a bad time or mode).
    public var invalid: Int
    /// Fixes that arrived for a session that had ended: read after `LocationSource.stop()`,
    /// or paced for delivery after it.
    public var stale: Int

    /// Creates counts.
    public init(duplicate: Int = 0, invalid: Int = 0, stale: Int = 0) {
        self.duplicate = duplicate
        self.invalid = invalid
        self.stale = stale
    }

    /// All dropped fixes.
    public var total: Int { duplicate + invalid + stale }
}

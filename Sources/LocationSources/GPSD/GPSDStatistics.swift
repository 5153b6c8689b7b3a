/// Counters of a ``GPSDLocationSource`` since it was created: what gpsd sent and what was made of it.
///
/// Everything that is skipped is counted under exactly one reason, so a hostile or broken server
/// shows up here instead of in the fixes.
public struct GPSDStatistics: Sendable, Hashable {
    /// Connections on which gpsd answered.
    public var connections = 0
    /// Working connections that were lost, and failed attempts that began an outage.
    public var disconnections = 0
    /// Lines received (oversized ones included).
    public var lines = 0
    /// Reports decoded, by class, for the classes the source knows (`TPV`, `VERSION`, …); others are
    /// counted in ``unexpectedClasses`` only, so a hostile server cannot grow this table.
    public var reportsByClass: [String: Int] = [:]
    /// Fixes handed to the engine.
    public var fixesDelivered = 0
    /// TPVs repeating the time of a fix already delivered in the same session (gpsd repeats early
    /// epochs), or, without a time, the position of the last one within 40 ms (gpsd sending a
    /// report again in one burst), skipped. An untimed report of the same position later is a new fix: a
    /// receiver that has not moved.
    public var duplicateFixes = 0
    /// Fixes that arrived after the source was stopped (before the connection closed), skipped.
    public var staleFixes = 0
    /// TPVs with mode 0 or 1 (no fix).
    public var noFixReports = 0
    /// Lines longer than the configured maximum, dropped without being buffered.
    public var oversizedLines = 0
    /// Lines that are not a JSON object of the expected shape (invalid JSON, wrong types, no class).
    public var malformedReports = 0
    /// Reports of a class the source does not know, skipped.
    public var unexpectedClasses = 0
    /// TPVs skipped for an impossible position, mode or time (NaN, out of range).
    public var invalidValues = 0
    /// Optional fields (speed, track, altitude, errors) dropped from delivered fixes for impossible
    /// values; the fix itself was delivered, so these are not skipped lines.
    public var droppedFields = 0
    /// Fixes skipped because they carried no error estimate (with ``UnmeasuredAccuracy/skip``).
    public var fixesWithoutAccuracy = 0
    /// Receiver commands (``GPSDConfiguration/receiverControl``) that could not be sent: the connection
    /// to gpsd was down.
    public var receiverCommandsNotSent = 0
    /// Fixes delivered with an assumed accuracy, their receiver having reported none
    /// (``GPSDConfiguration/unmeasuredAccuracy``).
    public var fixesWithAssumedAccuracy = 0
    /// `ERROR` reports gpsd sent (it did not understand a command).
    public var errorReports = 0

    /// Creates zeroed counters.
    public init() {}

    /// The fixes dropped, by reason: duplicates, invalid values (``invalidValues``), stale.
    public var droppedFixes: DroppedFixes {
        DroppedFixes(duplicate: duplicateFixes, invalid: invalidValues, stale: staleFixes)
    }

    /// All skipped lines and reports together: oversized, malformed, unexpected, invalid, without accuracy.
    public var totalSkipped: Int {
        oversizedLines + malformedReports + unexpectedClasses + invalidValues + fixesWithoutAccuracy
    }
}

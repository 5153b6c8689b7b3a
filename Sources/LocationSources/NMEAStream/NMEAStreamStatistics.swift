import NMEA

/// Counters of an ``NMEAStreamSource`` since it was created.
public struct NMEAStreamStatistics: Sendable, Hashable {
    /// The decoder's counters: sentences by type, rejected lines by error kind, discarded bytes, epochs.
    public var decoder = NMEADecoderStatistics()
    /// Links (connections, device opens, file replays) on which data arrived.
    public var connections = 0
    /// Working links that were lost, and failed attempts that began an outage.
    public var disconnections = 0
    /// Fixes handed to the engine.
    public var fixesDelivered = 0
    /// Epochs repeating one already delivered in the same session (same time), skipped.
    public var duplicateEpochs = 0
    /// Fixes with impossible values (out-of-range position, speed or course), skipped.
    public var invalidFixes = 0
    /// Fixes decoded for a session that had ended (paced for delivery after ``NMEAStreamSource/stop()``,
    /// or left over from the previous session's last read), skipped.
    public var staleFixes = 0
    /// Epochs in which the receiver reported no fix.
    public var noFixEpochs = 0
    /// Epochs without a usable position (fix mode unknown, coordinates missing), skipped.
    public var epochsWithoutPosition = 0
    /// Fixes without an error estimate, skipped (with ``UnmeasuredAccuracy/skip``).
    public var fixesWithoutAccuracy = 0
    /// Fixes delivered with an assumed accuracy, their receiver having reported none
    /// (``NMEAStreamConfiguration/unmeasuredAccuracy``).
    public var fixesWithAssumedAccuracy = 0
    /// What the receiver driver did (all zero for a plain receiver).
    public var receiver = ReceiverControlStatistics()

    /// The fixes dropped, by reason.
    public var droppedFixes: DroppedFixes {
        DroppedFixes(duplicate: duplicateEpochs, invalid: invalidFixes, stale: staleFixes)
    }

    /// Creates zeroed counters.
    public init() {}
}

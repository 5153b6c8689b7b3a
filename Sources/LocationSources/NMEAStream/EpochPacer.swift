/// Decides when each epoch of a recorded log is due, so that a replay keeps the recording's rhythm.
///
/// Pure: `now` and the returned instants are durations on any monotonic clock. The first timed
/// epoch is due at once and anchors the timeline; each later one is due its recorded distance from
/// the previous one later (divided by the speed). Untimed epochs, time running backwards and gaps
/// beyond the maximum re-anchor the timeline at the previous due instant, so they play without a pause.
struct EpochPacer: Sendable {
    private let speed: Double
    private let maximumGap: Double
    private var lastTime: Double?
    private var lastDue: Duration?

    /// The longest a replay waits between two epochs, whatever the gap and the speed: a day (a speed of
    /// `1e-20` would otherwise ask for a wait of some 10¹² years, beyond any timer).
    static let longestWait = 86_400.0

    /// A pacer playing `speed` times as fast as recorded (non-positive or non-finite: 1), with gaps
    /// capped at `maximumGap`.
    init(speed: Double, maximumGap: Duration) {
        self.speed = speed.isFinite && speed > 0 ? speed : 1
        let (seconds, attoseconds) = maximumGap.components
        self.maximumGap = max(0, Double(seconds) + Double(attoseconds) * 1e-18)
    }

    /// When the epoch recorded at `time` (seconds, any origin; `nil` if unknown) is due, given that it is `now`.
    /// - Complexity: O(1)
    mutating func due(recordedAt time: Double?, now: Duration) -> Duration {
        let floor = max(now, lastDue ?? now)
        var due = floor
        if let time, let lastTime, let lastDue {
            var gap = time - lastTime
            // Time of day wraps at midnight when the log carries no date.
            if gap < -43_200 { gap += 86_400 }
            if gap >= 0, gap <= maximumGap {
                due = max(lastDue + .seconds(min(gap / speed, Self.longestWait)), now)
            }
        }
        if let time { lastTime = time }
        lastDue = due
        return due
    }

    /// Forgets the timeline (a replay starts again).
    mutating func reset() {
        lastTime = nil
        lastDue = nil
    }
}

/// When a fixed-interval polling design takes its fixes: one every `interval` seconds on a grid from its
/// first fix, the receiver restarted from standby `lead` seconds before each (its longest time to first fix
/// there), so that each fix comes on time or early and the grid does not drift with the restarts. A design
/// whose interval is no longer than the lead keeps the receiver tracking and takes the fix of every
/// `interval`-th second: a restart could not bring its fix in time.
public struct PollingSchedule: Sendable, Hashable {
    /// Seconds between fixes.
    public let interval: Int
    /// Seconds from a restart to its fix, at the longest.
    public let lead: Int
    /// When the next fix is due (`nil` before the first).
    public private(set) var due: Int?

    public init(interval: Int, lead: Int) {
        self.interval = max(1, interval)
        self.lead = max(0, lead)
    }

    /// Whether the receiver keeps tracking between fixes.
    public var keepsTracking: Bool { interval <= lead }

    /// A fix arrived at `second`: whether the design takes it. It takes the first; then, tracking, the first
    /// fix from the second it is due; restarting, the first from the restart on (early by up to the lead,
    /// or late). The next fix is due an interval after the one taken was due (or, after a fix more than an
    /// interval late — an outage — the first grid point after it).
    public mutating func take(fixAt second: Int) -> Bool {
        guard let due else {
            self.due = second + interval
            return true
        }
        guard second >= due - (keepsTracking ? 0 : lead) else { return false }
        var next = due + interval
        while next <= second { next += interval }
        self.due = next
        return true
    }

    /// When to restart the receiver for the next fix, stopping it now (the fix just taken at `second`); `nil`
    /// when it keeps tracking (its interval is within the lead, or the next restart would be now or past).
    public func restart(after second: Int) -> Int? {
        guard !keepsTracking, let due, due - lead > second else { return nil }
        return due - lead
    }
}

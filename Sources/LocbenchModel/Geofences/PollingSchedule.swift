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
    /// When to restart the receiver for the next fix, stopping it after the fix just taken; `nil` when it keeps
    /// tracking (its interval is within the lead, or the restart would be now or past: a fix came late).
    public private(set) var restartAt: Int?

    public init(interval: Int, lead: Int) {
        self.interval = max(1, interval)
        self.lead = max(0, lead)
    }

    /// Whether the receiver keeps tracking between fixes.
    public var keepsTracking: Bool { interval <= lead }

    /// A fix arrived at `second`: whether the design takes it. It takes the first; then the first fix from the
    /// second the next is due, or, after a restart, the first the restart gives (early by up to the lead, or
    /// late). The next fix is due an interval after the one taken was due (or, after a fix more than an
    /// interval late — an outage — the first grid point after it).
    public mutating func take(fixAt second: Int) -> Bool {
        var next = second + interval
        if let due {
            guard second >= (restartAt != nil ? due - lead : due) else { return false }
            next = due + interval
            while next <= second { next += interval }
        }
        due = next
        restartAt = !keepsTracking && next - lead > second ? next - lead : nil
        return true
    }
}

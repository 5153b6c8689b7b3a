/// A way a ``SyntheticLocationSource``'s receiver misbehaves under its driver, as hardware does: the source
/// then meters what the receiver really did and reports (`SourceEvent.receiverState`,
/// `SourceEvent.receiverTracking`) only what it confirmed, when it confirmed it.
///
/// The pseudo-terminal personas (``CommandedReceiver``) show the same faults byte by byte; this is their
/// effect on a driver that has dealt with them, on the engine's time.
public enum ReceiverFault: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// Every power-down is refused or goes unanswered: the receiver keeps tracking in its last setting, and
    /// says so (`on`).
    case refusesPowerDown = "refuses-power-down"
    /// Its power-save settings (the duty-cycled modes) are refused: asked for one, it keeps its continuous
    /// tracking (the setting it had, or after a wake the dearest) and confirms that setting.
    case refusesPowerSave = "refuses-power-save"
    /// Every command is obeyed at once but answered ``lateBy`` later: each confirmation comes that late.
    case answersLate = "answers-late"
    /// The bytes that wake it are lost: it wakes (and acquires), but its setting is confirmed only after the
    /// driver's repeated version query, ``wakeRetry`` later; until then it tracks continuously.
    case losesWakingBytes = "loses-waking-bytes"

    /// How late an ``answersLate`` receiver confirms, seconds (past a driver's acknowledgement timeout).
    public static let lateBy = 2.0
    /// How long after a wake a ``losesWakingBytes`` receiver is set up, seconds: the driver's identification
    /// timeout, after which it repeats the query.
    public static let wakeRetry = 1.0

    /// Whether the engine can still put the receiver where it plans, if later than it asked: the commands take
    /// effect (late answers, lost waking bytes). A refusal leaves the receiver where it was.
    public var leavesReceiverControllable: Bool {
        switch self {
        case .refusesPowerDown, .refusesPowerSave: false
        case .answersLate, .losesWakingBytes: true
        }
    }

    public var description: String { rawValue }
}

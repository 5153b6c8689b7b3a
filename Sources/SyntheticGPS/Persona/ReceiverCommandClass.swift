import ReceiverControl

/// What a command a ``CommandedReceiver`` reads asks of it, so that a fault can hit one command and not the next
/// (``CommandedReceiver/commandBehaviors``): a receiver that refuses to leave power save but takes its fix
/// interval, or one that ignores the sleep it is sent.
public enum ReceiverCommandClass: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// Back to continuous tracking: `$PMTK225,0`, CFG-RXM continuous, CFG-VALSET with PM-OPERATEMODE full power.
    case tracking
    /// The fix interval: `$PMTK220`, CFG-RATE.
    case rate
    /// A power-save or periodic setting: `$PMTK225` periodic, CFG-PM2, CFG-PMS, CFG-RXM power save, CFG-VALSET
    /// with a power-save PM-OPERATEMODE.
    case powerSave = "power-save"
    /// The sleep: `$PMTK161` standby, RXM-PMREQ backup.
    case sleep

    public var description: String { rawValue }

    /// The class of a MediaTek command; `nil` for queries and restarts.
    init?(_ command: PMTKCommand) {
        switch command {
        case .periodic(.normal): self = .tracking
        case .periodic: self = .powerSave
        case .fixInterval: self = .rate
        case .standby: self = .sleep
        case .test, .queryRelease, .hotRestart, .warmRestart, .coldRestart: return nil
        }
    }

    /// The class of a u-blox command; `nil` for the version poll.
    init?(_ command: UBXCommand) {
        switch command {
        case .receiverManagement(let powerSave): self = powerSave ? .powerSave : .tracking
        case .powerManagement, .powerSetup: self = .powerSave
        case .rate: self = .rate
        case .powerManagementRequest: self = .sleep
        case .setValues(_, let values):
            let mode = values.first { $0.key == UBXConfigValue.powerModeKey }?.value
            self = mode.map { $0 == 0 ? .tracking : .powerSave } ?? .rate
        case .pollVersion: return nil
        }
    }
}

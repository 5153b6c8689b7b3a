/// Which real receiver the synthetic one behaves like on its serial line: the commands it obeys, how it
/// answers, and the current it draws.
public enum ReceiverPersona: String, Sendable, Hashable, CaseIterable {
    /// A MediaTek MT3339 module (Quectel L76/L80, GlobalTop PA6H): PMTK commands, `$PMTK001` acknowledgements.
    case mediatek
    /// A u-blox SAM-M8Q (protocol 18): UBX commands, UBX-ACK-ACK/NAK.
    case ublox
    /// A receiver that takes no command: it ignores what it is sent and tracks until its power is cut.
    case plain

    /// The persona called `name` (`mtk` is accepted for `mediatek`).
    public init?(name: String) {
        switch name.lowercased() {
        case "mtk", "mediatek": self = .mediatek
        case "ublox", "u-blox": self = .ublox
        case "plain": self = .plain
        default: return nil
        }
    }

    /// The current the persona draws in each state.
    public var currentProfile: CurrentProfile {
        switch self {
        case .mediatek, .plain: .mt3339
        case .ublox: .samM8Q
        }
    }
}

/// How a persona answers the commands it is sent (version queries are always answered), so that a driver's
/// fallbacks can be tested.
public enum AcknowledgementBehavior: String, Sendable, Hashable, CaseIterable {
    /// Obey and acknowledge, as the real parts do.
    case normal
    /// Refuse: `$PMTK001,<type>,1` (unsupported) or UBX-ACK-NAK, and do not obey.
    case refuse
    /// Obey, but send no acknowledgement.
    case drop
    /// Obey, and send the acknowledgement with a corrupted checksum.
    case garble
    /// Neither obey nor answer.
    case ignore
    /// Obey, and answer late: after ``CommandedReceiver/lateBy``, past a driver's acknowledgement timeout.
    case late
}

/// Which generation of u-blox receiver a persona is, for the messages it takes.
public enum UbloxGeneration: String, Sendable, Hashable, CaseIterable {
    /// u-blox 7 (protocol 14): CFG-RATE, CFG-RXM, CFG-PM2 version 1 (44 bytes; the 48-byte version 2 refused);
    /// its MON-VER names no protocol (no `PROTVER` extension).
    case u7
    /// u-blox M8 (protocol 18): CFG-RATE, CFG-RXM, CFG-PM2; CFG-VALSET refused.
    case m8
    /// u-blox M10 (protocol 34, as the 9-series from protocol 27): configuration keys through CFG-VALSET.
    case m10
}

/// The supply current of a receiver in each state, in milliamperes, from its data sheet.
public struct CurrentProfile: Sendable, Hashable {
    /// Searching for satellites (from power-on until the first fix).
    public var acquisition: Double
    /// Tracking continuously.
    public var tracking: Double
    /// In the vendor's power-save mode at one fix per second (`nil`: computed from the duty cycle).
    public var powerSave: Double?
    /// In standby (output stopped, RAM kept, woken by a byte).
    public var standby: Double
    /// In backup (real-time clock and backup RAM only).
    public var backup: Double
    /// The supply voltage the figures are given at, volts.
    public var supplyVoltage: Double

    /// Creates a profile.
    public init(acquisition: Double, tracking: Double, powerSave: Double?, standby: Double, backup: Double, supplyVoltage: Double) {
        self.acquisition = acquisition
        self.tracking = tracking
        self.powerSave = powerSave
        self.standby = standby
        self.backup = backup
        self.supplyVoltage = supplyVoltage
    }

    /// MediaTek MT3339 class at 3.3 V: acquisition 25 mA and tracking 20 mA (GlobalTop PA6H and Quectel L80 data
    /// sheets), standby (`$PMTK161,0`) about 2 mA, backup 7 µA (Quectel L80 hardware design, V_BCKP). Periodic
    /// modes draw the duty-cycle average of tracking and standby.
    public static let mt3339 = CurrentProfile(acquisition: 25, tracking: 20, powerSave: nil, standby: 2, backup: 0.007, supplyVoltage: 3.3)

    /// u-blox SAM-M8Q at 3.0 V (SAM-M8Q data sheet UBX-16012619 R04, table 8, GPS & GLONASS): acquisition 32 mA,
    /// continuous tracking 29 mA, power save at 1 Hz 9.5 mA; backup 15–20 µA (the upper figure is used).
    /// Standby is not a u-blox state: a u-blox is either in power save or in backup.
    public static let samM8Q = CurrentProfile(acquisition: 32, tracking: 29, powerSave: 9.5, standby: 9.5, backup: 0.020, supplyVoltage: 3.0)
}

import LocationEngine

extension ReceiverModel {
    /// The receiver as the engine's power policy sees it under this package's driver, or `nil` when the model
    /// is not known in advance (``autodetect``) or nothing can power it down (``plain``): then the engine keeps
    /// its fixed linger.
    ///
    /// - ``mediatek``: `ReceiverPowerProfile.mt3339` with standby as the deepest state (the driver's stop is
    ///   `$PMTK161,0`; the MT3339's backup mode wakes only on its FORCE_ON pin, which a serial line cannot
    ///   drive), so `off` costs what standby does.
    /// - ``ublox``: `ReceiverPowerProfile.samM8Q` (the driver's stop is RXM-PMREQ backup, woken on UART RX).
    public var powerProfile: ReceiverPowerProfile? {
        switch self {
        case .mediatek:
            var profile = ReceiverPowerProfile.mt3339
            profile.off = profile.standby
            return profile
        case .ublox: return .samM8Q
        case .plain, .autodetect: return nil
        }
    }
}

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
    public var powerProfile: ReceiverPowerProfile? { powerProfile(over: .uart) }

    /// The receiver as the engine's power policy sees it over `connection`: as ``powerProfile``, but for a u-blox
    /// on its own USB port (``ReceiverConnection/nativeUSB``), which waits in power save rather than backup, so
    /// its off costs what its standby (power save) does.
    public func powerProfile(over connection: ReceiverConnection) -> ReceiverPowerProfile? {
        switch (self, connection) {
        case (.mediatek, _):
            var profile = ReceiverPowerProfile.mt3339
            profile.off = profile.standby
            return profile
        case (.ublox, .uart): return .samM8Q
        case (.ublox, .nativeUSB):
            var profile = ReceiverPowerProfile.samM8Q
            profile.off = profile.standby
            return profile
        case (.plain, _), (.autodetect, _): return nil
        }
    }
}

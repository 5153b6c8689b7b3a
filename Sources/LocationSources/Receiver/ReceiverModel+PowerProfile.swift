import LocationEngine

extension ReceiverModel {
    /// The receiver as the engine's power policy sees it under this package's driver, or `nil` when the model
    /// is not known in advance (``autodetect``) or nothing can power it down (``plain``): then the engine keeps
    /// its fixed linger.
    ///
    /// - ``mediatek``: `ReceiverPowerProfile.mt3339` with standby as the deepest state (the driver's stop is
    ///   `$PMTK161,0`; the MT3339's backup mode wakes only on its FORCE_ON pin, which a serial line cannot
    ///   drive), so `off` costs what standby does, and its medium, low and lowest modes as the driver's
    ///   periodic standby draws them (a 2 s run every 5, 20 or 60 s: 30.4, 12.5 and 8.6 mW).
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
            // The power-save modes as the driver commands them: periodic standby, tracking for its run and in
            // standby for the rest of each cycle (a 2 s run every 5 s draws 30.4 mW, not the 12.5 mW of the
            // module's own longer cycles).
            for mode in PowerMode.allCases {
                guard let interval = ReceiverControlConfiguration.powerSaveInterval(for: mode) else { continue }
                let run = Double(ReceiverDialect.mediatekPeriodicRun.milliseconds)
                let sleep = Double(ReceiverDialect.mediatekPeriodicSleep(interval: interval).milliseconds)
                profile.tracking[mode] = (run * profile.trackingPower(.best) + sleep * profile.standby) / (run + sleep)
            }
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

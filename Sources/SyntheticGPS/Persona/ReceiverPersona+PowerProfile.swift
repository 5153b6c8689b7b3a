import LocationEngine

extension ReceiverPersona {
    /// The current the persona draws tracking for the engine's `mode`, milliamperes: continuous tracking for
    /// best and high; for medium, low and lowest the power-save modes the drivers command (a MediaTek's periodic
    /// standby, 2 s on and the rest of a 5 / 20 / 60 s cycle in standby; a u-blox's cyclic tracking at its 1 Hz
    /// figure, the data sheet's only one).
    public func trackingCurrent(_ mode: PowerMode) -> Double {
        let profile = currentProfile
        guard let interval = ReceiverPersona.powerSaveInterval(mode) else { return profile.tracking }
        switch self {
        case .mediatek:
            let run = 2.0
            return (profile.tracking * run + profile.standby * (interval - run)) / interval
        case .ublox: return profile.powerSave ?? profile.tracking
        case .plain: return profile.tracking
        }
    }

    /// The current the persona draws waiting in `state` once the engine stopped it, milliamperes. A MediaTek
    /// over a serial line goes no deeper than standby (`$PMTK161,0`: its backup mode needs the FORCE_ON pin to
    /// wake); a u-blox has no standby (power save, at its 1 Hz figure) and goes to backup (RXM-PMREQ); a plain
    /// receiver takes no command and keeps tracking.
    public func idleCurrent(_ state: ReceiverPowerProfile.IdleState) -> Double {
        let profile = currentProfile
        switch (self, state) {
        case (_, .on), (.plain, _): return profile.tracking
        case (.mediatek, _): return profile.standby
        case (.ublox, .standby): return profile.powerSave ?? profile.tracking
        case (.ublox, .off): return profile.backup
        }
    }

    /// The persona as the engine's power policy sees it (powers are current × supply voltage; the times to first
    /// fix are the middles of the synthetic receiver's ranges, ``StartCondition``; ephemerides stay valid 2 h), or
    /// `nil` for a plain receiver, which nothing powers down.
    public var powerProfile: ReceiverPowerProfile? {
        guard self != .plain else { return nil }
        let volts = currentProfile.supplyVoltage
        let middle = { (condition: StartCondition) in
            Duration.milliseconds(Int64((condition.timeToFirstFix.lowerBound + condition.timeToFirstFix.upperBound) * 500))
        }
        return ReceiverPowerProfile(
            acquisition: currentProfile.acquisition * volts,
            tracking: Dictionary(uniqueKeysWithValues: PowerMode.allCases.map { ($0, trackingCurrent($0) * volts) }),
            standby: idleCurrent(.standby) * volts, off: idleCurrent(.off) * volts,
            timeToFirstFix: [.hot: middle(.hot), .warm: middle(.warm), .cold: middle(.cold)],
            ephemerisValidity: .seconds(2 * 3600), offKeepsEphemerides: true)
    }

    /// The interval of the power-save mode the drivers command for `mode`, seconds (`nil`: continuous tracking),
    /// as in LocationSources' `ReceiverControlConfiguration.powerSaveInterval(for:)`.
    static func powerSaveInterval(_ mode: PowerMode) -> Double? {
        switch mode {
        case .best, .high: nil
        case .medium: 5
        case .low: 20
        case .lowest: 60
        }
    }
}

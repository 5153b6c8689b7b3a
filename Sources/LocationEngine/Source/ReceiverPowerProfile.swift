/// What a source's receiver costs in each state and how long it takes to come back: the figures a
/// restart-aware power policy weighs (see ``PowerDownDecider``).
///
/// Powers are in milliwatts, durations in `Duration`. A source that knows its receiver describes it with one
/// of these; a source that does not describes none, and the engine's fixed linger applies as before.
public struct ReceiverPowerProfile: Sendable, Hashable {
    /// Where a receiver can wait between requests.
    public enum IdleState: String, Sendable, Hashable, CaseIterable, Comparable {
        /// Keep tracking: no restart, full power.
        case on
        /// Standby: output stopped, RAM and clock kept; a restart is hot while the ephemerides are valid.
        case standby
        /// Backup or off: the least power; a restart is hot while the ephemerides are valid only if the
        /// receiver keeps them (``ReceiverPowerProfile/offKeepsEphemerides``), otherwise cold.
        case off

        public static func < (lhs: IdleState, rhs: IdleState) -> Bool {
            allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
        }
    }

    /// How much the receiver remembers when it restarts.
    public enum StartCondition: String, Sendable, Hashable, CaseIterable {
        /// Ephemerides valid.
        case hot
        /// Almanac and time, ephemerides stale.
        case warm
        /// Nothing.
        case cold
    }

    /// Power while acquiring (from a restart until the first fix), mW.
    public var acquisition: Double
    /// Power while tracking, mW, by mode (modes missing use the highest given).
    public var tracking: [PowerMode: Double]
    /// Power in standby, mW.
    public var standby: Double
    /// Power in backup or off, mW.
    public var off: Double
    /// Time to first fix for each start condition.
    public var timeToFirstFix: [StartCondition: Duration]
    /// How long ephemerides stay valid after the receiver stops tracking (about 2–4 h for GPS).
    public var ephemerisValidity: Duration
    /// Whether backup/off keeps the ephemerides and clock (a backup supply, u-blox backup mode).
    public var offKeepsEphemerides: Bool

    /// Creates a profile.
    public init(
        acquisition: Double, tracking: [PowerMode: Double], standby: Double, off: Double,
        timeToFirstFix: [StartCondition: Duration], ephemerisValidity: Duration, offKeepsEphemerides: Bool
    ) {
        self.acquisition = acquisition
        self.tracking = tracking
        self.standby = standby
        self.off = off
        self.timeToFirstFix = timeToFirstFix
        self.ephemerisValidity = ephemerisValidity
        self.offKeepsEphemerides = offKeepsEphemerides
    }

    /// The power tracking in `mode`, mW.
    public func trackingPower(_ mode: PowerMode) -> Double {
        tracking[mode] ?? tracking.values.max() ?? acquisition
    }

    /// The power waiting in `state` while `mode` is wanted, mW.
    public func idlePower(_ state: IdleState, mode: PowerMode) -> Double {
        switch state {
        case .on: trackingPower(mode)
        case .standby: standby
        case .off: off
        }
    }

    /// The start condition after waiting `gap` in `state` (`nil` for ``IdleState/on``: no restart).
    public func startCondition(after gap: Duration, in state: IdleState) -> StartCondition? {
        switch state {
        case .on: nil
        case .standby: gap < ephemerisValidity ? .hot : .warm
        case .off: offKeepsEphemerides ? (gap < ephemerisValidity ? .hot : .warm) : .cold
        }
    }

    /// The time to first fix after waiting `gap` in `state` (zero for ``IdleState/on``).
    public func restartDelay(after gap: Duration, in state: IdleState) -> Duration {
        startCondition(after: gap, in: state).map { timeToFirstFix[$0] ?? .zero } ?? .zero
    }

    /// The energy of a restart after waiting `gap` in `state`, mJ: acquisition power over the time to first fix.
    public func restartEnergy(after gap: Duration, in state: IdleState) -> Double {
        acquisition * Double(restartDelay(after: gap, in: state).saturatingNanoseconds) / 1e9
    }

    /// What a restart after waiting `gap` in `state` costs beyond tracking in `mode` through the same time, mJ:
    /// the acquisition power above tracking over the time to first fix. When demand returns the receiver acquires
    /// *in place of* tracking until its first fix, so this, not the whole acquisition energy, is what waiting
    /// down instead of on adds to a gap (the request waits the time to first fix: latency, not energy).
    public func restartExtraEnergy(after gap: Duration, in state: IdleState, mode: PowerMode) -> Double {
        max(0, acquisition - trackingPower(mode)) * Double(restartDelay(after: gap, in: state).saturatingNanoseconds) / 1e9
    }

    /// An MT3339-class module at 3.3 V: 25 mA acquiring, 20 mA tracking, about 2 mA in standby, 7 µA in backup;
    /// TTFF hot 1 s, warm 33 s, cold 35 s (PA6H data sheet); ephemerides valid about 2 h.
    public static let mt3339 = ReceiverPowerProfile(
        acquisition: 82.5, tracking: [.best: 66, .high: 66, .medium: 12.5, .low: 7, .lowest: 6.8], standby: 6.6, off: 0.023,
        timeToFirstFix: [.hot: .seconds(1), .warm: .seconds(33), .cold: .seconds(35)], ephemerisValidity: .seconds(7200),
        offKeepsEphemerides: true)

    /// A u-blox SAM-M8Q at 3.0 V: 32 mA acquiring, 29 mA tracking, 9.5 mA in power save (1 Hz), 20 µA in backup;
    /// TTFF hot 1 s, warm 26 s (aided), cold 26 s (data sheet, GPS+GLONASS); ephemerides valid about 2 h.
    public static let samM8Q = ReceiverPowerProfile(
        acquisition: 96, tracking: [.best: 87, .high: 87, .medium: 28.5, .low: 28.5, .lowest: 28.5], standby: 28.5, off: 0.06,
        timeToFirstFix: [.hot: .seconds(1), .warm: .seconds(26), .cold: .seconds(26)], ephemerisValidity: .seconds(7200),
        offKeepsEphemerides: true)
}

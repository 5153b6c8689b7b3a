/// The power states a commanded synthetic receiver goes through.
public enum ReceiverPowerPhase: String, Sendable, Hashable, CaseIterable {
    /// Searching for satellites after a (re)start, until the first fix.
    case acquisition
    /// Tracking continuously.
    case tracking
    /// In a power-save or periodic mode.
    case powerSave = "power_save"
    /// In standby.
    case standby
    /// In backup.
    case backup
}

/// The synthetic receiver's own meter: time and charge in each power state, integrated from its data-sheet
/// current profile as its state changes. What `locbench` and the tests read as the receiver's energy.
public struct ReceiverEnergyMeter: Sendable, Hashable {
    /// The supply voltage the charge is turned into energy at.
    public let supplyVoltage: Double
    /// Seconds spent in each state.
    public private(set) var seconds: [ReceiverPowerPhase: Double] = [:]
    /// Charge drawn in each state, milliampere-seconds.
    public private(set) var charge: [ReceiverPowerPhase: Double] = [:]
    /// The current drawn right now, milliamperes.
    public private(set) var current: Double = 0
    /// The state right now.
    public private(set) var phase: ReceiverPowerPhase = .acquisition
    /// Starts that acquired: each pays an acquisition before its first fix (a start into a receiver that never
    /// stopped tracking, because it refused to power down, does not count).
    public private(set) var acquiringStarts = 0

    /// A meter at `supplyVoltage`, nothing drawn yet.
    public init(supplyVoltage: Double) {
        self.supplyVoltage = supplyVoltage
    }

    /// Records `duration` seconds in `phase` at `current` milliamperes (ignored when not positive); from then on
    /// ``current`` and ``phase`` read these (a duration of zero: the receiver entered `phase` at the instant metered last).
    /// - Complexity: O(1).
    mutating func record(_ phase: ReceiverPowerPhase, current: Double, for duration: Double) {
        self.phase = phase
        self.current = current
        guard duration > 0, duration.isFinite else { return }
        seconds[phase, default: 0] += duration
        charge[phase, default: 0] += current * duration
    }

    /// A start that acquires before its first fix.
    /// - Complexity: O(1).
    mutating func countAcquiringStart() { acquiringStarts += 1 }

    /// The energy drawn in `phase`, joules.
    public func energy(in phase: ReceiverPowerPhase) -> Double { (charge[phase] ?? 0) / 1000 * supplyVoltage }

    /// All the charge drawn, milliampere-seconds.
    public var totalCharge: Double { charge.values.reduce(0, +) }
    /// All the time metered, seconds.
    public var totalSeconds: Double { seconds.values.reduce(0, +) }
    /// The energy drawn, joules (charge × supply voltage).
    public var energy: Double { totalCharge / 1000 * supplyVoltage }
    /// The average current over the metered time, milliamperes.
    public var averageCurrent: Double { totalSeconds > 0 ? totalCharge / totalSeconds : 0 }
}

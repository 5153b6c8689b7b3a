import LocationEngine

/// The synthetic receiver: a pure, deterministic value that produces ``SyntheticEpoch``s on a time
/// grid of the scenario's fix interval, with no clock and no I/O. Time is an argument (seconds since
/// the scenario started) and only moves forward.
///
/// ```swift
/// var receiver = SyntheticReceiver(scenario: .drive(seed: 42))    // powered on in .best at t = 0
/// while let epoch = receiver.nextEpoch(), epoch.elapsed < 600 { use(epoch) }
/// ```
///
/// Power: ``powerOn(mode:at:)``, ``setMode(_:at:)`` and ``powerOff(at:)`` model a real chip. The time to
/// first fix depends on how long the satellite receiver was off (``StartCondition``); accuracy then
/// converges; an ``Outage`` drops the fix until the sky returns plus a reacquisition delay. The truth
/// keeps moving while the receiver is off.
public struct SyntheticReceiver: Sendable {
    /// The scenario being simulated.
    public let scenario: Scenario
    /// The current power mode, or `nil` when the receiver is off.
    public private(set) var mode: PowerMode?
    /// The start condition of the most recent satellite start, if any.
    public private(set) var lastStart: StartCondition?
    /// Whether the receiver keeps its ephemerides fresh in the network modes (`low`, `lowest`). A real receiver
    /// serves those modes from its own duty-cycled GNSS (a MediaTek's periodic standby, a u-blox's cyclic
    /// tracking), whose on-windows keep tracking satellites: the ephemerides then age only while the receiver is
    /// powered down, and a switch back to continuous tracking is a hot start. Off by default: the network modes
    /// stand for a separate locator, and the ephemerides age from the last satellite mode.
    public var networkModesKeepEphemerides = false

    var trajectory: Trajectory
    var gnssErrors: ErrorModel
    var networkErrors: ErrorModel
    var sky: SkyModel
    var random: SeededGenerator
    /// Grid index of the next epoch (its time is `index × fixInterval`), and of the last one produced.
    var nextIndex = 0
    var lastIndex: Int?
    /// Satellite receiver state.
    var gnssStoppedAt: Double?
    var gnssReadyAt = 0.0
    var convergenceStart = 0.0
    var convergenceFactor = 1.0
    var convergenceTime = 1.0
    var blockedSince: Double?
    var hadFix = false
    /// Network locator state.
    var networkReadyAt = 0.0
    /// How long the network locator takes to its first position after a start, seconds.
    static let networkReadiness = 0.5...1.5
    /// Degrees per metre for applying position errors.
    var scale = LocalScale()

    /// A receiver for `scenario`, powered on at time zero in `mode` (`nil`: created off).
    public init(scenario: Scenario, mode: PowerMode? = .best) {
        self.scenario = scenario
        let root = SeededGenerator(seed: scenario.seed)
        let start = scenario.origin
        switch scenario.motion {
        case .stationary:
            trajectory = Trajectory(start: start, altitude: scenario.altitude, heading: 0, profile: .walking, source: .none)
        case .randomRoute(let profile):
            var route = root.derived(stream: 1)
            let heading = route.uniform(0...(2 * Double.pi))
            trajectory = Trajectory(
                start: start, altitude: scenario.altitude, heading: heading, profile: profile,
                source: .random(profile, route)
            )
        case .waypoints(let points, let profile):
            var route = root.derived(stream: 1)
            let (pieces, heading) = RouteSource.pieces(following: points, profile: profile, random: &route)
            trajectory = Trajectory(
                start: points.first ?? start, altitude: scenario.altitude, heading: heading, profile: profile,
                source: .fixed(pieces, next: 0)
            )
        }
        gnssErrors = ErrorModel(
            correlationTime: 30, multipathPerHour: scenario.environment.multipathPerHour, gridInterval: scenario.fixInterval,
            random: root.derived(stream: 2)
        )
        networkErrors = ErrorModel(correlationTime: 180, multipathPerHour: 0, gridInterval: scenario.fixInterval, random: root.derived(stream: 3))
        sky = SkyModel(environment: scenario.environment, seed: scenario.seed)
        random = root.derived(stream: 4)
        if let mode { powerOn(mode: mode, at: 0) }
    }

    /// Seconds between epochs in the current mode (`nil` when off).
    public var epochInterval: Double? {
        mode.map { Double(stride(for: $0)) * scenario.fixInterval }
    }

    /// When the next epoch is due, in seconds since the start (`nil` when off).
    public var nextEpochTime: Double? {
        mode == nil ? nil : Double(nextIndex) * scenario.fixInterval
    }

    /// Powers the receiver on at `elapsed` seconds. Ignored if it is already on.
    public mutating func powerOn(mode: PowerMode, at elapsed: Double) {
        guard self.mode == nil else { return }
        self.mode = mode
        startPositioning(mode, at: elapsed)
        nextIndex = max(firstIndex(atOrAfter: elapsed), (lastIndex ?? -1) + 1)
    }

    /// Switches a running receiver to `mode` at `elapsed` seconds. Ignored when off or unchanged.
    public mutating func setMode(_ mode: PowerMode, at elapsed: Double) {
        guard let current = self.mode, current != mode else { return }
        self.mode = mode
        let wasSatellite = PowerModeProfile.standard(current).usesSatellites
        let isSatellite = PowerModeProfile.standard(mode).usesSatellites
        if wasSatellite && !isSatellite || networkModesKeepEphemerides && !wasSatellite { stopSatellites(at: elapsed) }
        if wasSatellite != isSatellite { startPositioning(mode, at: elapsed) }
        // A new setting starts with a run window: the next epoch is the grid's next one.
        nextIndex = max(firstIndex(atOrAfter: elapsed), (lastIndex ?? -1) + 1)
    }

    /// Powers the receiver off at `elapsed` seconds. Idempotent.
    public mutating func powerOff(at elapsed: Double) {
        guard let current = mode else { return }
        if PowerModeProfile.standard(current).usesSatellites || networkModesKeepEphemerides { stopSatellites(at: elapsed) }
        mode = nil
    }

    /// Appends `count` epochs to `buffer` (fewer if the receiver is off). Reserve capacity first to
    /// generate without allocating.
    ///
    /// - Complexity: O(count).
    public mutating func generate(count: Int, into buffer: inout [SyntheticEpoch]) {
        for _ in 0..<max(0, count) {
            guard let epoch = nextEpoch() else { return }
            buffer.append(epoch)
        }
    }

    /// Calls `body` with every epoch due at or before `elapsed` seconds, in order.
    public mutating func epochs(through elapsed: Double, _ body: (SyntheticEpoch) throws -> Void) rethrows {
        while let due = nextEpochTime, due <= elapsed + 1e-9, let epoch = nextEpoch() {
            try body(epoch)
        }
    }

    // MARK: - Power helpers

    /// Epoch grid steps per epoch in `mode`.
    func stride(for mode: PowerMode) -> Int {
        let minimum = PowerModeProfile.standard(mode).minimumInterval
        return max(1, Int((minimum / scenario.fixInterval - 1e-9).rounded(.up)))
    }

    private func firstIndex(atOrAfter elapsed: Double) -> Int {
        max(0, Int((elapsed / scenario.fixInterval - 1e-9).rounded(.up)))
    }

    private mutating func startPositioning(_ mode: PowerMode, at elapsed: Double) {
        if PowerModeProfile.standard(mode).usesSatellites {
            let condition = gnssStoppedAt.map { StartCondition(offFor: elapsed - $0) } ?? scenario.startCondition
            lastStart = condition
            gnssReadyAt = elapsed + random.uniform(condition.timeToFirstFix)
            convergenceStart = gnssReadyAt
            convergenceFactor = condition.initialErrorFactor
            convergenceTime = condition.convergenceTime
            blockedSince = nil
            hadFix = false
            sky.clear()
        } else {
            networkReadyAt = elapsed + random.uniform(Self.networkReadiness)
        }
    }

    private mutating func stopSatellites(at elapsed: Double) {
        gnssStoppedAt = elapsed
    }
}

@_spi(Internals) import LocationEngine

/// A power design as `locbench` charges it on one run's demand, beside the engine's metered energy: what it
/// does when demand ends, and in which mode it tracks.
public enum PowerDesign: Sendable, Hashable, CaseIterable {
    /// Off the moment no request waits, in the demanded mode while one does (INTULocationManager); each
    /// return of demand restarts the receiver and waits a time to first fix.
    case stopImmediately
    /// gpsd 3.22: the receiver tracks in its one configured (best) mode while a client watches and for 60 s
    /// after the last leaves (`RELEASE_TIMEOUT`). gpsd itself sends no power command, so on a real gpsd the
    /// receiver then keeps tracking (always-on's energy); it is charged here as if the release put it in its
    /// deepest idle state, the best a gpsd deployment gets.
    case gpsdRelease
    /// Tracking in the best mode from the start of the run to its end.
    case alwaysOn

    /// The name in reports.
    public var name: String {
        switch self {
        case .stopImmediately: "stop-immediately"
        case .gpsdRelease: "gpsd 60 s"
        case .alwaysOn: "always-on"
        }
    }
}

/// What a design spends on a run's demand, and the first-fix delays its restarts add.
public struct DesignCharge: Sendable, Hashable {
    /// The energy, joules.
    public var joules: Double
    /// Restarts after the first start.
    public var restarts: Int
    /// The time to first fix of each restart after the first start, in order: what a request arriving then waits.
    public var restartDelays: [Duration]

    /// What `design` spends on the demand `segments` (disjoint, in order, at levels that are ``PowerMode`` raw
    /// values; see ``PowerOracle/segments``) over `[0, end)` nanoseconds, for a receiver described by `profile`.
    ///
    /// Tracking is charged at the mode's power (best for gpsd and always-on) through every demand, and every start
    /// at what acquiring costs above tracking over its time to first fix (the first one `firstStart`, later ones
    /// by how long the receiver waited and where): the receiver acquires in place of tracking, as the metered
    /// receiver does, not on top of it. Idle time is charged at the deepest idle state's power. The receiver
    /// waits in that state before the first demand.
    /// - Complexity: O(n) for n segments.
    public init(
        _ design: PowerDesign, segments: [Demand], end: Int64, profile: ReceiverPowerProfile, firstStart: ReceiverPowerProfile.StartCondition = .cold
    ) {
        let seconds = { (nanoseconds: Int64) in Double(nanoseconds) / 1e9 }
        let deepest = ReceiverPowerProfile.IdleState.allCases.min { profile.idlePower($0, mode: .best) < profile.idlePower($1, mode: .best) }!
        let idlePower = profile.idlePower(deepest, mode: .best)
        let mode = { (level: Int) -> PowerMode in
            design == .stopImmediately ? PowerMode(rawValue: min(max(level, 0), PowerMode.best.rawValue))! : .best
        }
        let firstStartExtra = { (mode: PowerMode) in
            max(0, profile.acquisition - profile.trackingPower(mode)) * seconds((profile.timeToFirstFix[firstStart] ?? .zero).saturatingNanoseconds)
        }
        guard let first = segments.first else {
            self.init(joules: design == .alwaysOn ? 0 : idlePower * seconds(end) / 1000, restarts: 0, restartDelays: [])
            return
        }
        if design == .alwaysOn {
            self.init(joules: (firstStartExtra(.best) + profile.trackingPower(.best) * seconds(end)) / 1000, restarts: 0, restartDelays: [])
            return
        }
        let linger: Int64 = design == .gpsdRelease ? 60_000_000_000 : 0
        var millijoules = idlePower * seconds(first.interval.start) + firstStartExtra(mode(first.level))
        var delays: [Duration] = []
        for (index, segment) in segments.enumerated() {
            let tracking = profile.trackingPower(mode(segment.level))
            millijoules += tracking * seconds(segment.interval.length)
            let next = index + 1 < segments.count ? segments[index + 1].interval.start : nil
            let gap = (next ?? end) - segment.interval.end
            guard gap > 0 else { continue }
            let on = min(gap, linger)
            millijoules += tracking * seconds(on) + idlePower * seconds(gap - on)
            if index + 1 < segments.count, gap > linger {
                let down = Duration.nanoseconds(gap - linger)
                millijoules += profile.restartExtraEnergy(after: down, in: deepest, mode: mode(segments[index + 1].level))
                delays.append(profile.restartDelay(after: down, in: deepest))
            }
        }
        self.init(joules: millijoules / 1000, restarts: delays.count, restartDelays: delays)
    }

    init(joules: Double, restarts: Int, restartDelays: [Duration]) {
        self.joules = joules
        self.restarts = restarts
        self.restartDelays = restartDelays
    }
}

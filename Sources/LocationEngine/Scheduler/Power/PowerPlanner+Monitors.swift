/// The region monitors' share of the power demand (see <doc:Geofences>): one request in
/// ``Geofences/demandedMode`` while any region is monitored, except while the monitors let the source
/// sleep, because no region can be decided against its state before their wake-up instant.
struct MonitorDemand: Sendable {
    /// While the monitors let the source sleep: when they demand it again.
    fileprivate(set) var wakeAt: EngineInstant?
    /// Whether their share is in the demand.
    fileprivate(set) var isDemanding = false
    /// Since when they let the source sleep, while they do.
    fileprivate var asleepSince: EngineInstant?
    /// Sleeps they let the source take, and the total length of those that ended.
    fileprivate(set) var sleeps = 0
    fileprivate var sleptTime: Duration = .zero

    /// The time the monitors have let the source sleep, up to `now`.
    func sleepTime(at now: EngineInstant) -> Duration {
        sleptTime + (asleepSince.map { max(.zero, now - $0) } ?? .zero)
    }

    /// Whether a gap in demand that begins now is the monitors' sleep, whose end is known: the
    /// restart-aware rule then steps the source down at once instead of staying on through a guessed
    /// break-even.
    /// - Complexity: O(1)
    func isSleeping(monitoring: Bool) -> Bool { wakeAt != nil && monitoring }

    /// Whether the monitors have no part in the plan: none demands, sleeps or plans a wake-up.
    @inline(__always)
    var isQuiet: Bool { wakeAt == nil && !isDemanding && asleepSince == nil }
}

extension PowerPlanner {
    /// The monitors want the source now (a region joined, whose state no fix decided yet): any sleep
    /// they planned ends at the next reconciliation.
    mutating func endMonitorSleep() { monitors.wakeAt = nil }

    /// Whether a fix could let the monitors sleep: no request demands their mode (else a sleep would
    /// change nothing, and the first fix after those requests end plans it), and the source describes a
    /// receiver whose restart a sleep can be worth. The caller computes the reach only then.
    /// - Complexity: O(1)
    func monitorsMaySleep(besides demand: PowerDemand) -> Bool {
        demand.count(in: Geofences.demandedMode) == 0 && profile != nil
    }

    /// After a fix at `now` after which the monitors need no fix before `due` (no region can be decided
    /// against its state before, plus their latency budget): lets them sleep until a restart before `due` (their
    /// wake-up), if that is later than a restart is worth. Returns whether they sleep (the caller then
    /// holds the regions' states until `due`). Each fix decides afresh, replacing the plan of the one before.
    ///
    /// The restart before `due` is the profile's time to first fix and, for a source the planner judges, what
    /// the source has delivered beyond it (``SourceDelivery/expectedFirstFix(in:)``): a receiver slower to its
    /// first fix than its profile says is woken that much earlier, so that its fix still comes by `due`.
    mutating func planMonitorSleep(due: EngineInstant, now: EngineInstant) -> Bool {
        monitors.wakeAt = nil
        guard let profile, let worthIt = restartBreakEven(profile) else { return false }
        // The longest a restart can take after this gap: from off (no deeper state), and what the source
        // delivered beyond it (nothing for a source that declares no first-fix times: it is not judged).
        let delivered = delivery.expectedFirstFix(in: Geofences.demandedMode) ?? .zero
        let wake = due - profile.restartDelay(after: due - now, in: .off) - delivered
        guard wake - now > worthIt else { return false }
        monitors.wakeAt = wake
        return true
    }

    /// The shortest sleep worth a restart: below it the planner would keep the source running through
    /// the gap anyway. With the restart-aware rule, the earliest break-even of a step down from
    /// tracking; with the fixed linger, the linger (and at least that break-even). `nil` when no idle
    /// state is cheaper than tracking.
    func restartBreakEven(_ profile: ReceiverPowerProfile) -> Duration? {
        let decider = idle?.decider ?? PowerDownDecider(profile: profile)
        let mode = Geofences.demandedMode
        let breakEvens = [ReceiverPowerProfile.IdleState.standby, .off].compactMap { decider.breakEven(from: .on, to: $0, mode: mode) }
        guard let breakEven = breakEvens.min() else { return nil }
        return idle == nil ? max(breakEven, linger) : breakEven
    }

    /// Brings the monitors' share of the demand in line: one share while any region is monitored and
    /// they do not let the source sleep; the sleep ends at its wake-up instant.
    /// - Complexity: O(1)
    mutating func reconcileMonitorDemand(now: EngineInstant, monitoring: Bool) {
        if !monitoring { monitors.wakeAt = nil }
        if let wake = monitors.wakeAt, wake <= now { monitors.wakeAt = nil }
        let demanding = monitoring && monitors.wakeAt == nil
        monitors.isDemanding = demanding
        let asleep = monitoring && !demanding
        if asleep, monitors.asleepSince == nil {
            monitors.asleepSince = now
            monitors.sleeps += 1
        } else if !asleep, let since = monitors.asleepSince {
            monitors.sleptTime += max(.zero, now - since)
            monitors.asleepSince = nil
        }
    }
}

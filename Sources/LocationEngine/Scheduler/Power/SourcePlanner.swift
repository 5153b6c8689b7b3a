/// The one power planner across the engine's sources: which sources run, and — through each source's
/// ``PowerPlanner`` — in which mode, and where each waits when nothing needs it (see <doc:SeveralSources>).
///
/// With one source it is that source's planner and nothing more. With several, on every reconciliation:
/// - **the choice**: the finest mode demanded (the requests', and the monitors' while any region is
///   monitored) goes to the cheapest source that serves it (``SourceCapabilities/serves(_:)``, then
///   ``SourceCapabilities/cost``; the earlier on a tie); when none does, to the one that reaches finest.
///   That source's planner gets the whole demand — a finer source's fixes serve coarser requests too —
///   and the others none, so they linger and power down by their own rules;
/// - **fallback**: when the chosen source has run ``SchedulerStateMachine/Configuration/fallbackAfter``
///   without a fix (since it started or since its last fix), the cheapest other source is demanded in the
///   mode its reach suits, until the chosen one delivers again;
/// - **failover**: a source that failed for good (``sourceFailed(_:now:monitoring:on:)``) is chosen no more until no
///   request needs any source (the next request starts it afresh).
///
/// Each source's planner keeps its own facts (its state, its restart-aware plan, its receiver's energy);
/// the monitors' sleep is planned by the source chosen for their mode.
struct SourcePlanner: Sendable {
    /// A command for one source. Trivial (no reference), so that returning one on every request's way
    /// through the core copies a few bytes.
    typealias Command = (source: SourceID, command: PowerPlanner.Command)

    /// The first source's planner: the only one with a single source, whose path through the core is then
    /// that of one planner.
    var primary: PowerPlanner
    /// The other sources' planners, in source order (source 1, 2, …).
    var others: [PowerPlanner]
    /// What each source reaches and costs, in source order.
    let sources: [SourceCapabilities]
    /// Sources that failed for good, chosen no more until demand ends.
    var failed: [Bool]
    /// Each source's last fix, and when it last started.
    var lastFix: [EngineInstant?]
    var startedAt: [EngineInstant?]
    /// How long the chosen source may run without a fix before a fallback starts.
    let fallbackAfter: Duration
    /// With several sources, the commands decided and not yet taken (``takeQueued()``), in source order.
    private var queued: [Command] = []
    /// The source chosen at the last reconciliation, and the one started beside it as a fallback.
    private(set) var chosen: SourceID?
    private(set) var fallback: SourceID?

    /// Planners for `sources` (at least one), each lingering `linger` or powering down by `powerDown`.
    init(sources: [SourceCapabilities], linger: Duration, powerDown: PowerDownRule, fallbackAfter: Duration) {
        precondition(!sources.isEmpty, "an engine needs a source")
        func planner(_ capabilities: SourceCapabilities) -> PowerPlanner {
            PowerPlanner(
                linger: linger, powerDown: powerDown, profile: capabilities.powerProfile, confirmsReceiverState: capabilities.confirmsReceiverState)
        }
        primary = planner(sources[0])
        others = sources.dropFirst().map(planner)
        self.sources = sources
        failed = Array(repeating: false, count: sources.count)
        lastFix = Array(repeating: nil, count: sources.count)
        startedAt = Array(repeating: nil, count: sources.count)
        self.fallbackAfter = max(.zero, fallbackAfter)
    }

    /// Whether the engine has more than one source.
    @inline(__always)
    var isSeveral: Bool { !others.isEmpty }

    /// Source `source`'s planner.
    subscript(source: SourceID) -> PowerPlanner {
        get { source.index == 0 ? primary : others[source.index - 1] }
        set {
            if source.index == 0 { primary = newValue } else { others[source.index - 1] = newValue }
        }
    }

    /// Whether any source is powered.
    var isOn: Bool { primary.isOn || others.contains { $0.isOn } }

    /// Whether `source` is powered (read in place: the subscript would copy its planner).
    @inline(__always)
    func isOn(_ source: SourceID) -> Bool { source.index == 0 ? primary.isOn : others[source.index - 1].isOn }

    /// The earliest instant any source's planner must look again, or a fallback falls due.
    /// - Complexity: O(1) with one source, O(s) with s.
    @inline(__always)
    var nextWakeup: EngineInstant? {
        guard isSeveral else { return primary.nextWakeup }
        return others.reduce(earliest(primary.nextWakeup, fallbackDue)) { earliest($0, $1.nextWakeup) }
    }

    /// Sets the power alarm on the core's timeline to ``nextWakeup``, as every call into the planner that can
    /// move it does before it returns (called on each path, not from a `defer`: the optimizer made a
    /// deferred call one out of line that copied the planner). Read in place: through the getter, the
    /// optimizer first copied the planners to a temporary (a large value passed by address).
    @inline(__always)
    mutating func setAlarm(on timeline: inout Timeline) {
        timeline.setAlarm(.power, at: isSeveral ? nextWakeup : primary.readNextWakeup())
    }

    /// Brings the sources in line with the requests' `demand` and the monitors' (see
    /// ``PowerPlanner/reconcile(demand:now:cap:monitoring:isShutDown:)``). With one source, returns its command;
    /// with several, queues theirs (``takeQueued()``) and returns none.
    @inline(__always)
    mutating func reconcile(
        demand: PowerDemand, now: EngineInstant, cap: PowerMode?, monitoring: Bool, isShutDown: Bool, on timeline: inout Timeline
    ) -> Command? {
        guard isSeveral else {
            let command = primary.reconcile(demand: demand, now: now, cap: cap, monitoring: monitoring, isShutDown: isShutDown)
            // The one-source case of `setAlarm(on:)`: on every request's way through the core, asking
            // `isSeveral` again cost 20–30 instructions a request (callgrind).
            timeline.setAlarm(.power, at: primary.readNextWakeup())
            return command.map { (.first, $0) }
        }
        reconcileSeveral(demand: demand, now: now, cap: cap, monitoring: monitoring, isShutDown: isShutDown)
        setAlarm(on: &timeline)
        return nil
    }

    /// The next command queued for a source, with several sources.
    mutating func takeQueued() -> Command? { queued.isEmpty ? nil : queued.removeFirst() }

    private mutating func reconcileSeveral(demand: PowerDemand, now: EngineInstant, cap: PowerMode?, monitoring: Bool, isShutDown: Bool) {
        let wanted = monitoring ? max(demand.mode ?? Geofences.demandedMode, Geofences.demandedMode) : demand.mode
        if wanted == nil { failed = failed.map { _ in false } }
        chosen = wanted.flatMap(choose)
        fallback = chosen.flatMap { fallbackSource(beside: $0, now: now) }
        for index in sources.indices {
            let source = SourceID(index)
            var share = PowerDemand()
            if source == chosen {
                share = demand
            } else if source == fallback {
                share.add(sources[index].finestServedMode)
            }
            let command = self[source].reconcile(
                demand: share, now: now, cap: cap, monitoring: monitoring && source == chosen, isShutDown: isShutDown)
            noteCommand(command, of: source, now: now)
        }
    }

    /// Powers every source down at once (access lost, shutdown): as ``reconcile(demand:now:cap:monitoring:isShutDown:)``,
    /// the one source's command returned, several sources' queued.
    mutating func forceOff(now: EngineInstant, monitoring: Bool, shuttingDown: Bool, on timeline: inout Timeline) -> Command? {
        guard isSeveral else {
            let command = primary.forceOff(now: now, monitoring: monitoring, shuttingDown: shuttingDown)
            setAlarm(on: &timeline)
            return command.map { (.first, $0) }
        }
        for index in sources.indices {
            let source = SourceID(index)
            noteCommand(self[source].forceOff(now: now, monitoring: monitoring, shuttingDown: shuttingDown), of: source, now: now)
        }
        setAlarm(on: &timeline)
        return nil
    }

    /// Source `source` failed for good: it is powered down and chosen no more until demand ends. Returns the
    /// sources left (a request none of them serves can no longer be served). The one source's command is
    /// returned; several sources' is queued.
    mutating func sourceFailed(
        _ source: SourceID, now: EngineInstant, monitoring: Bool, on timeline: inout Timeline
    ) -> (left: [SourceCapabilities], command: Command?) {
        failed[source.index] = true
        let command = self[source].forceOff(now: now, monitoring: monitoring)
        setAlarm(on: &timeline)
        let left = sources.indices.filter { !failed[$0] }.map { sources[$0] }
        guard isSeveral else { return (left, command.map { (.first, $0) }) }
        noteCommand(command, of: source, now: now)
        return (left, nil)
    }

    /// A fix arrived from `source` at `now` (a fallback beside it ends at the next reconciliation).
    @inline(__always)
    mutating func fixArrived(from source: SourceID, now: EngineInstant, on timeline: inout Timeline) {
        guard isSeveral else { return }
        lastFix[source.index] = now
        setAlarm(on: &timeline)
    }

    /// The source whose planner plans the monitors' sleep: the one their mode chooses.
    var monitorSource: SourceID { isSeveral ? choose(Geofences.demandedMode) ?? .first : .first }

    // MARK: The choice

    /// The cheapest source left that serves `mode` (the quicker to a first fix on a tie, then the earlier), else the
    /// one left that reaches finest, else none.
    /// - Complexity: O(s) for s sources, without allocating (it runs for every fix while monitors wait).
    func choose(_ mode: PowerMode) -> SourceID? {
        var cheapest: Int?
        var finest: Int?
        for index in sources.indices where !failed[index] {
            let source = sources[index]
            if source.serves(mode) {
                if cheapest.map({ (source.cost, source.firstFixTime) < (sources[$0].cost, sources[$0].firstFixTime) }) ?? true {
                    cheapest = index
                }
            } else if cheapest == nil, finest.map({ source.reach < sources[$0].reach }) ?? true {
                finest = index
            }
        }
        return (cheapest ?? finest).map(SourceID.init)
    }

    /// When the chosen source, started at `since`, has gone without a fix long enough for a fallback:
    /// ``fallbackAfter`` after its last fix, or after its start; when it never gave a fix (it starts cold), after
    /// its first-fix time and ``fallbackAfter``.
    private func fallbackInstant(of source: SourceID, since: EngineInstant) -> EngineInstant {
        guard let last = lastFix[source.index] else { return since + sources[source.index].firstFixTime + fallbackAfter }
        return max(since, last) + fallbackAfter
    }

    /// When the chosen source, running without a fix, falls due for a fallback beside it.
    private var fallbackDue: EngineInstant? {
        guard let chosen, fallback == nil, sources.count > 1, let since = startedAt[chosen.index] else { return nil }
        return fallbackInstant(of: chosen, since: since)
    }

    /// The cheapest other source left, if the chosen source has run `fallbackAfter` without a fix by `now`.
    private func fallbackSource(beside chosen: SourceID, now: EngineInstant) -> SourceID? {
        guard let since = startedAt[chosen.index], self[chosen].isOn else { return nil }
        guard now >= fallbackInstant(of: chosen, since: since) else { return nil }
        let candidates = sources.indices.filter { $0 != chosen.index && !failed[$0] }
        return candidates.min { sources[$0].cost < sources[$1].cost }.map(SourceID.init)
    }

    /// Queues `command` for `source` and notes when the source started.
    private mutating func noteCommand(_ command: PowerPlanner.Command?, of source: SourceID, now: EngineInstant) {
        if let command { queued.append((source, command)) }
        switch command {
        case .start?: startedAt[source.index] = now
        case .stop?, .idle?: startedAt[source.index] = nil
        case .setMode?, nil: break
        }
    }
}

extension SourcePlanner {
    // MARK: What the other parts and the sources report

    /// Source `source` reports where its receiver confirmed it is (see ``PowerPlanner/receiverConfirmed(_:age:now:)``).
    mutating func receiverConfirmed(
        _ state: ReceiverPowerProfile.IdleState, age: Duration, now: EngineInstant, source: SourceID, on timeline: inout Timeline
    ) {
        self[source].receiverConfirmed(state, age: age, now: now)
        setAlarm(on: &timeline)
    }

    /// Source `source` reports the setting its running receiver confirmed.
    mutating func receiverTracking(_ mode: PowerMode, age: Duration, now: EngineInstant, source: SourceID, on timeline: inout Timeline) {
        self[source].receiverTracking(mode, age: age, now: now)
        setAlarm(on: &timeline)
    }

    /// The monitors want the source now (see ``PowerPlanner/endMonitorSleep()``).
    mutating func endMonitorSleep(on timeline: inout Timeline) {
        if isSeveral {
            for index in sources.indices { self[SourceID(index)].endMonitorSleep() }
        } else {
            primary.endMonitorSleep()
        }
        setAlarm(on: &timeline)
    }

    /// Whether a fix could let the monitors sleep (see ``PowerPlanner/monitorsMaySleep(besides:)``).
    func monitorsMaySleep(besides demand: PowerDemand) -> Bool { self[monitorSource].monitorsMaySleep(besides: demand) }

    /// Lets the monitors sleep until before `reachable`, if worth it (see ``PowerPlanner/planMonitorSleep(reachable:now:)``).
    mutating func planMonitorSleep(reachable: EngineInstant, now: EngineInstant, on timeline: inout Timeline) -> Bool {
        let sleeps = self[monitorSource].planMonitorSleep(reachable: reachable, now: now)
        setAlarm(on: &timeline)
        return sleeps
    }

    /// Writes the planners' figures into `statistics`: with one source its own; with several, the sums over
    /// the sources (the mode and power-down figures the first source's), and each source's in
    /// ``SchedulerStatistics/sources``.
    func addStatistics(to statistics: inout SchedulerStatistics, now: EngineInstant) {
        primary.addStatistics(to: &statistics, now: now)
        guard isSeveral else { return }
        var total = SchedulerStatistics.SourceFigures()
        statistics.sources = sources.indices.map { index in
            var own = SchedulerStatistics()
            self[SourceID(index)].addStatistics(to: &own, now: now)
            let figures = SchedulerStatistics.SourceFigures(
                starts: own.sourceStarts, stops: own.sourceStops, modeChanges: own.sourceModeChanges, onTime: own.sourceOnTime,
                receiverEnergy: own.receiverEnergy, mode: own.sourceMode, failed: failed[index], chosen: chosen?.index == index,
                fallback: fallback?.index == index)
            total.starts += figures.starts
            total.stops += figures.stops
            total.modeChanges += figures.modeChanges
            total.onTime += figures.onTime
            if let energy = figures.receiverEnergy { total.receiverEnergy = (total.receiverEnergy ?? 0) + energy }
            return figures
        }
        statistics.sourceStarts = total.starts
        statistics.sourceStops = total.stops
        statistics.sourceModeChanges = total.modeChanges
        statistics.sourceOnTime = total.onTime
        statistics.receiverEnergy = total.receiverEnergy
    }
}

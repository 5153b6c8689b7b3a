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
///   without a fix (since it started or since its last fix), or — judged by what it delivers — stayed silent
///   past its window since it started, the cheapest other source is demanded in the mode demanded, as far as
///   its reach goes, until the chosen one delivers again;
/// - **failover**: a source that failed for good (``sourceFailed(_:now:monitoring:on:)``) is chosen no more until no
///   request needs any source (the next request starts it afresh).
///
/// Each source's planner keeps its own facts (its state, its restart-aware plan, its receiver's energy);
/// the monitors' sleep is planned by the source chosen for their mode.
struct SourcePlanner: Sendable {
    /// A command for one source. Trivial (no reference), so that returning one on every request's way
    /// through the core copies a few bytes.
    typealias Command = (source: SourceID, command: PowerPlanner.Command)

    /// One record per source, in source order (source 0, 1, …).
    var records: [Record]
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
        records = sources.map { Record(capabilities: $0, planner: PowerPlanner(linger: linger, powerDown: powerDown, capabilities: $0)) }
        self.fallbackAfter = max(.zero, fallbackAfter)
    }

    /// Whether the engine has more than one source.
    @inline(__always)
    var isSeveral: Bool { records.count > 1 }

    /// What each source reaches and costs, in source order.
    var sources: [SourceCapabilities] { records.map(\.capabilities) }

    /// Source `source`'s planner.
    subscript(source: SourceID) -> PowerPlanner {
        get { records[source.index].planner }
        _modify { yield &records[source.index].planner }
    }

    /// Whether any source is powered.
    var isOn: Bool { records.contains { $0.planner.isOn } }

    /// Whether `source` is powered (read in place: the subscript would copy its planner).
    @inline(__always)
    func isOn(_ source: SourceID) -> Bool { records[source.index].planner.isOn }

    /// The earliest instant any source's planner must look again, or a fallback falls due.
    /// - Complexity: O(1) with one source, O(s) with s.
    @inline(__always)
    var nextWakeup: EngineInstant? {
        guard isSeveral else { return records[0].planner.nextWakeup }
        return records.reduce(fallbackDue) { earliest($0, $1.planner.nextWakeup) }
    }

    /// Sets the power alarm on the core's timeline to ``nextWakeup``, as every call into the planner that can
    /// move it does before it returns (called on each path, not from a `defer`: the optimizer made a
    /// deferred call one out of line that copied the planner). Read in place: through the getter, the
    /// optimizer first copied the planners to a temporary (a large value passed by address).
    @inline(__always)
    mutating func setAlarm(on timeline: inout Timeline) {
        timeline.setAlarm(.power, at: isSeveral ? nextWakeup : records[0].planner.readNextWakeup())
    }

    /// Brings the sources in line with the requests' `demand` and the monitors' (see
    /// ``PowerPlanner/reconcile(demand:now:cap:monitoring:isShutDown:)``). With one source, returns its command;
    /// with several, queues theirs (``takeQueued()``) and returns none.
    @inline(__always)
    mutating func reconcile(
        demand: PowerDemand, now: EngineInstant, cap: PowerMode?, monitoring: Bool, isShutDown: Bool, on timeline: inout Timeline
    ) -> Command? {
        guard isSeveral else {
            // The one-source case of `setAlarm(on:)`: on every request's way through the core, asking
            // `isSeveral` again cost 20–30 instructions a request (callgrind).
            let command = records[0].reconcileAlone(
                demand: demand, now: now, cap: cap, monitoring: monitoring, isShutDown: isShutDown, on: &timeline)
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
        if wanted == nil { for index in records.indices { records[index].failed = false } }
        // A run past its window marks its mode silent before the choice: a silent chosen source gets its
        // fallback in this same reconciliation.
        for index in records.indices where records[index].planner.isJudged { _ = records[index].planner.delivery.look(now: now) }
        chosen = wanted.flatMap(choose)
        fallback = chosen.flatMap { fallbackSource(beside: $0, now: now) }
        for index in records.indices {
            let source = SourceID(index)
            var share = PowerDemand()
            if source == chosen {
                share = demand
            } else if source == fallback, let wanted {
                // What is demanded, as far as the fallback reaches, answered as quickly as the chosen source's.
                let mode = min(wanted, records[index].capabilities.finestServedMode)
                if demand.oneShots > 0 { share.addOneShot(mode) } else { share.add(mode) }
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
            let command = records[0].planner.forceOff(now: now, monitoring: monitoring, shuttingDown: shuttingDown)
            setAlarm(on: &timeline)
            if let command { records[0].noteStart(command, now: now) }
            return command.map { (.first, $0) }
        }
        for index in records.indices {
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
        records[source.index].failed = true
        let command = self[source].forceOff(now: now, monitoring: monitoring)
        setAlarm(on: &timeline)
        let left = records.filter { !$0.failed }.map(\.capabilities)
        guard isSeveral else {
            if let command { records[0].noteStart(command, now: now) }
            return (left, command.map { (.first, $0) })
        }
        noteCommand(command, of: source, now: now)
        return (left, nil)
    }

    /// A fix of `accuracy` metres arrived from `source` at `now`: its run waiting for a first fix is answered,
    /// its last error forgotten, and a fallback beside it ends at the next reconciliation.
    @inline(__always)
    mutating func fixArrived(from source: SourceID, accuracy: Double, now: EngineInstant, on timeline: inout Timeline) {
        if records[source.index].lastError != nil { records[source.index].lastError = nil }
        guard isSeveral || records[0].planner.isJudged else { return }
        records[source.index].lastFix = now
        records[source.index].planner.fixArrived(accuracy: accuracy, now: now)
        setAlarm(on: &timeline)
    }

    /// Source `source` reports a transient error at `now`, kept to say why a request ended without a fix.
    mutating func errorReported(_ error: SourceError, by source: SourceID, now: EngineInstant) {
        records[source.index].lastError = (error, now)
    }

    /// The source whose planner plans the monitors' sleep: the one their mode chooses.
    var monitorSource: SourceID { isSeveral ? choose(Geofences.demandedMode) ?? .first : .first }


    /// Why one-shots ending at `now` without what they asked for got nothing better than `best` (`age` old):
    /// fixes that did not reach their accuracy, a source's error since its last fix, a source still
    /// waiting for its first fix, or no fix at all.
    func reason(best: Location?, age: Duration?, now: EngineInstant) -> EndingReason {
        if let best {
            let finest = records.filter { !$0.failed }.map(\.capabilities.reach).min() ?? 0
            return .accuracyNotReached(best: best, age: age ?? .zero, finestReach: finest)
        }
        if let error = records.compactMap(\.lastError).max(by: { $0.at < $1.at }) { return .sourceError(error.error) }
        if let started = records.compactMap({ $0.planner.isOn ? $0.startedAt : nil }).min() { return .acquiring(for: now - started) }
        return .noFix
    }

    // MARK: The choice

    /// The cheapest source left that serves `mode` (the quicker to a first fix on a tie, then the earlier), else the
    /// one left that reaches finest, else none.
    /// - Complexity: O(s) for s sources, without allocating (it runs for every fix while monitors wait).
    func choose(_ mode: PowerMode) -> SourceID? {
        var cheapest: Int?
        var finest: Int?
        for index in records.indices where !records[index].failed {
            let source = records[index].capabilities
            if source.serves(mode) {
                if cheapest.map({ (source.cost, source.firstFixTime) < (records[$0].capabilities.cost, records[$0].capabilities.firstFixTime) })
                    ?? true
                {
                    cheapest = index
                }
            } else if cheapest == nil, finest.map({ source.reach < records[$0].capabilities.reach }) ?? true {
                finest = index
            }
        }
        return (cheapest ?? finest).map(SourceID.init)
    }

    /// When the chosen source, started at `since`, has gone without a fix long enough for a fallback:
    /// ``fallbackAfter`` after its last fix, or after its start; when it never gave a fix (it starts cold), after
    /// its first-fix time and ``fallbackAfter``.
    private func fallbackInstant(of source: SourceID, since: EngineInstant) -> EngineInstant {
        guard let last = records[source.index].lastFix else { return since + records[source.index].capabilities.firstFixTime + fallbackAfter }
        return max(since, last) + fallbackAfter
    }

    /// When the chosen source, running without a fix, falls due for a fallback beside it.
    private var fallbackDue: EngineInstant? {
        guard let chosen, fallback == nil, let since = records[chosen.index].startedAt else { return nil }
        return fallbackInstant(of: chosen, since: since)
    }

    /// The cheapest other source left, if the chosen source has run `fallbackAfter` without a fix by `now`, or
    /// stayed silent past its window in a mode since its last fix (it judged itself: no blind wait).
    private func fallbackSource(beside chosen: SourceID, now: EngineInstant) -> SourceID? {
        let record = records[chosen.index]
        guard let since = record.startedAt, record.planner.isOn else { return nil }
        let silent = record.planner.isJudged && record.lastFix.map { $0 < since } ?? true && record.planner.delivery.silencedSince(since)
        guard silent || now >= fallbackInstant(of: chosen, since: since) else { return nil }
        var cheapest: Int?
        for index in records.indices where index != chosen.index && !records[index].failed {
            if cheapest.map({ records[index].capabilities.cost < records[$0].capabilities.cost }) ?? true { cheapest = index }
        }
        return cheapest.map(SourceID.init)
    }

    /// Queues `command` for `source` and notes when the source started.
    private mutating func noteCommand(_ command: PowerPlanner.Command?, of source: SourceID, now: EngineInstant) {
        guard let command else { return }
        queued.append((source, command))
        records[source.index].noteStart(command, now: now)
    }

}

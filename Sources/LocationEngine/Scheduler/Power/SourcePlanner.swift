/// The one power planner across the engine's sources: which sources run, and — through each source's
/// ``PowerPlanner`` — in which mode, and where each waits when nothing needs it (see <doc:SeveralSources>).
///
/// One record per source, for one source as for several; on every reconciliation:
/// - **the choice**: the finest mode demanded (the requests', and the monitors' while any region is
///   monitored) goes to the cheapest source that serves it (``SourceCapabilities/serves(_:)``, then
///   ``SourceCapabilities/cost``; the earlier on a tie); when none does, to the one that reaches finest; while a
///   heading subscription is admitted, among the sources that give the course (``SourceCapabilities/providesCourse``). The
///   only source left is chosen without weighing anything. That source's planner gets the whole demand — a
///   finer source's fixes serve coarser requests too — and the others none, so they linger and power down by
///   their own rules;
/// - **fallback**: when the chosen source has run ``SchedulerStateMachine/Configuration/fallbackAfter``
///   without a fix (since it started, after the restart its receiver needed, or since its last fix), or — judged
///   by what it delivers — stayed silent past its window since it started, the cheapest other source is demanded
///   in the mode demanded, as far as its reach goes, until the chosen one delivers again; and while the chosen
///   source acquires, expected to take longer to its first fix than that other source, the other runs beside it
///   for the requests it serves, in the finest of their modes, until the chosen one's first fix;
/// - **failover**: a source that failed for good (``PowerDown/failed(_:)``) is chosen no more for what the
///   others serve until a reconciliation finds no request needing any source (the next request starts it
///   afresh); a request that no source left serves tries it again, once.
///
/// Every call that can command a source returns what the sources must do (``SourceCommands``); none sets
/// an alarm: the core's settle step reads ``nextWakeup`` into the power alarm once the call returns.
///
/// Each source's planner keeps its own facts (its state, its restart-aware plan, its receiver's energy);
/// the monitors' sleep is planned by the source chosen for their mode.
struct SourcePlanner: Sendable {
    /// A command for one source.

    /// One record per source, in source order (source 0, 1, …).
    var records: [Record]
    /// How long the chosen source may run without a fix before a fallback starts.
    let fallbackAfter: Duration
    /// The choice made at the last reconciliation, `nil` while nothing is demanded; kept while the mode demanded
    /// and the sources left stay the same.
    private(set) var choice: Choice?
    /// The source started beside the chosen one as a fallback.
    private(set) var fallback: SourceID?
    /// Whether ``fallback`` runs only while the chosen source acquires (for the requests it serves), rather than
    /// for a chosen source gone silent.
    private var fallbackAnswersSooner = false
    /// The finest mode the requests (not the monitors) demanded at the last reconciliation: a request finer than
    /// every source left serves is seen as this changes.
    private var requestedMode: PowerMode?
    /// The power-down the event in progress decided, carried out first at its reconciliation.
    private var pendingDown: PowerDown?

    /// A choice among the sources for a mode demanded.
    struct Choice: Sendable {
        /// The mode it was made for.
        var mode: PowerMode
        /// Whether it was made for requests that want the course.
        var course: Bool
        /// The source chosen (`nil` when every source failed).
        var chosen: SourceID?
        /// The cheapest other source left beside it: the fallback when one falls due (`nil` when no other source
        /// is left, as with the engine's only source: then no fallback is ever due).
        var spare: SourceID?
    }

    /// The source chosen at the last reconciliation.
    var chosen: SourceID? { choice?.chosen }

    /// Planners for `sources` (at least one), each lingering `linger` or powering down by `powerDown`.
    init(sources: [SourceCapabilities], linger: Duration, powerDown: PowerDownRule, fallbackAfter: Duration) {
        precondition(!sources.isEmpty, "an engine needs a source")
        records = sources.map { Record(capabilities: $0, planner: PowerPlanner(linger: linger, powerDown: powerDown, capabilities: $0)) }
        self.fallbackAfter = max(.zero, fallbackAfter)
    }

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
    /// - Complexity: O(s) for s sources.
    var nextWakeup: EngineInstant? {
        var planner = self
        return planner.readNextWakeup()
    }

    /// ``nextWakeup``, read in place: through a getter, the optimizer first copied the planners to a
    /// temporary (a large value passed by address).
    /// - Complexity: O(s) for s sources.
    @inline(__always)
    mutating func readNextWakeup() -> EngineInstant? {
        var next = fallbackDue
        for index in records.indices { next = earliest(next, records[index].planner.readNextWakeup()) }
        return next
    }

    /// Brings the sources in line with the requests' `demand` and the monitors' (see
    /// ``PowerPlanner/reconcile(demand:now:cap:monitoring:isShutDown:)``): the choice, the fallback beside it,
    /// and each source's planner with its share. Returns what the sources must do, and ``nextWakeup`` after it,
    /// read on the way (a second pass over the records cost about 60 instructions a request, callgrind).
    /// - Complexity: O(s) for s sources.
    @inline(__always)
    mutating func reconcile(
        demand: PowerDemand, now: EngineInstant, cap: PowerMode?, monitoring: Bool, isShutDown: Bool
    ) -> (commands: SourceCommands, nextWakeup: EngineInstant?) {
        var commands = SourceCommands()
        if case .some = pendingDown { carryOutPowerDown(now: now, monitoring: monitoring, isShutDown: isShutDown, into: &commands) }
        let demanded = monitoring ? max(demand.mode ?? Geofences.demandedMode, Geofences.demandedMode) : demand.mode
        // Under reduced accuracy no source runs finer than the cap: the choice is the cheapest that serves it.
        let wanted = cap.map { cap in demanded.map { min($0, cap) } } ?? demanded
        choose(for: wanted, course: demand.wantsCourse, demand: demand, now: now)
        var next: EngineInstant?
        for index in records.indices {
            let source = SourceID(index)
            if source == chosen {
                records[index].reconcile(
                    share: demand, now: now, cap: cap, monitoring: monitoring, isShutDown: isShutDown, into: &commands, as: source,
                    nextWakeup: &next)
            } else {
                reconcile(beside: source, demand: demand, wanted: wanted, now: now, cap: cap, isShutDown: isShutDown,
                    into: &commands, nextWakeup: &next)
            }
        }
        return (commands, earliest(next, fallbackDue))
    }

    /// Brings `source`, not chosen, in line with its share (``share(of:demand:wanted:quickly:)``); out of line, so that
    /// the chosen source's way stays small (with one source, the only way taken while anything is demanded).
    @inline(never)
    private mutating func reconcile(
        beside source: SourceID, demand: PowerDemand, wanted: PowerMode?, now: EngineInstant, cap: PowerMode?, isShutDown: Bool,
        into commands: inout SourceCommands, nextWakeup: inout EngineInstant?
    ) {
        let share = share(of: source, demand: demand, wanted: wanted, quickly: demand.oneShots > 0)
        records[source.index].reconcile(
            share: share, now: now, cap: cap, monitoring: false, isShutDown: isShutDown, into: &commands, as: source, nextWakeup: &nextWakeup)
    }

    /// What `source`, not chosen, is demanded: nothing; as the fallback for a silent chosen source, what is demanded
    /// (`wanted`) as far as it reaches (the best it can do for the finer requests too); beside a chosen source still
    /// acquiring, the finest mode demanded that it serves. Answered as quickly as the chosen source's would be.
    private func share(of source: SourceID, demand: PowerDemand, wanted: PowerMode?, quickly: Bool) -> PowerDemand {
        var share = PowerDemand()
        guard source == fallback, let wanted else { return share }
        let capabilities = records[source.index].capabilities
        let asFarAsItReaches = min(wanted, capabilities.finestServedMode)
        let mode =
            fallbackAnswersSooner
            ? PowerMode.allCases.reversed().first { $0 <= wanted && demand.count(in: $0) > 0 && capabilities.serves($0) } ?? asFarAsItReaches
            : asFarAsItReaches
        if quickly { share.addOneShot(mode) } else { share.add(mode) }
        return share
    }

    /// What an event powers down beside what the demand says: carried out first at the next reconciliation
    /// (``reconcile(demand:now:cap:monitoring:isShutDown:)``), so that every command of an event comes from it.
    enum PowerDown: Sendable {
        /// This source failed for good: it is powered down, and chosen no more until demand ends.
        case failed(SourceID)
        /// Every source goes down at once: access was lost, or the engine shuts down.
        case all
    }

    /// The event in progress powers `down` sources. Changes of access that fall due at one instant are one
    /// event, and each loss of access among them (denied, then restricted) asks for every source down: one
    /// does. A source's failure is an event of its own, never beside another power-down.
    mutating func powerDown(_ down: PowerDown) {
        if case .all? = pendingDown, case .all = down { return }
        assert(pendingDown == nil, "a source's failure is an event of its own")
        pendingDown = down
    }

    /// The sources left should `source` fail: a request none of them serves can no longer be served.
    func sources(leftAfterFailing source: SourceID) -> [SourceCapabilities] {
        records.indices.filter { $0 != source.index && !records[$0].planner.hasFailed }.map { records[$0].capabilities }
    }

    /// Carries out the power-down the event decided, into `commands`; out of line (rare, and the
    /// reconciliation is on every request's way).
    @inline(never)
    private mutating func carryOutPowerDown(now: EngineInstant, monitoring: Bool, isShutDown: Bool, into commands: inout SourceCommands) {
        guard let down = pendingDown else { return }
        pendingDown = nil
        switch down {
        case .failed(let source):
            choice = nil
            if let command = records[source.index].planner.fail(now: now, monitoring: monitoring) { note(command, of: source, in: &commands) }
        case .all:
            for index in records.indices {
                let command = records[index].planner.forceOff(now: now, monitoring: monitoring, shuttingDown: isShutDown)
                if let command { note(command, of: SourceID(index), in: &commands) }
            }
        }
    }

    /// A fix of `accuracy` metres arrived from `source` at `now`: its run waiting for a first fix is answered,
    /// its last error forgotten, and a fallback beside it ends at the next reconciliation.
    @inline(__always)
    mutating func fixArrived(from source: SourceID, accuracy: Double, now: EngineInstant) {
        if records[source.index].lastError != nil { records[source.index].lastError = nil }
        records[source.index].lastFix = now
        records[source.index].planner.fixArrived(accuracy: accuracy, now: now)
    }

    /// Source `source` reports a transient error at `now`, kept to say why a request ended without a fix.
    mutating func errorReported(_ error: SourceError, by source: SourceID, now: EngineInstant) {
        records[source.index].lastError = (error, now)
    }

    /// The source whose planner plans the monitors' sleep: the one chosen, which runs for them (under reduced
    /// accuracy the one chosen for the cap, not the one their own mode would choose, which may not run at all),
    /// else the one their mode chooses.
    var monitorSource: SourceID { chosen ?? choose(Geofences.demandedMode) ?? .first }

    /// Why one-shots ending at `now` without what they asked for got nothing better than `best` (`age` old): a
    /// running source's error since its last fix (what kept a better fix from coming, whatever fix is remembered),
    /// fixes that did not reach their accuracy, any source's error since its last fix, a source still waiting for
    /// its first fix, or no fix at all.
    func reason(best: Location?, age: Duration?, now: EngineInstant) -> EndingReason {
        // The newest error since its source's last fix, among the running sources only, or among all.
        func newestError(runningOnly: Bool) -> SourceError? {
            records.filter { !runningOnly || $0.planner.runningSince != nil }.compactMap(\.lastError).max { $0.at < $1.at }?.error
        }
        // A running source's error first: one that stopped since (the demand moved to another) kept nothing back.
        if let error = newestError(runningOnly: true) { return .sourceError(error) }
        if let best {
            let finest = records.filter { !$0.planner.hasFailed }.map(\.capabilities.reach).min() ?? 0
            return .accuracyNotReached(best: best, age: age ?? .zero, finestReach: finest)
        }
        if let error = newestError(runningOnly: false) { return .sourceError(error) }
        if let started = records.compactMap(\.planner.runningSince).min() { return .acquiring(for: now - started) }
        return .noFix
    }

    // MARK: The choice

    /// Makes the choice for the finest mode demanded, `wanted` (`nil`: none), and whether a request wants the
    /// `course`, unless it stands, and decides whether the spare beside the chosen source runs as a fallback. Without
    /// demand, the sources that failed may be chosen again.
    /// - Complexity: O(1) while the choice stands and no other source is left, else O(s) for s sources.
    @inline(__always)
    private mutating func choose(for wanted: PowerMode?, course: Bool, demand: PowerDemand, now: EngineInstant) {
        guard let wanted else {
            for index in records.indices { records[index].planner.recoverFromFailure() }
            choice = nil
            fallback = nil
            requestedMode = nil
            return
        }
        if demand.mode != requestedMode {
            // The requests' own mode, not `wanted`: while regions are monitored that is the finest whatever is
            // asked. Right after a failure the requests left are the ones the sources left serve, so this tries
            // nothing then.
            if let requested = demand.mode, recoverSourcesIfNoneLeftServes(requested) { choice = nil }
            requestedMode = demand.mode
        }
        if choice?.mode != wanted || choice?.course != course {
            if course { recoverCourseSourcesIfNoneLeft() }
            choice = makeChoice(for: wanted, course: course)
        }
        guard let chosen = choice?.chosen, let spare = choice?.spare else {
            fallback = nil
            return
        }
        // A run past its window marks its mode silent first: a silent chosen source gets its fallback in this same
        // reconciliation.
        if records[chosen.index].planner.isJudged { _ = records[chosen.index].planner.delivery.look(now: now) }
        if fallbackIsDue(beside: chosen, now: now) {
            fallback = spare
            fallbackAnswersSooner = false
        } else if answersSooner(spare, beside: chosen, demand: demand, now: now) {
            fallback = spare
            fallbackAnswersSooner = true
        } else {
            fallback = nil
        }
    }

    /// Whether `spare` runs beside `chosen` while `chosen` acquires (about to start, or started with no fix since):
    /// when `chosen` is expected to take longer to its first fix than `spare`, and `spare` serves some request. A
    /// city request beside a house request does not wait out a receiver's 35 s cold start (past its 30 s timeout):
    /// the coarse source answers it in seconds, and stops again at the receiver's first fix. A receiver that
    /// restarts hot, quicker than the spare, has no spare beside it.
    @inline(never)
    private func answersSooner(_ spare: SourceID, beside chosen: SourceID, demand: PowerDemand, now: EngineInstant) -> Bool {
        let planner = records[chosen.index].planner
        let expected: Duration
        if planner.runningSince != nil {
            guard let acquisition = planner.expectedAcquisition else { return false }
            expected = acquisition
        } else {
            expected = planner.expectedRestartDelay(startingAt: now)
        }
        let capabilities = records[spare.index].capabilities
        // The spare's slowest declared first fix (GeoClue declares its by mode): a receiver restarting hot is
        // quicker than it.
        guard expected > capabilities.firstFixByMode.values.reduce(capabilities.firstFixTime, max) else { return false }
        // Heading subscriptions are served only by fixes with a course: a spare without it serves none of them
        // (taken, at worst, to be among the modes it serves).
        let served = PowerMode.allCases.reduce(0) { $0 + (capabilities.serves($1) ? demand.count(in: $1) : 0) }
        return served > (capabilities.providesCourse ? 0 : demand.courses)
    }

    /// A heading subscription admitted once every source that gives the course had failed (made after the failure,
    /// or waiting for access through it) would be served by none and wait for ever: those sources are tried again,
    /// as the next request after demand ends would; failing again, they end it with their error.
    @inline(never)
    private mutating func recoverCourseSourcesIfNoneLeft() {
        guard !records.contains(where: { !$0.planner.hasFailed && $0.capabilities.providesCourse }) else { return }
        for index in records.indices where records[index].capabilities.providesCourse { records[index].planner.recoverFromFailure() }
    }

    /// A request finer than every source left serves, made while demand lasts (geofences keep it for ever),
    /// would wait for ever on a source that failed earlier (a gpsd that was down for a while, back since):
    /// the sources that serve it are tried again; failing again, they end it with their error, and demand
    /// falls back to what the others serve. Each such request tries them once, never in a loop.
    /// Returns whether any was.
    @inline(never)
    private mutating func recoverSourcesIfNoneLeftServes(_ mode: PowerMode) -> Bool {
        guard records.count > 1, !records.contains(where: { !$0.planner.hasFailed && $0.capabilities.serves(mode) }) else { return false }
        var recovered = false
        for index in records.indices where records[index].planner.hasFailed && records[index].capabilities.serves(mode) {
            records[index].planner.recoverFromFailure()
            recovered = true
        }
        return recovered
    }

    /// The choice for `mode` (and the `course`, if wanted): the source chosen, and the cheapest other one left
    /// beside it.
    @inline(never)
    private func makeChoice(for mode: PowerMode, course: Bool) -> Choice {
        let chosen = choose(mode, course: course)
        return Choice(mode: mode, course: course, chosen: chosen, spare: chosen.flatMap(cheapestOther))
    }

    /// The cheapest source left that serves `mode` (the quicker to a first fix on a tie, then the earlier), else the
    /// one left that reaches finest, else none. The only source left is chosen without weighing anything. When a
    /// request wants the `course`, the choice keeps to the sources left that give it, while there is one (a
    /// cheaper source without it would leave a heading subscription waiting for ever).
    /// - Complexity: O(s) for s sources, without allocating (it runs for every fix while monitors wait).
    func choose(_ mode: PowerMode, course: Bool = false) -> SourceID? {
        let keepToCourse = course && records.contains { !$0.planner.hasFailed && $0.capabilities.providesCourse }
        func isCandidate(_ index: Int) -> Bool {
            !records[index].planner.hasFailed && (!keepToCourse || records[index].capabilities.providesCourse)
        }
        var left = 0
        var last = 0
        for index in records.indices where isCandidate(index) {
            left += 1
            last = index
        }
        guard left > 1 else { return left == 1 ? SourceID(last) : nil }
        var cheapest: Int?
        var finest: Int?
        for index in records.indices where isCandidate(index) {
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
    /// ``fallbackAfter`` after its last fix, or after the restart its receiver needed from its start (a receiver
    /// off for hours starts warm, half a minute); when it never gave a fix (it starts cold), after its first-fix
    /// time and ``fallbackAfter``.
    private func fallbackInstant(of source: SourceID, since: EngineInstant) -> EngineInstant {
        guard let last = records[source.index].lastFix else { return since + records[source.index].capabilities.firstFixTime + fallbackAfter }
        return max(since + (records[source.index].planner.expectedAcquisition ?? .zero), last) + fallbackAfter
    }

    /// When the chosen source, running without a fix, falls due for a fallback beside it (never while no other
    /// source is left to fall back on). Inlined: with one source it is the test of the spare, and a call kept
    /// the commands of ``reconcile(demand:now:cap:monitoring:isShutDown:)`` alive across it (about 35 instructions
    /// a request, callgrind).
    @inline(__always)
    private var fallbackDue: EngineInstant? {
        guard let choice, choice.spare != nil, fallback == nil, let chosen = choice.chosen, let since = records[chosen.index].planner.runningSince else {
            return nil
        }
        return fallbackInstant(of: chosen, since: since)
    }

    /// The cheapest source left other than `chosen`, if any.
    /// - Complexity: O(s) for s sources.
    private func cheapestOther(than chosen: SourceID) -> SourceID? {
        var cheapest: Int?
        for index in records.indices where index != chosen.index && !records[index].planner.hasFailed {
            if cheapest.map({ records[index].capabilities.cost < records[$0].capabilities.cost }) ?? true { cheapest = index }
        }
        return cheapest.map(SourceID.init)
    }

    /// Whether `chosen`, running, has run `fallbackAfter` without a fix by `now`, or stayed silent past
    /// its window in a mode since its last fix (it judged itself: no blind wait).
    private func fallbackIsDue(beside chosen: SourceID, now: EngineInstant) -> Bool {
        guard let since = records[chosen.index].planner.runningSince else { return false }
        let record = records[chosen.index]
        let silent = record.planner.isJudged && record.planner.delivery.silencedSince(max(since, record.lastFix ?? since))
        return silent || now >= fallbackInstant(of: chosen, since: since)
    }

    /// Adds `command` for `source` to `commands`, and notes it in the source's record.
    private mutating func note(_ command: PowerPlanner.Command, of source: SourceID, in commands: inout SourceCommands) {
        commands.append(command, for: source)
        records[source.index].note(command)
    }
}

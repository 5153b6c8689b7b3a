/// What one source has delivered, mode by mode, against what it said it would: the power planner's
/// judge of *when* a source answers (see <doc:PowerPolicy>).
///
/// A source that declares how soon its first fix comes in each mode (``SourceCapabilities/firstFixByMode``)
/// starts with that as its prior. Each run — a start, or a change of mode — then waits for its first
/// fix: the time it took and the fix's accuracy update the mode's record (the mean of the last and the record,
/// so recent runs weigh most), and a run that stays silent past its window (twice the longer of the declared
/// and the delivered time, at least 2 s, after the restart the receiver needed) marks the mode *silent* for
/// ``silenceMemory``. A change to a coarser mode is judged too, since a subscription left on it waits on it:
/// against the longer of its window and twice the interval between the source's last two fixes, as a receiver
/// may keep its cycle through it. A run whose mode the receiver refused ends unjudged (its fixes come in the
/// mode it kept). A silent mode is passed over: its demand runs the source in the finest mode not known
/// silent (GeoClue's exact level where its city level has no Wi-Fi or IP source), and with several sources the
/// fallback beside it starts at once.
///
/// While one-shots wait, the source runs in the cheapest mode at or above the demanded one that is expected to
/// answer within ``fastEnough``, or no later than ``quickSlack`` after the quickest: a fast first fix, then the
/// cheapest mode that serves what stays. A source that declares nothing is never judged and runs as demanded.
///
/// Pure: no clock, no I/O. The window's end is the power planner's wake-up (``nextWakeup``).
struct SourceDelivery: Sendable {
    /// One mode's record.
    struct ModeRecord: Sendable, Hashable {
        /// Runs in the mode that waited for a first fix, those answered, and those that stayed silent.
        var runs = 0
        var answered = 0
        var silences = 0
        /// How long its first fixes took (after the restart the receiver needed): the mean of the last and the record.
        var firstFix: Duration?
        /// How accurate its first fixes were, metres, kept the same way.
        var accuracy: Double?
        /// Until when the mode is known silent and passed over.
        var silentUntil: EngineInstant?
    }

    /// The run in progress, until its first fix or its silence.
    struct Run: Sendable, Hashable {
        /// The mode it runs in and when it entered it.
        var mode: PowerMode
        var since: EngineInstant
        /// When the receiver's restart is expected to be over (`since` without one).
        var acquiredBy: EngineInstant
        /// When the run counts as silent.
        var silentAt: EngineInstant
    }

    /// How long a mode found silent is passed over before it is tried again.
    static var silenceMemory: Duration { .seconds(600) }
    /// How much later than the quickest mode a cheaper one may be expected to answer a waiting one-shot.
    static var quickSlack: Duration { .seconds(1) }
    /// A first fix expected within this is fast enough for a waiting one-shot, whatever a finer mode would do.
    static var fastEnough: Duration { .seconds(5) }
    /// The shortest silence window.
    static var minimumWindow: Duration { .seconds(2) }

    /// The declared first-fix time of each mode, by raw value (`nil`: not declared); empty when the source
    /// declared none, and so is never judged.
    private let prior: [Duration?]
    /// Each mode's record, by raw value.
    private(set) var modes: [ModeRecord]
    /// The run waiting for its first fix.
    private(set) var run: Run?
    /// For each demanded mode (by raw value), the mode to run: itself, or, if it is known silent, the finest
    /// mode not known silent.
    private var serving: [PowerMode]
    /// For each demanded mode, the mode to run while one-shots wait.
    private var quick: [PowerMode]
    /// The earliest instant a silent mark lapses.
    private var nextLapse: EngineInstant?
    /// When a run last stayed silent.
    private(set) var lastSilence: EngineInstant?
    /// When the receiver's restart since the source last started is expected to be over, while it runs: a mode
    /// asked after a change still waits for it (the change ended the run that held it).
    private var restartOverAt: EngineInstant?
    /// The last fix while the source runs, and the interval between it and the one before: the cadence a
    /// receiver keeps through a change to a coarser mode.
    private var lastFixAt: EngineInstant?
    private var cadence: Duration?
    /// The mode the source runs in, while it runs.
    private var runningMode: PowerMode?

    init(capabilities: SourceCapabilities) {
        prior = capabilities.firstFixByMode.isEmpty ? [] : PowerMode.allCases.map { capabilities.firstFixByMode[$0] }
        modes = Array(repeating: ModeRecord(), count: PowerMode.allCases.count)
        serving = PowerMode.allCases
        quick = PowerMode.allCases
        if judges { plan() }
    }

    /// Whether the source declared its first-fix times (otherwise it is never judged).
    @inline(__always)
    var judges: Bool { !prior.isEmpty }

    /// When the run in progress counts as silent, if one waits.
    @inline(__always)
    var nextWakeup: EngineInstant? { run?.silentAt }

    /// The mode to run for `demanded`, `quickly` while one-shots wait for their first fix.
    /// - Complexity: O(1)
    @inline(__always)
    func mode(for demanded: PowerMode, quickly: Bool) -> PowerMode {
        quickly ? quick[demanded.rawValue] : serving[demanded.rawValue]
    }

    /// What the source is expected to take to a first fix in `mode`, without a restart: what it delivered,
    /// else what it declared.
    func expectedFirstFix(in mode: PowerMode) -> Duration? { modes[mode.rawValue].firstFix ?? (judges ? prior[mode.rawValue] : nil) }

    /// Whether a run stayed silent at or after `instant`.
    func silencedSince(_ instant: EngineInstant) -> Bool { lastSilence.map { $0 >= instant } ?? false }

    /// Whether `mode` is known silent now.
    func isSilent(_ mode: PowerMode) -> Bool { modes[mode.rawValue].silentUntil != nil }

    // MARK: Events

    /// The source started in `mode` at `now`, its receiver expected to need `restart` before it can fix.
    mutating func started(_ mode: PowerMode, now: EngineInstant, restart: Duration) {
        let acquiredBy = now + max(.zero, restart)
        restartOverAt = acquiredBy
        runningMode = mode
        begin(mode, now: now, acquiredBy: acquiredBy)
    }

    /// The running source changed into `mode` at `now`: the run in progress ends unjudged, and one in the new mode
    /// begins — coarser or finer, since a subscription left on a coarser mode that never answers would otherwise
    /// wait for a finer demand to come back. A restart still under way goes on through the change.
    mutating func changed(to mode: PowerMode, now: EngineInstant) {
        let coarser = runningMode.map { mode < $0 } ?? false
        runningMode = mode
        begin(mode, now: now, acquiredBy: max(now, restartOverAt ?? now), atLeast: coarser ? cadence.map { $0 * 2 } : nil)
    }

    /// The running receiver refused the mode asked and kept `kept`: the run in progress ends unjudged.
    mutating func refused(keeping kept: PowerMode) {
        run = nil
        runningMode = kept
    }

    /// The source stopped: no run waits.
    mutating func stopped() {
        run = nil
        restartOverAt = nil
        lastFixAt = nil
        cadence = nil
        runningMode = nil
    }

    /// A fix arrived at `now` from the source running in `mode`, `accuracy` metres: a run waiting for its
    /// first fix is answered, and a mode known silent that delivers is silent no more.
    mutating func fixArrived(in mode: PowerMode, accuracy: Double, now: EngineInstant) {
        guard judges else { return }
        // A fix: the receiver's restart is over, whatever was expected of it.
        restartOverAt = nil
        if let lastFixAt { cadence = now - lastFixAt }
        lastFixAt = now
        if let run, run.mode == mode {
            let took = max(.zero, now - max(run.since, run.acquiredBy))
            var record = modes[mode.rawValue]
            record.answered += 1
            record.firstFix = record.firstFix.map { ($0 + took) / 2 } ?? took
            if accuracy.isFinite { record.accuracy = record.accuracy.map { ($0 + accuracy) / 2 } ?? accuracy }
            modes[mode.rawValue] = record
            self.run = nil
            modes[mode.rawValue].silentUntil = nil
            plan()
        } else if modes[mode.rawValue].silentUntil != nil {
            modes[mode.rawValue].silentUntil = nil
            plan()
        }
    }

    /// Looks at the run in progress and the silent marks at `now`: a run past its window marks its mode
    /// silent, and marks past ``silenceMemory`` lapse. Returns whether the plan changed.
    /// - Complexity: O(1) unless something changed (then O(modes²), 25 steps).
    @inline(__always)
    mutating func look(now: EngineInstant) -> Bool {
        var changed = false
        if let run, now >= run.silentAt {
            modes[run.mode.rawValue].silences += 1
            modes[run.mode.rawValue].silentUntil = now + Self.silenceMemory
            lastSilence = now
            self.run = nil
            changed = true
        }
        if let lapse = nextLapse, now >= lapse {
            for index in modes.indices where modes[index].silentUntil.map({ now >= $0 }) ?? false { modes[index].silentUntil = nil }
            changed = true
        }
        if changed { plan() }
        return changed
    }

    // MARK: The plan

    private mutating func begin(_ mode: PowerMode, now: EngineInstant, acquiredBy: EngineInstant, atLeast: Duration? = nil) {
        guard judges, let expected = expectedFirstFix(in: mode) else {
            run = nil
            return
        }
        modes[mode.rawValue].runs += 1
        // Judged against the longer of what it declared and what it delivered: a quick answer from a receiver
        // that was already tracking does not make the next wait look like silence.
        let window = max(Self.minimumWindow, max(expected, prior[mode.rawValue] ?? expected) * 2, atLeast ?? .zero)
        run = Run(mode: mode, since: now, acquiredBy: acquiredBy, silentAt: max(now, acquiredBy) + window)
    }

    /// Recomputes the modes to run for each demanded mode and the next lapse.
    private mutating func plan() {
        let all = PowerMode.allCases
        let finestAudible = all.last { !isSilent($0) } ?? .best
        for demanded in all {
            let serve = isSilent(demanded) ? max(demanded, finestAudible) : demanded
            serving[demanded.rawValue] = serve
            // The quickest not known silent at or above what is served, then the cheapest within the slack.
            let candidates = all.filter { $0 >= serve && ($0 == serve || !isSilent($0)) }
            let times = candidates.map { expectedFirstFix(in: $0) }
            guard let quickest = times.compactMap({ $0 }).min() else {
                quick[demanded.rawValue] = serve
                continue
            }
            let bound = max(quickest + Self.quickSlack, Self.fastEnough)
            let index = times.firstIndex { $0.map { $0 <= bound } ?? false }!
            quick[demanded.rawValue] = candidates[index]
        }
        nextLapse = modes.compactMap(\.silentUntil).min()
    }

    /// The figures of the modes the source was run in or declared, for ``SchedulerStatistics/delivery``.
    var figures: [PowerMode: SchedulerStatistics.ModeDelivery] {
        guard judges else { return [:] }
        var figures: [PowerMode: SchedulerStatistics.ModeDelivery] = [:]
        for mode in PowerMode.allCases {
            let record = modes[mode.rawValue]
            figures[mode] = SchedulerStatistics.ModeDelivery(
                runs: record.runs, answered: record.answered, silences: record.silences, firstFixTime: record.firstFix,
                accuracy: record.accuracy, isSilent: record.silentUntil != nil)
        }
        return figures
    }
}

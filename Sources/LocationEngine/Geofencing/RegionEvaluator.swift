import DequeModule
import HeapModule

/// Decides the state of every monitored region from fixes and the passing of time: the pure core of
/// geofencing, with no clock, no I/O and no `await` (`now` is an argument, as in ``SchedulerStateMachine``).
///
/// Feed it fixes (``receiveFix(_:observedAt:now:)``) and call ``advanceTime(now:)`` at ``nextDeadline``; take the
/// transitions it decided with ``nextEvent()``. The rules are in <doc:Geofences>:
///
/// - A fix decides a region only when its confidence circle lies inside (or outside) by the hysteresis
///   margin (``GeofenceConfiguration``); otherwise the region keeps its state.
/// - The first decision is ``GeofenceTransition/determined(_:)``; later ones are ``GeofenceTransition/entered``
///   and ``GeofenceTransition/exited``. Two consecutive confidently-outside fixes whose straight segment
///   passes through the region give `entered` then `exited` — across a sleep the monitors planned, only
///   when every way the device can have taken at the maximum speed passes through it.
/// - ``GeofenceTransition/dwelled`` comes at exactly the loitering delay after the region became inside.
/// - With no confident fix for ``GeofenceConfiguration/unknownAfter`` a region becomes unknown.
///
/// Complexity: a fix costs O(levels · cells + k) for the k regions near it, inside, unknown or undecided
/// (a hierarchy of latitude/longitude grids), plus O(n) for each polygon of n vertices among them; the first fix after
/// regions are added decides each of them once.
public struct RegionEvaluator: Sendable {
    /// A deadline: a dwell or an unknown timeout of the region in `slot`; stale when the region no longer
    /// holds `token` (tokens are never reused). Ordered by instant, then by when it was scheduled.
    struct Deadline: Comparable, Sendable {
        var at: EngineInstant
        var token: UInt64
        var slot: Int32
        var isDwell: Bool

        static func < (a: Deadline, b: Deadline) -> Bool { (a.at, a.token) < (b.at, b.token) }
        static func == (a: Deadline, b: Deadline) -> Bool { a.token == b.token }
    }

    /// One monitored region.
    struct Record: Sendable {
        var id: RequestID
        var region: GeofenceRegion
        var loiteringDelay: Duration?
        var responsiveness: Duration
        var state = GeofenceState.unknown
        /// The token of its pending dwell deadline (0: none).
        var dwellToken: UInt64 = 0
        /// The token of its pending unknown timeout (0: none); set while fixes leave it undecided.
        var unknownToken: UInt64 = 0
        /// When its pending unknown timeout falls (meaningful while ``unknownToken`` is set): a hold planned
        /// since moves it later (``holdStates(until:)``).
        var unknownAt = EngineInstant.zero
        /// Whether it reported ``GeofenceTransition/dwelled`` for its stay inside: an unknown stretch does not
        /// end the stay (no exit was seen), so a fix finding it inside again does not dwell it twice.
        var dwelled = false
    }

    /// The last search for the nearest boundary: where from, what it found (`nil`: nothing within
    /// `limit`), and the regions it searched (``regionsVersion``), to seed the next search.
    struct NearestBoundary: Sendable {
        var position: GeoPoint
        var distance: Double?
        var limit: Double
        var regionsVersion: UInt64
    }

    /// The rules.
    public let configuration: GeofenceConfiguration
    /// How far apart fixes are held by design, beyond any source's doing: under reduced accuracy, the engine's
    /// throttle (one coarse fix per ``ReducedAccuracyPolicy/minimumInterval``). Unknown timeouts run this much
    /// longer, so that a region the throttled fixes keep deciding does not go unknown and come back every cycle
    /// (losing its dwell each time).
    var heldFixGap: Duration = .zero

    /// The unknown timeout in force: ``GeofenceConfiguration/unknownAfter`` and ``heldFixGap``.
    var unknownAfter: Duration? { configuration.unknownAfter.map { $0 + heldFixGap } }
    /// The unknown timeout in force when the last fix was taken, which the timeout of every region runs by until
    /// the next: a change of ``heldFixGap`` meanwhile (accuracy full again) moves no deadline already planned,
    /// and never one back into the past.
    var unknownAfterAtLastFix: Duration?
    var records: [Record?] = []
    var freeSlots: [Int32] = []
    var slots: [RequestID: Int32] = [:]
    var grid = RegionGrid()
    /// Regions that are inside, unknown, or left undecided by the last fix while known: every fix looks
    /// at them whether or not they are near it.
    var insideSlots: Set<Int32> = []
    var unknownSlots: Set<Int32> = []
    var undecidedSlots: Set<Int32> = []
    /// Regions restored with a known state that no fix has decided since (``GeofenceRestoredState``):
    /// the first decision that changes one is marked ``GeofenceEvent/againstRestoredState``.
    var restoredSlots: Set<Int32> = []
    var deadlines = Heap<Deadline>()
    /// When the deadlines outnumber this, the stale ones go (``compactDeadlines()``).
    var compactDeadlinesAt = RegionEvaluator.fewestDeadlinesCompacted
    var nextToken: UInt64 = 1
    /// The latest fixes, oldest first (``recentFixLimit``): the last for crossings and the unknown
    /// timeout, all of them for estimating when a boundary was crossed.
    var recentFixes = Deque<RecentFix>(minimumCapacity: RegionEvaluator.recentFixLimit)
    /// The last fix taken.
    var lastFix: RecentFix? { recentFixes.last }
    /// The instant the last accepted fix was taken (its stamp can be later: ``lastFix``): a fix taken before
    /// it decides nothing.
    var lastFixTaken: EngineInstant?
    /// The latest instant a deadline reported at (a dwell, an unknown timeout): no fix's decision is stamped
    /// before it.
    var deadlinesReportedUntil = EngineInstant.zero
    /// Whether the global unknown timeout (no fix at all) is pending.
    var globalTimeoutPending = false
    /// Until when the states the last fix left are certain, if that is later than the fix
    /// (`holdStates(until:)`); forgotten at the next fix.
    var statesHeldUntil: EngineInstant?
    /// Transitions decided and not yet taken.
    var events: [GeofenceEvent] = []
    var eventsTaken = 0
    /// A reused buffer of slots to evaluate.
    var scratch: [Int32] = []
    /// By slot: the fix that last took the region up (so that each is evaluated once per fix, without
    /// clearing a set as large as the most regions ever evaluated at once).
    var marks: [UInt32] = []
    var mark: UInt32 = 0
    /// Counts additions and removals of regions: a seed for the nearest-boundary search is only good for
    /// the regions it searched.
    var regionsVersion: UInt64 = 0
    var lastNearest: NearestBoundary?
    /// The regions' latency budgets (``GeofenceOptions/responsiveness``), the smallest of which the power
    /// planner keeps.
    var responsiveness = ResponsivenessBudgets()

    /// Creates an evaluator with no regions. The configuration must be valid (``GeofenceConfiguration/validate()``).
    public init(configuration: GeofenceConfiguration = GeofenceConfiguration()) throws(GeofenceError) {
        try configuration.validate()
        self.configuration = configuration
    }

    /// How many regions are monitored.
    public var count: Int { slots.count }
    /// Whether some region's state is in doubt: unknown, or left undecided by the last fix.
    /// - Complexity: O(1)
    var hasRegionInDoubt: Bool { !unknownSlots.isEmpty || !undecidedSlots.isEmpty }

    /// Whether `id` is monitored.
    public func contains(_ id: RequestID) -> Bool { slots[id] != nil }

    /// The state of region `id`, or `nil` if it is not monitored.
    public func state(of id: RequestID) -> GeofenceState? {
        slots[id].map { records[Int($0)]!.state }
    }

    /// When ``advanceTime(now:)`` must be called next (a dwell or an unknown timeout), or `nil`.
    /// Never the deadline of a removed region or of a dwell that no longer applies.
    /// - Complexity: O(1)
    @inline(__always)
    public var nextDeadline: EngineInstant? {
        earliest(deadlines.min?.at, globalUnknownDeadline)
    }

    /// When every known region becomes unknown if no fix comes before, or `nil`.
    @inline(__always)
    var globalUnknownDeadline: EngineInstant? {
        guard globalTimeoutPending, let lastFix, let unknownAfter = unknownAfterAtLastFix else { return nil }
        return max(lastFix.at, statesHeldUntil ?? lastFix.at) + unknownAfter
    }

    /// Starts monitoring `region` as `id`, in state ``GeofenceState/unknown`` — or in the state
    /// `options` restores (``GeofenceOptions/restoredState``): the next fix decides it. Added at `now`, a
    /// restored inside or outside has its unknown timeout (``GeofenceConfiguration/unknownAfter``) run from
    /// then, as a region no fix confirmed: without a confident fix by then it becomes unknown, even if no fix
    /// ever comes. (Without `now`, it waits for a fix, however long.)
    /// - Precondition: `id` is not monitored.
    /// - Complexity: O(1) amortised.
    public mutating func add(_ id: RequestID, region: GeofenceRegion, options: GeofenceOptions = GeofenceOptions(), at now: EngineInstant? = nil) {
        precondition(slots[id] == nil, "RegionEvaluator: region \(id) is added twice")
        let record = Record(id: id, region: region, loiteringDelay: options.loiteringDelay, responsiveness: options.responsiveness)
        responsiveness.add(options.responsiveness)
        let slot: Int32
        if let free = freeSlots.popLast() {
            slot = free
            records[Int(slot)] = record
        } else {
            slot = Int32(records.count)
            records.append(record)
            marks.append(0)
        }
        slots[id] = slot
        regionsVersion &+= 1
        grid.insert(slot, bounds: region.bounds)
        guard let restored = options.restoredState, restored.state != .unknown else {
            unknownSlots.insert(slot)
            // Unknown after a stay that dwelled: found inside, it is the same stay.
            if let restored = options.restoredState, restored.dwelled { records[Int(slot)]!.dwelled = true }
            return
        }
        var restoredNow = restored
        // A stay that began after now (a wall clock set back between the runs that stored and restored it) began now:
        // its dwell is not put off by the clock's error.
        if let now, restored.since > now { restoredNow.since = now }
        restore(slot, restoredNow)
        // In doubt until a fix decides it, whether or not it ever becomes unknown.
        if let now {
            undecidedSlots.insert(slot)
            if let unknownAfter { scheduleUnknown(slot, at: now + unknownAfter) }
        }
    }

    /// Region `slot`, just added, takes up the state an earlier monitor left it in.
    private mutating func restore(_ slot: Int32, _ restored: GeofenceRestoredState) {
        let index = Int(slot)
        records[index]!.state = restored.state
        restoredSlots.insert(slot)
        guard restored.state == .inside else { return }
        insideSlots.insert(slot)
        records[index]!.dwelled = restored.dwelled
        if !restored.dwelled, let delay = records[index]!.loiteringDelay {
            records[index]!.dwellToken = schedule(slot, at: restored.since + delay, isDwell: true)
        }
    }

    /// Stops monitoring `id` (nothing is reported). Returns whether it was monitored.
    /// - Complexity: O(c) for the c regions sharing its grid cells; its deadlines are dropped lazily.
    @discardableResult
    public mutating func remove(_ id: RequestID) -> Bool {
        guard let slot = slots.removeValue(forKey: id) else { return false }
        regionsVersion &+= 1
        grid.remove(slot)
        insideSlots.remove(slot)
        unknownSlots.remove(slot)
        undecidedSlots.remove(slot)
        restoredSlots.remove(slot)
        responsiveness.remove(records[Int(slot)]!.responsiveness)
        records[Int(slot)] = nil
        freeSlots.append(slot)
        if unknownSlots.count == slots.count { globalTimeoutPending = false }
        if slots.isEmpty {
            // No fix reaches an evaluator without regions: the ones it took are from before the next region,
            // which must not count its unknown timeout, a crossing or a crossing's estimate from them.
            recentFixes.removeAll(keepingCapacity: true)
            statesHeldUntil = nil
        }
        dropStaleDeadlines()
        return true
    }

    /// The next transition decided and not yet taken, in the order they were decided.
    public mutating func nextEvent() -> GeofenceEvent? {
        guard eventsTaken < events.count else {
            if !events.isEmpty { events.removeAll(keepingCapacity: true) }
            eventsTaken = 0
            return nil
        }
        defer { eventsTaken += 1 }
        return events[eventsTaken]
    }

    // MARK: Helpers

    mutating func emit(
        _ slot: Int32, _ transition: GeofenceTransition, at: EngineInstant, crossedAt: EngineInstant? = nil, againstRestoredState: Bool = false
    ) {
        events.append(GeofenceEvent(
            id: records[Int(slot)]!.id, transition: transition, at: at, estimatedCrossing: crossedAt, againstRestoredState: againstRestoredState))
    }

    /// Whether region `slot` was restored and no fix decided it since; it is no longer after this.
    /// - Complexity: O(1)
    @inline(__always)
    mutating func takeRestored(_ slot: Int32) -> Bool {
        !restoredSlots.isEmpty && restoredSlots.remove(slot) != nil
    }

    /// Schedules a deadline for `slot` and returns its token.
    mutating func schedule(_ slot: Int32, at: EngineInstant, isDwell: Bool) -> UInt64 {
        // Before the insertion: the caller stores the new token only once this returns, so the new deadline
        // would not yet look live.
        if deadlines.count >= compactDeadlinesAt { compactDeadlines() }
        let token = nextToken
        nextToken += 1
        deadlines.insert(Deadline(at: at, token: token, slot: slot, isDwell: isDwell))
        return token
    }

    /// Schedules the unknown timeout of `slot` at `at`, in place of any it had.
    mutating func scheduleUnknown(_ slot: Int32, at: EngineInstant) {
        records[Int(slot)]!.unknownToken = schedule(slot, at: at, isDwell: false)
        records[Int(slot)]!.unknownAt = at
    }

    /// Drops every deadline that no longer applies. A stale one is otherwise dropped only when it reaches the
    /// top: one entry per stay in a region whose loitering delay is a week, or never for a delay beyond any
    /// instant, would pile up.
    /// - Complexity: O(d) for d deadlines, run when they have doubled since the last run: amortised O(1).
    private mutating func compactDeadlines() {
        let live = deadlines.unordered.filter(isLive)
        deadlines = Heap(live)
        compactDeadlinesAt = max(Self.fewestDeadlinesCompacted, 2 * live.count)
    }

    /// Below this many deadlines the stale ones are left for the top to drop.
    static let fewestDeadlinesCompacted = 128

    /// Whether `deadline` still applies to its region.
    func isLive(_ deadline: Deadline) -> Bool {
        guard let record = records[Int(deadline.slot)] else { return false }
        return deadline.isDwell ? record.dwellToken == deadline.token : record.unknownToken == deadline.token
    }

    /// Pops deadlines that no longer apply off the top, so ``nextDeadline`` is a live one.
    /// - Complexity: O(log d) per stale deadline dropped.
    mutating func dropStaleDeadlines() {
        while let top = deadlines.min, !isLive(top) { deadlines.removeMin() }
    }
}

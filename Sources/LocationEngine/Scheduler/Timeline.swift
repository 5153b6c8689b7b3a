import DequeModule
import HeapModule

/// Every wake-up of the core, earliest first, in one structure the parts share: the requests'
/// timeouts and durations, and an alarm for each of the other parts — authorization's next scheduled
/// change, the regions' next dwell or unknown timeout, the power planner's next step. The core's next
/// wake-up is its earliest entry, and the passing of time takes entries in instant order across the
/// parts, so what fell due first happens first whichever part it belongs to. Equal deadlines come out
/// in request-ID order (swift-nio's timer queue breaks ties with a sequence number; our IDs already
/// increase), requests before the parts' alarms, and the alarms in ``Part`` order.
///
/// Requests that share a timeout duration arrive in deadline order, so each distinct duration gets a
/// *lane*: a FIFO `Deque` of its entries, of which only the head sits in a binary heap. Inserting,
/// expiring or dropping an entry costs O(1) in its lane plus O(log L) heap work over L lanes, instead
/// of O(log n) over every pending request, and expiries read lanes front to back instead of jumping
/// across a heap of millions (the idea of libevent's "common timeouts"). An entry that would break its
/// lane's order (callers on several threads stamp their requests, so one can arrive slightly out of
/// order) goes into the heap on its own, as does every entry once ``maximumLanes`` durations have lanes.
///
/// A part's alarm is the same idea one level up: each part keeps its own deadlines in the order it
/// needs (authorization's changes with what they change, the region evaluator's dwells and timeouts),
/// and only its earliest one sits in the heap, as a lane's head does. The part sets it again
/// (``setAlarm(_:at:)``) when its earliest deadline changes; the entry of the instant it replaced stays
/// behind, stale, and is dropped when it reaches the head.
///
/// Deletion is lazy: a request that ends before its deadline leaves its entry behind. Nobody counts
/// those entries: every live request entry belongs to a pending request and a request has at most one,
/// so a queue holding more than twice as many entries as there are pending requests and parts is mostly
/// abandoned (``needsCompaction(pending:)``). The owner drops abandoned entries from the head after
/// each change (so the earliest deadline is always live), and rebuilds the queue when idle once they
/// dominate, so memory stays proportional to pending requests.
///
/// Hand-written because no swift-collections type keeps many sorted runs behind one heap; it only
/// arranges `Deque`s and a `Heap`.
struct Timeline: Sendable {
    /// A part of the core with an alarm on the timeline, in the order equal instants fire.
    enum Part: Int, CaseIterable, Sendable {
        /// The next scheduled authorization change.
        case authorization
        /// The regions' next dwell or unknown timeout.
        case regions
        /// The power planner's next step: a linger's end, a step down, the monitors' wake-up, a fallback.
        case power
    }

    /// What fell due.
    enum Due: Equatable, Sendable {
        /// A request's timeout or duration.
        case request(RequestID)
        /// A part's alarm, set for `at`.
        case alarm(Part, at: EngineInstant)
    }

    /// One deadline: 16 bytes. `id` is a request's ID, or for a part's alarm ``alarmBit`` with the
    /// part in the next 8 bits and the alarm's generation below them.
    struct Entry: Comparable, Sendable {
        var deadline: Int64
        var id: UInt64

        var isAlarm: Bool { id & Timeline.alarmBit != 0 }

        static func < (lhs: Entry, rhs: Entry) -> Bool {
            (lhs.deadline, lhs.id) < (rhs.deadline, rhs.id)
        }
    }

    /// A heap element: the head of a lane, or an entry on its own (`lane` −1).
    struct Head: Comparable, Sendable {
        var entry: Entry
        var lane: Int32

        static func < (lhs: Head, rhs: Head) -> Bool { lhs.entry < rhs.entry }
        static func == (lhs: Head, rhs: Head) -> Bool { lhs.entry == rhs.entry }
    }

    /// How many distinct timeout durations get a lane; later ones share the heap.
    static var maximumLanes: Int { 1024 }

    /// Set in an entry's `id` for a part's alarm (request IDs stay below it).
    static var alarmBit: UInt64 { 1 << 63 }
    /// Where an alarm's part sits in its `id`; the generation fills the bits below.
    private static var partShift: UInt64 { 55 }
    private static var generationMask: UInt64 { (1 << partShift) - 1 }

    private var heap = Heap<Head>()
    /// Each part's alarm, by ``Part`` raw value: its instant and generation, while it is set.
    private var alarms: [(deadline: Int64, generation: UInt64)?] = Array(repeating: nil, count: Part.allCases.count)
    private var alarmGeneration: UInt64 = 0
    private var lanes: [Deque<Entry>] = []
    /// The lane of each timeout, by its whole nanoseconds (a `Duration` compares through the standard
    /// library's out-of-line code).
    private var laneOfTimeout = TimeoutLanes()
    /// The last timeout looked up and its lane: most callers use one timeout for most requests.
    private var lastTimeout: (nanoseconds: Int64, lane: Int32)?
    /// The number of entries, live or abandoned.
    private(set) var count = 0

    /// The earliest deadline in the queue (possibly of an abandoned request entry; never of a stale
    /// alarm once ``dropStaleAlarms()`` ran).
    /// - Complexity: O(1)
    var earliest: EngineInstant? { heap.min.map { EngineInstant(nanoseconds: $0.entry.deadline) } }

    /// Adds the deadline of request `id`, `timeout` after `start`.
    /// - Complexity: amortised O(1) when it extends a lane, O(log n) otherwise.
    mutating func insert(_ id: RequestID, timeout: Duration, from start: EngineInstant) {
        assert(id.rawValue < Self.alarmBit, "Timeline: request ID \(id) collides with the alarms")
        let nanoseconds = timeout.saturatingNanoseconds
        let (deadline, overflow) = start.nanoseconds.addingReportingOverflow(nanoseconds)
        let entry = Entry(deadline: overflow ? (nanoseconds > 0 ? .max : .min) : deadline, id: id.rawValue)
        count += 1
        if let lane = lane(for: nanoseconds) {
            let index = Int(lane)
            let length = lanes[index].count
            if length == 0 {
                lanes[index].append(entry)
                heap.insert(Head(entry: entry, lane: lane))
                return
            }
            if lanes[index][length - 1] < entry {
                lanes[index].append(entry)
                return
            }
        }
        heap.insert(Head(entry: entry, lane: -1))
    }

    /// The lane of `timeout`, made on first use while fewer than ``maximumLanes`` exist.
    private mutating func lane(for timeout: Int64) -> Int32? {
        if let last = lastTimeout, last.nanoseconds == timeout { return last.lane }
        let lane: Int32
        if let known = laneOfTimeout.lane(of: timeout) {
            lane = known
        } else {
            guard lanes.count < Self.maximumLanes else { return nil }
            lane = Int32(lanes.count)
            lanes.append(Deque())
            laneOfTimeout.insert(timeout, lane: lane)
        }
        lastTimeout = (timeout, lane)
        return lane
    }

    /// Removes the earliest entry. The queue must not be empty.
    /// - Complexity: O(log L) for L lanes when it is a lane's head, O(log n) otherwise.
    private mutating func removeEarliest() -> Entry {
        let head = heap.min!
        count -= 1
        guard head.lane >= 0 else {
            heap.removeMin()
            return head.entry
        }
        let index = Int(head.lane)
        lanes[index].removeFirst()
        if lanes[index].isEmpty {
            heap.removeMin()
        } else {
            _ = heap.replaceMin(with: Head(entry: lanes[index][0], lane: head.lane))
        }
        return head.entry
    }

    /// Sets `part`'s alarm for `instant`, or clears it (`nil`). Setting the instant it holds changes
    /// nothing; another instant leaves the entry of the old one stale (dropped at once if it was the
    /// earliest, so ``earliest`` stays live).
    /// - Complexity: O(1) when unchanged, O(log n) otherwise.
    @inline(__always)
    mutating func setAlarm(_ part: Part, at instant: EngineInstant?) {
        if alarms[part.rawValue]?.deadline == instant?.nanoseconds { return }
        changeAlarm(part, at: instant)
    }

    private mutating func changeAlarm(_ part: Part, at instant: EngineInstant?) {
        defer { dropStaleAlarms() }
        guard let instant else {
            alarms[part.rawValue] = nil
            return
        }
        alarmGeneration &+= 1
        let generation = alarmGeneration & Self.generationMask
        alarms[part.rawValue] = (instant.nanoseconds, generation)
        count += 1
        let id = Self.alarmBit | UInt64(part.rawValue) << Self.partShift | generation
        heap.insert(Head(entry: Entry(deadline: instant.nanoseconds, id: id), lane: -1))
    }

    /// The instant `part`'s alarm is set for, if it is.
    /// - Complexity: O(1)
    func alarm(_ part: Part) -> EngineInstant? { alarms[part.rawValue].map { EngineInstant(nanoseconds: $0.deadline) } }

    /// The part of an alarm entry, if the alarm still holds it (else the entry is stale). Generations are
    /// never reused, so the generation alone tells.
    private func liveAlarm(_ entry: Entry) -> Part? {
        guard let part = Part(rawValue: Int((entry.id & ~Self.alarmBit) >> Self.partShift)),
            alarms[part.rawValue]?.generation == entry.id & Self.generationMask
        else { return nil }
        return part
    }

    /// Drops stale alarm entries from the head.
    /// - Complexity: O(s log n) for s stale entries at the head.
    @inline(__always)
    mutating func dropStaleAlarms() {
        while let first = heap.min, first.entry.isAlarm, liveAlarm(first.entry) == nil { _ = removeEarliest() }
    }

    /// Removes and returns the earliest entry if it is due at `now`: a request's, or a part's alarm
    /// (cleared as it is taken). Stale alarms on the way are dropped.
    /// - Complexity: as ``removeEarliest()``.
    mutating func popDue(at now: EngineInstant) -> Due? {
        dropStaleAlarms()
        guard let first = heap.min, first.entry.deadline <= now.nanoseconds else { return nil }
        let entry = removeEarliest()
        guard entry.isAlarm else { return .request(RequestID(rawValue: entry.id)) }
        let part = liveAlarm(entry)!
        alarms[part.rawValue] = nil
        return .alarm(part, at: EngineInstant(nanoseconds: entry.deadline))
    }

    /// Removes and returns the earliest request entry if it is due at `now` and no alarm comes before it.
    /// - Complexity: as ``removeEarliest()``.
    @inline(__always)
    mutating func popDueRequest(at now: EngineInstant) -> RequestID? {
        dropStaleAlarms()
        guard let first = heap.min, !first.entry.isAlarm, first.entry.deadline <= now.nanoseconds else { return nil }
        return RequestID(rawValue: removeEarliest().id)
    }

    /// Whether abandoned entries are the majority (and numerous), so a rebuild pays, when at most
    /// `pending` requests can own an entry.
    /// - Complexity: O(1)
    func needsCompaction(pending: Int) -> Bool { abandonedAtLeast(pending: pending) > 1024 && count > 2 * (pending + liveAlarms) }

    /// How many entries are abandoned at least, when at most `pending` requests can own an entry.
    /// - Complexity: O(1)
    func abandonedAtLeast(pending: Int) -> Int { max(0, count - pending - liveAlarms) }

    /// How many parts' alarms are set (each has one live entry).
    private var liveAlarms: Int { alarms.count { $0 != nil } }

    /// The request whose deadline is earliest, live or abandoned, unless an alarm comes first.
    /// - Complexity: O(1)
    @inline(__always)
    var earliestID: RequestID? {
        guard let first = heap.min, !first.entry.isAlarm else { return nil }
        return RequestID(rawValue: first.entry.id)
    }

    /// Drops the earliest entry (one whose request has ended, as ``earliestID`` showed).
    /// - Complexity: O(log L)
    mutating func dropEarliest() { _ = removeEarliest() }

    /// Drops entries of ended requests from the head, so ``earliest`` is a live deadline.
    /// - Complexity: O(a log L) for a abandoned entries at the head of lanes.
    mutating func dropAbandonedHead(isLive: (RequestID) -> Bool) {
        while let first = heap.min {
            if first.entry.isAlarm {
                guard liveAlarm(first.entry) == nil else { return }
            } else if isLive(RequestID(rawValue: first.entry.id)) {
                return
            }
            _ = removeEarliest()
        }
    }

    /// Rebuilds the queue without abandoned entries and stale alarms (and without lanes left empty).
    /// - Complexity: O(n)
    mutating func compact(isLive: (RequestID) -> Bool) {
        var heads = heap.unordered.filter {
            $0.lane < 0 && ($0.entry.isAlarm ? liveAlarm($0.entry) != nil : isLive(RequestID(rawValue: $0.entry.id)))
        }
        var kept: [Deque<Entry>] = []
        var keptOfTimeout = TimeoutLanes()
        for (timeout, lane) in laneOfTimeout.all {
            var entries = replace(&lanes[Int(lane)], with: Deque())
            entries.removeAll { !isLive(RequestID(rawValue: $0.id)) }
            guard !entries.isEmpty else { continue }
            let newLane = Int32(kept.count)
            heads.append(Head(entry: entries[0], lane: newLane))
            kept.append(entries)
            keptOfTimeout.insert(timeout, lane: newLane)
        }
        lanes = kept
        laneOfTimeout = keptOfTimeout
        lastTimeout = nil
        count = heads.count(where: { $0.lane < 0 }) + kept.reduce(0) { $0 + $1.count }
        heap = Heap(heads)
    }
}

import DequeModule
import HeapModule

/// The pending requests' deadlines — one-shots' timeouts, subscriptions' and monitors' durations —
/// earliest first. Equal deadlines come out in request-ID order (swift-nio's timer queue breaks ties
/// with a sequence number; our IDs already increase).
///
/// Requests that share a timeout duration arrive in deadline order, so each distinct duration gets a
/// *lane*: a FIFO `Deque` of its entries, of which only the head sits in a binary heap. Inserting,
/// expiring or dropping an entry costs O(1) in its lane plus O(log L) heap work over L lanes, instead
/// of O(log n) over every pending request, and expiries read lanes front to back instead of jumping
/// across a heap of millions (the idea of libevent's "common timeouts"). An entry that would break its
/// lane's order (callers on several threads stamp their requests, so one can arrive slightly out of
/// order) goes into the heap on its own, as does every entry once ``maximumLanes`` durations have lanes.
///
/// Deletion is lazy: a request that ends before its deadline leaves its entry behind. Nobody counts
/// those entries: every live entry belongs to a pending request and a request has at most one, so a
/// queue holding more than twice as many entries as there are pending requests is mostly abandoned
/// (``needsCompaction(pending:)``). The owner drops abandoned entries from the head after each change
/// (so the earliest deadline is always live), and rebuilds the queue when idle once they dominate, so
/// memory stays proportional to pending requests.
///
/// Hand-written because no swift-collections type keeps many sorted runs behind one heap; it only
/// arranges `Deque`s and a `Heap`.
struct Deadlines: Sendable {
    /// One deadline: 16 bytes, a request's ID beside its instant.
    struct Entry: Comparable, Sendable {
        var deadline: Int64
        var id: UInt64

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

    private var heap = Heap<Head>()
    private var lanes: [Deque<Entry>] = []
    /// The lane of each timeout, by its whole nanoseconds (a `Duration` compares through the standard
    /// library's out-of-line code).
    private var laneOfTimeout = TimeoutLanes()
    /// The last timeout looked up and its lane: most callers use one timeout for most requests.
    private var lastTimeout: (nanoseconds: Int64, lane: Int32)?
    /// The number of entries, live or abandoned.
    private(set) var count = 0

    /// The earliest deadline in the queue (possibly of an abandoned request's entry).
    /// - Complexity: O(1)
    var earliest: EngineInstant? { heap.min.map { EngineInstant(nanoseconds: $0.entry.deadline) } }

    /// Adds the deadline of request `id`, `timeout` after `start`.
    /// - Complexity: amortised O(1) when it extends a lane, O(log n) otherwise.
    mutating func insert(_ id: RequestID, timeout: Duration, from start: EngineInstant) {
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

    /// Removes and returns the earliest request whose deadline is due at `now`.
    /// - Complexity: as ``removeEarliest()``.
    @inline(__always)
    mutating func popDue(at now: EngineInstant) -> RequestID? {
        guard let first = heap.min, first.entry.deadline <= now.nanoseconds else { return nil }
        return RequestID(rawValue: removeEarliest().id)
    }

    /// Whether abandoned entries are the majority (and numerous), so a rebuild pays, when at most
    /// `pending` requests can own an entry.
    /// - Complexity: O(1)
    func needsCompaction(pending: Int) -> Bool { abandonedAtLeast(pending: pending) > 1024 && count > 2 * pending }

    /// How many entries are abandoned at least, when at most `pending` requests can own an entry.
    /// - Complexity: O(1)
    func abandonedAtLeast(pending: Int) -> Int { max(0, count - pending) }

    /// The request whose deadline is earliest, live or abandoned.
    /// - Complexity: O(1)
    @inline(__always)
    var earliestID: RequestID? { heap.min.map { RequestID(rawValue: $0.entry.id) } }

    /// Drops the earliest entry (one whose request has ended, as ``earliestID`` showed).
    /// - Complexity: O(log L)
    mutating func dropEarliest() { _ = removeEarliest() }

    /// Rebuilds the queue without abandoned entries (and without lanes left empty).
    /// - Complexity: O(n)
    mutating func compact(isLive: (RequestID) -> Bool) {
        var heads = heap.unordered.filter { $0.lane < 0 && isLive(RequestID(rawValue: $0.entry.id)) }
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

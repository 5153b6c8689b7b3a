import HeapModule

/// Every request's deadline in one binary min-heap ordered by (deadline, request ID), so that equal
/// deadlines expire in submission order (swift-nio's timer queue does the same with a sequence number;
/// our IDs are already increasing).
///
/// Deletion is lazy: a request that ends before its deadline leaves its entry behind and the owner
/// reports it with ``noteAbandoned()``; the owner drops them from the head after each change (so the
/// earliest deadline is always live), and rebuilds the heap when idle once abandoned entries outnumber
/// live ones, so memory stays proportional to live requests.
struct DeadlineQueue: Sendable {
    /// One deadline: 16 bytes.
    struct Entry: Comparable, Sendable {
        var deadline: Int64
        var id: UInt64

        static func < (lhs: Entry, rhs: Entry) -> Bool {
            (lhs.deadline, lhs.id) < (rhs.deadline, rhs.id)
        }
    }

    private var heap = Heap<Entry>()
    /// Entries whose request already ended.
    private(set) var abandoned = 0

    /// The number of entries, live or abandoned.
    var count: Int { heap.count }

    /// The earliest deadline in the queue (possibly of an abandoned entry).
    /// - Complexity: O(1)
    var earliest: EngineInstant? { heap.min.map { EngineInstant(nanoseconds: $0.deadline) } }

    /// Adds a deadline.
    /// - Complexity: O(log n)
    mutating func insert(_ id: RequestID, deadline: EngineInstant) {
        heap.insert(Entry(deadline: deadline.nanoseconds, id: id.rawValue))
    }

    /// Removes and returns the earliest entry if it is due at `now`.
    /// - Complexity: O(log n)
    mutating func popDue(at now: EngineInstant) -> RequestID? {
        guard let first = heap.min, first.deadline <= now.nanoseconds else { return nil }
        heap.removeMin()
        return RequestID(rawValue: first.id)
    }

    /// Records that a request with an entry here ended by other means.
    /// - Complexity: O(1)
    mutating func noteAbandoned() { abandoned += 1 }

    /// Records that a popped entry belonged to an ended request.
    /// - Complexity: O(1)
    mutating func noteAbandonedEntryRemoved() { abandoned -= 1 }

    /// Whether abandoned entries are the majority (and numerous), so a rebuild pays.
    var needsCompaction: Bool { abandoned > 1024 && abandoned * 2 > heap.count }

    /// Drops entries of ended requests from the head, so ``earliest`` is a live deadline.
    /// - Complexity: O(a log n) for a abandoned entries at the head.
    mutating func dropAbandonedHead(isLive: (RequestID) -> Bool) {
        while abandoned > 0, let first = heap.min, !isLive(RequestID(rawValue: first.id)) {
            heap.removeMin()
            abandoned -= 1
        }
    }

    /// Rebuilds the heap without abandoned entries.
    /// - Complexity: O(n)
    mutating func compact(isLive: (RequestID) -> Bool) {
        heap = Heap(heap.unordered.filter { isLive(RequestID(rawValue: $0.id)) })
        abandoned = 0
    }
}

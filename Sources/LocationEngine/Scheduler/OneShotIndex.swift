import DequeModule
import HeapModule

/// Pending one-shot requests indexed by the accuracy they need, so that a fix touches only the
/// requests it completes. The containers are swift-collections' `Deque` and
/// `Heap`; this type only adds the accuracy ordering and lazy-deletion bookkeeping.
///
/// Standard levels tighten metres *and* maximum age together, so the levels a fix satisfies are always
/// a prefix `city…achieved`: each level is a FIFO `Deque`, and a fix drains the buckets of that
/// prefix, which is O(completed). A fix that satisfies nothing is O(1). Custom accuracies live in a
/// max-heap on metres; a fix pops the entries it is accurate enough for and puts back the few that fail
/// their own maximum age (only possible with a stale fix).
///
/// Deletion is lazy and uncounted, as in ``Deadlines``: ended requests stay until they are reached
/// or until a compaction, which runs once the index holds more than twice as many entries as there are
/// pending one-shots (each has at most one entry, so most are then abandoned).
struct OneShotIndex: Sendable {
    /// A custom-accuracy entry, ordered by metres then by ID (older first among equals).
    struct CustomEntry: Comparable, Sendable {
        var metres: Double
        var id: UInt64
        static func < (lhs: CustomEntry, rhs: CustomEntry) -> Bool {
            lhs.metres != rhs.metres ? lhs.metres < rhs.metres : lhs.id > rhs.id
        }
    }

    private var buckets: [Deque<RequestID>] = Array(repeating: Deque(), count: AccuracyLevel.allCases.count)
    private var custom = Heap<CustomEntry>()

    /// The number of entries, live or abandoned.
    var count: Int { buckets.reduce(custom.count) { $0 + $1.count } }

    /// Adds a request waiting for `accuracy`.
    /// - Complexity: amortised O(1) for a standard level, O(log n) for a custom one.
    mutating func insert(_ id: RequestID, accuracy: LocationAccuracy) {
        if let level = accuracy.level {
            buckets[level.rawValue].append(id)
        } else {
            custom.insert(CustomEntry(metres: accuracy.horizontalAccuracy, id: id.rawValue))
        }
    }

    /// Removes and returns the whole FIFO bucket of a standard level.
    /// - Complexity: O(1)
    mutating func takeBucket(_ level: AccuracyLevel) -> Deque<RequestID> {
        guard !buckets[level.rawValue].isEmpty else { return Deque() }
        return replace(&buckets[level.rawValue], with: Deque())
    }

    /// Removes and returns the custom entry needing the least accuracy, if a fix of `metres` is accurate enough for it.
    /// - Complexity: O(log n)
    mutating func popCustom(accurateEnough metres: Double) -> CustomEntry? {
        guard hasCustom(accurateEnough: metres) else { return nil }
        return custom.removeMax()
    }

    /// Whether a custom entry needs no more accuracy than `metres`.
    /// - Complexity: O(1)
    func hasCustom(accurateEnough metres: Double) -> Bool {
        guard let top = custom.max else { return false }
        return top.metres >= metres
    }

    /// Puts back a custom entry that ``popCustom(accurateEnough:)`` returned.
    /// - Complexity: O(log n)
    mutating func reinsert(_ entry: CustomEntry) { custom.insert(entry) }

    /// Whether abandoned entries are the majority (and numerous), so a compaction pays, when at most
    /// `pending` one-shots can own an entry.
    /// - Complexity: O(levels)
    func needsCompaction(pending: Int) -> Bool { abandonedAtLeast(pending: pending) > 1024 && count > 2 * pending }

    /// How many entries are abandoned at least, when at most `pending` one-shots can own an entry.
    /// - Complexity: O(levels)
    func abandonedAtLeast(pending: Int) -> Int { max(0, count - pending) }

    /// Drops abandoned entries.
    /// - Complexity: O(n)
    mutating func compact(isLive: (RequestID) -> Bool) {
        for level in buckets.indices {
            buckets[level].removeAll(where: { !isLive($0) })
        }
        custom = Heap(custom.unordered.filter { isLive(RequestID(rawValue: $0.id)) })
    }
}

/// Replaces `value` with `newValue` and returns the old value without copying it.
@inline(__always)
func replace<T>(_ value: inout T, with newValue: T) -> T {
    let old = value
    value = newValue
    return old
}

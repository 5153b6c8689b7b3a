/// Pending requests by ID. IDs are handed out in increasing order, so most live IDs fall in a dense
/// window: a ``ChunkedWindow`` indexed by `id - base` finds them with no hashing and grows with no
/// rehashing and no copying (a million pending requests never pause the engine for a resize).
/// An ID that outlives the window (a long-lived request while millions of others come and go) is
/// moved to a `Dictionary` when the owner compacts (while idle), so the window settles back to about
/// twice the live entries. On the hot path entries move only past a hard bound of eight times the
/// live entries, a few per insertion, so that memory stays bounded when the owner is never idle and no
/// insertion pays for a bulk migration. Removals never migrate: while requests only end (a burst
/// draining), the window does not grow — it stays within the bound its largest live count allowed and
/// shrinks from both ends — and the drain is not slowed by moving entries that are about to end.
///
/// An entry is in the window or in the overflow, never both; the window's range can cover IDs the overflow
/// holds (a window that emptied starts again at the next ID), so a hole in the window is looked up there.
///
/// Hand-written because no swift-collections type maps dense, increasing integer keys to values at
/// array speed; it is a thin layer over ``ChunkedWindow`` and `Dictionary`.
struct RequestTable<Value> {
    private var base: UInt64 = 1
    private var window = ChunkedWindow<Value>()
    private var liveInWindow = 0
    private var overflow: [RequestID: Value] = [:]
    /// The highest ID ever put in the overflow (0: none).
    private var overflowCeiling: UInt64 = 0

    /// The number of live entries.
    var count: Int { liveInWindow + overflow.count }

    var isEmpty: Bool { count == 0 }

    /// The value for `id`, or `nil`.
    /// - Complexity: O(1)
    subscript(id: RequestID) -> Value? {
        get {
            let raw = id.rawValue
            if raw >= base, raw - base < UInt64(window.count), let value = window[Int(raw - base)] { return value }
            return overflow.isEmpty ? nil : overflow[id]
        }
        set {
            if let newValue { insert(newValue, for: id) } else { _ = removeValue(forKey: id) }
        }
    }

    /// Sets the value for `id` (new or existing).
    /// - Complexity: amortised O(1)
    mutating func insert(_ value: consuming Value, for id: RequestID) {
        let raw = id.rawValue
        // An entry lives in one place: one that moved to the overflow is updated there. A new ID is above every
        // one the overflow holds, so only a stored one is looked for (and without copying its value out).
        if raw <= overflowCeiling, overflow.index(forKey: id) != nil {
            overflow[id] = value
            return
        }
        // An empty window starts at the ID, whatever the overflow holds (an ID in the window's range that the
        // overflow holds is looked up there): a window kept at an old base would fill with holes up to each new
        // ID, and then hand every one to the overflow.
        if window.isEmpty { base = raw }
        guard raw >= base else {
            putInOverflow(value, for: id)
            return
        }
        let offset = raw - base
        if offset >= UInt64(window.count) {
            guard offset - UInt64(window.count) < 1 << 20 else {  // a far jump: not worth a window of holes
                putInOverflow(value, for: id)
                return
            }
            let wasEmpty = window.isEmpty
            if offset > UInt64(window.count) { window.appendHoles(Int(offset) - window.count) }
            window.append(value)
            liveInWindow += 1
            // Holes before the only entry (the base stayed while the overflow kept entries): the window starts at it.
            if wasEmpty { dropLeadingHoles() }
            // The window grew: past the hard bound, a few old live entries move to the overflow (each
            // insertion adds at most one live entry, so the window shrinks back under the bound). Asked first:
            // the migration looks at the front slot, which copies it.
            if isPastHardBound { migrateFront(while: { $0.isPastHardBound }, atMost: Self.migrationsPerInsertion) }
        } else {
            if window[Int(offset)] == nil { liveInWindow += 1 }
            window[Int(offset)] = value
        }
    }

    /// Removes and returns the value for `id`.
    /// - Complexity: amortised O(1)
    @discardableResult
    mutating func removeValue(forKey id: RequestID) -> Value? {
        let raw = id.rawValue
        guard raw >= base, raw - base < UInt64(window.count) else { return overflow.removeValue(forKey: id) }
        let index = Int(raw - base)
        guard let value = window.take(index) else { return overflow.isEmpty ? nil : overflow.removeValue(forKey: id) }
        liveInWindow -= 1
        // The window's ends are live (every change keeps them so): only a removal at an end opens holes there.
        // Reading a slot copies it, so the ends are looked at only then.
        if index == window.count - 1 { dropTrailingHoles() }
        if index == 0 { dropLeadingHoles() }
        return value
    }

    /// Puts `value` in the overflow under `id`.
    private mutating func putInOverflow(_ value: consuming Value, for id: RequestID) {
        overflowCeiling = max(overflowCeiling, id.rawValue)
        overflow[id] = value
    }

    /// Drops the holes after the last live entry.
    private mutating func dropTrailingHoles() {
        while !window.isEmpty, window[window.count - 1] == nil { window.removeLast() }
        if window.isEmpty { base = 1 }  // the next insertion sets the base again
    }

    /// Drops the holes before the first live entry.
    @inline(__always)
    private mutating func dropLeadingHoles() {
        while !window.isEmpty, window[0] == nil {
            window.removeFirst()
            base += 1
        }
        if window.isEmpty { base = 1 }  // the next insertion sets the base again
    }

    /// Drops leading holes, and moves the front live entries to the overflow while `condition` holds
    /// (at most `limit` of them).
    private mutating func migrateFront(while condition: (Self) -> Bool, atMost limit: Int) {
        dropLeadingHoles()
        var migrations = 0
        while migrations < limit, !window.isEmpty, condition(self) {
            putInOverflow(window[0]!, for: RequestID(rawValue: base))  // live: the holes before it are dropped
            window.removeFirst()
            base += 1
            liveInWindow -= 1
            migrations += 1
            dropLeadingHoles()
        }
    }

    /// Whether the window is past the hard bound on the hot path: more than eight times the live entries.
    @inline(__always)
    private var isPastHardBound: Bool { window.count > 4096 && window.count > 8 * liveInWindow }

    /// How many live entries one insertion may move to the overflow.
    static var migrationsPerInsertion: Int { 8 }

    /// Whether the window is mostly holes (and large), so a ``compact()`` pays.
    var needsCompaction: Bool { window.count > 4096 && window.count > 2 * liveInWindow }

    /// The slots ``compact()`` would scan at most.
    var compactionWork: Int { needsCompaction ? window.count : 0 }

    /// The window's length, holes included.
    var windowLength: Int { window.count }

    /// Moves the oldest live entries to the overflow until the window is at most twice the live entries.
    /// - Complexity: O(window)
    mutating func compact() {
        migrateFront(while: { $0.window.count > 2 * $0.liveInWindow }, atMost: .max)
    }

    /// Calls `body` with every live entry (unordered).
    func forEach(_ body: (RequestID, Value) -> Void) {
        for offset in 0..<window.count {
            if let value = window[offset] { body(RequestID(rawValue: base + UInt64(offset)), value) }
        }
        for (id, value) in overflow { body(id, value) }
    }
}

extension RequestTable: Sendable where Value: Sendable {}

import DequeModule

/// Pending requests by ID. IDs are handed out in increasing order, so most live IDs fall in a dense
/// window: a `Deque` indexed by `id - base` finds them with no hashing and grows with no rehashing.
/// An ID that outlives the window (a long-lived request while millions of others come and go) is
/// moved to a `Dictionary` when the owner compacts (while idle), so the window settles back to about
/// twice the live entries; on the hot path entries move only past a hard bound of eight times, a few
/// per removal, so no removal pays for a bulk migration and memory stays bounded when never idle.
///
/// Hand-written because no swift-collections type maps dense, increasing integer keys to values at
/// array speed; it is a thin layer over `Deque` and `Dictionary`.
struct RequestTable<Value> {
    private var base: UInt64 = 1
    private var window = Deque<Value?>()
    private var liveInWindow = 0
    private var overflow: [RequestID: Value] = [:]

    /// The number of live entries.
    var count: Int { liveInWindow + overflow.count }

    var isEmpty: Bool { count == 0 }

    /// The value for `id`, or `nil`.
    /// - Complexity: O(1)
    subscript(id: RequestID) -> Value? {
        get {
            let raw = id.rawValue
            if raw >= base, raw - base < UInt64(window.count) { return window[Int(raw - base)] }
            return overflow[id]
        }
        set {
            if let newValue { insert(newValue, for: id) } else { _ = removeValue(forKey: id) }
        }
    }

    /// Sets the value for `id` (new or existing).
    /// - Complexity: amortised O(1)
    mutating func insert(_ value: Value, for id: RequestID) {
        let raw = id.rawValue
        if window.isEmpty && overflow.isEmpty { base = raw }
        guard raw >= base else {
            overflow[id] = value
            return
        }
        let offset = raw - base
        if offset >= UInt64(window.count) {
            guard offset - UInt64(window.count) < 1 << 20 else {  // a far jump: not worth a window of holes
                overflow[id] = value
                return
            }
            // Only when IDs were skipped: an empty `append(contentsOf:)` still runs the standard
            // library's unspecialised sequence code (a few hundred instructions per request).
            if offset > UInt64(window.count) {
                window.append(contentsOf: repeatElement(nil, count: Int(offset) - window.count))
            }
            window.append(value)
            liveInWindow += 1
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
        guard let value = window[index] else { return nil }
        window[index] = nil
        liveInWindow -= 1
        trimFront()
        return value
    }

    /// Drops leading and trailing holes; past the hard bound (eight times the live entries), also
    /// moves up to ``migrationsPerRemoval`` old live entries to the overflow (each removal makes at
    /// most one hole, so the window still shrinks back under the bound).
    private mutating func trimFront() {
        // Direct indexing, not `first`/`last`: those resolve to the standard library's unspecialized
        // `Collection` defaults, whose generic accessors allocate on every call.
        while !window.isEmpty, window[window.count - 1] == nil { window.removeLast() }
        migrateFront(while: { $0.window.count > 4096 && $0.window.count > 8 * $0.liveInWindow }, atMost: Self.migrationsPerRemoval)
    }

    /// Drops leading holes, and moves the front live entries to the overflow while `condition` holds
    /// (at most `limit` of them).
    private mutating func migrateFront(while condition: (Self) -> Bool, atMost limit: Int) {
        var migrations = 0
        while !window.isEmpty {
            if window[0] != nil {
                guard migrations < limit, condition(self) else { break }
                migrations += 1
                overflow[RequestID(rawValue: base)] = window[0]
                liveInWindow -= 1
            }
            window.removeFirst()
            base += 1
        }
        if window.isEmpty { base = 1 }
    }

    /// How many live entries one removal may move to the overflow.
    static var migrationsPerRemoval: Int { 8 }

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

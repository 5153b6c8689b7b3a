/// Values by request ID, walked in submission order: the subscriptions and monitors that one fix, error or
/// ending reaches hear it in the order they were made, the same in every run (a `Dictionary` walks in the order
/// of its hashes, which differ from one process to the next). Submission order is ID order, as everywhere in
/// the core: its owner hands IDs out increasing.
///
/// The entries sit in an array in ID order; a new ID, the largest so far, goes last. A removal leaves a hole,
/// and once the holes outnumber the live entries one pass closes them up, so a removal costs amortised O(1).
/// (An ID smaller than the last one, which an owner that hands IDs out otherwise may store, is put in its place
/// in O(n).) Hand-written because swift-collections' `OrderedDictionary` keeps its elements contiguous and so
/// removes in O(n): a hundred thousand subscriptions cancelled at once would take quadratic time.
struct SubmissionOrderedTable<Value> {
    fileprivate struct Entry {
        let id: RequestID
        var value: Value
    }

    private var entries: [Entry?] = []
    private var positions: [RequestID: Int] = [:]

    /// The number of live entries.
    var count: Int { positions.count }

    var isEmpty: Bool { positions.isEmpty }

    /// The value for `id`, or `nil`.
    /// - Complexity: O(1)
    subscript(id: RequestID) -> Value? {
        positions[id].map { entries[$0]!.value }
    }

    /// Stores `value` for `id`: a new ID goes after every other, an existing one keeps its place. Returns the
    /// value it replaced, if any.
    /// - Complexity: amortised O(1)
    @discardableResult
    mutating func updateValue(_ value: Value, forKey id: RequestID) -> Value? {
        guard let position = positions[id] else {
            if let last = entries.last, let last, id < last.id {
                insertInOrder(Entry(id: id, value: value))
            } else {
                positions[id] = entries.count
                entries.append(Entry(id: id, value: value))
            }
            return nil
        }
        let old = entries[position]!.value
        entries[position]!.value = value
        return old
    }

    /// Removes the value for `id` and returns it, or `nil` when there is none.
    /// - Complexity: amortised O(1)
    mutating func removeValue(forKey id: RequestID) -> Value? {
        guard let position = positions.removeValue(forKey: id) else { return nil }
        let removed = entries[position].take()!.value
        while case .some(.none) = entries.last { entries.removeLast() }
        if entries.count - positions.count > Swift.max(16, positions.count) { closeHoles() }
        return removed
    }

    /// Calls `body` with every entry in order, its value in place. `body` must not touch the table.
    /// - Complexity: O(n) for n entries and holes (fewer than twice the live entries, or 16 more).
    mutating func updateEach(_ body: (RequestID, inout Value) -> Void) {
        for index in entries.indices where entries[index] != nil {
            body(entries[index]!.id, &entries[index]!.value)
        }
    }

    /// Puts a new entry whose ID is smaller than the last one in its place by ID.
    /// - Complexity: O(n)
    private mutating func insertInOrder(_ entry: Entry) {
        closeHoles()
        var low = 0
        var high = entries.count
        while low < high {
            let middle = (low + high) / 2
            if entries[middle]!.id < entry.id { low = middle + 1 } else { high = middle }
        }
        entries.insert(entry, at: low)
        for index in low..<entries.count { positions[entries[index]!.id] = index }
    }

    /// Moves the live entries to the front, in order, and drops the holes.
    private mutating func closeHoles() {
        var kept = 0
        for index in entries.indices where entries[index] != nil {
            if index != kept {
                entries.swapAt(index, kept)
                positions[entries[kept]!.id] = kept
            }
            kept += 1
        }
        entries.removeLast(entries.count - kept)
    }
}

extension SubmissionOrderedTable: Sequence {
    /// The live entries in the order they were first stored.
    struct Iterator: IteratorProtocol {
        fileprivate var base: IndexingIterator<[Entry?]>

        mutating func next() -> (id: RequestID, value: Value)? {
            while let slot = base.next() {
                if let entry = slot { return (entry.id, entry.value) }
            }
            return nil
        }
    }

    func makeIterator() -> Iterator { Iterator(base: entries.makeIterator()) }

    var underestimatedCount: Int { count }
}

extension SubmissionOrderedTable: Sendable where Value: Sendable {}
extension SubmissionOrderedTable.Entry: Sendable where Value: Sendable {}

import DequeModule

/// A double-ended sequence of optional slots stored in fixed-size chunks: appending at the back and
/// dropping at the front cost O(1), and growing never moves what is already stored.
///
/// A single contiguous buffer (`Deque`, `Array`) doubles when full, copying every element: with a
/// million pending requests that is one stall of tens of milliseconds (a copy of the whole table and
/// the page faults of a buffer twice its size), during which nothing else — no timeout — is served.
/// Here growth allocates one chunk of ``chunkSize`` slots; only the small deque of chunk references
/// ever grows by copying.
///
/// Hand-written because swift-collections has no segmented deque; it is a thin layer over `Deque`
/// and `ContiguousArray`.
struct ChunkedWindow<Element> {
    /// Slots per chunk: as many as fit, with the array's 32-byte header, in 32 KiB — an allocator size
    /// class, so no chunk is rounded up (1,024 slots of a 40-byte pending one-shot plus the header
    /// took jemalloc's 48 KiB class). A constant once specialised, so an index splits with a multiply.
    @inline(__always) static var chunkSize: Int { max(1, (32 * 1024 - 32) / MemoryLayout<Element?>.stride) }

    private var chunks = Deque<ContiguousArray<Element?>>()
    /// Where the first slot sits in the first chunk.
    private var head = 0
    /// The number of slots, holes included.
    private(set) var count = 0

    var isEmpty: Bool { count == 0 }

    /// The slot at `index` (`0..<count`).
    subscript(index: Int) -> Element? {
        @inline(__always) get {
            let position = head &+ index
            let chunk = position / Self.chunkSize
            return chunks[chunk][position &- chunk &* Self.chunkSize]
        }
        @inline(__always) set {
            let position = head &+ index
            let chunk = position / Self.chunkSize
            chunks[chunk][position &- chunk &* Self.chunkSize] = newValue
        }
    }

    /// Takes the value out of the slot at `index` (`0..<count`), leaving it empty: moved out, not copied
    /// and then released.
    @inline(__always)
    mutating func take(_ index: Int) -> Element? {
        let position = head &+ index
        let chunk = position / Self.chunkSize
        return chunks[chunk][position &- chunk &* Self.chunkSize].take()
    }

    /// Appends a slot at the back.
    /// - Complexity: O(1); O(``chunkSize``) when a chunk is added.
    mutating func append(_ element: consuming Element?) {
        let position = head &+ count
        if position == chunks.count &* Self.chunkSize {
            chunks.append(ContiguousArray(repeating: nil, count: Self.chunkSize))
        }
        count &+= 1
        // Moved in, not copied and then released.
        if element != nil { self[count &- 1] = consume element }
    }

    /// Appends `holes` empty slots at the back.
    mutating func appendHoles(_ holes: Int) {
        for _ in 0..<holes { append(nil) }
    }

    /// Removes the last slot (its value, if any, is released).
    mutating func removeLast() {
        precondition(count > 0, "removeLast() on an empty window")
        self[count &- 1] = nil
        count &-= 1
        // One spare chunk stays at the back, so a window that shrinks and grows by a slot around a
        // chunk's edge does not allocate each time.
        while chunks.count &* Self.chunkSize &- (head &+ count) >= 2 &* Self.chunkSize {
            chunks.removeLast()
        }
        if count == 0 { keepOneChunk() }
    }

    /// Removes the first slot (its value, if any, is released).
    mutating func removeFirst() {
        precondition(count > 0, "removeFirst() on an empty window")
        self[0] = nil
        head &+= 1
        count &-= 1
        if head == Self.chunkSize {
            chunks.removeFirst()
            head = 0
        }
        if count == 0 { keepOneChunk() }
    }

    /// Emptied: the first chunk (all holes now) stays for the next slots, so that a window that
    /// empties and refills one request at a time does not allocate a chunk per request.
    private mutating func keepOneChunk() {
        while chunks.count > 1 { chunks.removeLast() }
        head = 0
    }
}

extension ChunkedWindow: Sendable where Element: Sendable {}

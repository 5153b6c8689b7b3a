/// Cuts a byte stream delivered in arbitrary chunks into candidate sentences.
///
/// A sentence starts at `$` and ends at CR or LF; a `$` inside a line ends it
/// early (the next sentence has begun) and resynchronises there. Complete lines
/// inside a chunk are handed out in place, without copying; only a line split
/// across chunks is copied into a buffer that never grows past
/// ``maximumLineLength``. A line longer than that is dropped and counted, and the
/// framer discards bytes up to the next `$` or newline: memory stays bounded
/// whatever the input.
struct NMEALineFramer: Sendable {
    /// The states of the framer between chunks.
    private enum State: Sendable {
        /// Outside any sentence, looking for `$`.
        case hunting
        /// Inside a sentence whose first bytes are in `partial`.
        case collecting
        /// Inside an overlong line, dropping bytes up to `$` or a newline.
        case discarding
    }

    /// What the framer tells its owner, besides lines.
    enum Event {
        /// A line went past the maximum length; it was dropped.
        case lineTooLong
        /// Bytes outside sentences were skipped.
        case discarded(Int)
    }

    /// The longest line accepted, counted from `$` up to the terminator.
    let maximumLineLength: Int
    private var state = State.hunting
    private var partial: [UInt8]

    /// The longest line a framer keeps: no sentence longer than this parses (its comma offsets are 16-bit).
    static let longestLine = Int(UInt16.max)

    /// Creates a framer; `maximumLineLength` is clamped to 16 ... ``longestLine``.
    init(maximumLineLength: Int) {
        self.maximumLineLength = min(max(16, maximumLineLength), Self.longestLine)
        partial = []
        partial.reserveCapacity(min(self.maximumLineLength, 256))
    }

    /// An empty framer used as a placeholder while the real one is borrowed.
    static let placeholder = NMEALineFramer(unallocated: ())

    private init(unallocated: Void) {
        maximumLineLength = 16
        partial = []
    }

    /// Splits `bytes` into lines. `onLine` gets each line (from `$`, without its terminator)
    /// and whether it was interrupted by the next `$` instead of ending with a newline.
    ///
    /// - Complexity: O(n) in the chunk length; allocation-free in steady state.
    mutating func feed(
        _ bytes: UnsafeRawBufferPointer,
        onLine: (UnsafeRawBufferPointer, _ interrupted: Bool) -> Void,
        onEvent: (Event) -> Void
    ) {
        var index = 0
        let count = bytes.count
        while index < count {
            switch state {
            case .hunting:
                var start = index
                var skipped = 0
                while start < count, bytes[start] != 0x24 {
                    if bytes[start] != 0x0A && bytes[start] != 0x0D { skipped += 1 }
                    start += 1
                }
                if skipped > 0 { onEvent(.discarded(skipped)) }
                guard start < count else { return }
                // Fast path: the whole line is inside this chunk.
                let limit = min(count, start + 1 + maximumLineLength)
                let end = NMEAByteScan.firstTerminator(in: bytes, from: start + 1, to: limit)
                if end < limit {
                    let interrupted = bytes[end] == 0x24
                    onLine(UnsafeRawBufferPointer(rebasing: bytes[start..<end]), interrupted)
                    index = interrupted ? end : end + 1
                } else if limit - start > maximumLineLength {
                    onEvent(.lineTooLong)
                    onEvent(.discarded(limit - start))
                    state = .discarding
                    index = limit
                } else {
                    partial.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[start..<count]))
                    state = .collecting
                    return
                }
            case .collecting:
                let room = maximumLineLength - partial.count
                let limit = min(count, index + room + 1)
                let end = NMEAByteScan.firstTerminator(in: bytes, from: index, to: limit)
                if end < limit {
                    let interrupted = bytes[end] == 0x24
                    partial.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[index..<end]))
                    partial.withUnsafeBytes { onLine($0, interrupted) }
                    partial.removeAll(keepingCapacity: true)
                    state = .hunting
                    index = interrupted ? end : end + 1
                } else if limit - index > room {
                    onEvent(.lineTooLong)
                    onEvent(.discarded(partial.count + limit - index))
                    partial.removeAll(keepingCapacity: true)
                    state = .discarding
                    index = limit
                } else {
                    partial.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[index..<count]))
                    return
                }
            case .discarding:
                let end = NMEAByteScan.firstTerminator(in: bytes, from: index, to: count)
                if end - index > 0 { onEvent(.discarded(end - index)) }
                guard end < count else { return }
                state = .hunting
                index = bytes[end] == 0x24 ? end : end + 1
            }
        }
    }

    /// Bytes of a partial line held between chunks; never more than ``maximumLineLength``.
    var bufferedByteCount: Int { partial.count }

    /// Hands out a line left unterminated at end of stream, as interrupted.
    mutating func finish(onLine: (UnsafeRawBufferPointer, _ interrupted: Bool) -> Void) {
        if state == .collecting, !partial.isEmpty {
            partial.withUnsafeBytes { onLine($0, true) }
        }
        partial.removeAll(keepingCapacity: true)
        state = .hunting
    }
}

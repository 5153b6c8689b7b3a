/// Separates what a receiver sends on one serial line: NMEA/PMTK text lines and UBX binary frames,
/// interleaved, with garbage between them.
///
/// Streaming and bounded: feed it chunks as they arrive; it hands out each complete line (from `$` or `!`
/// through its LF, CR LF kept) and each UBX frame whose checksum holds, and keeps at most one partial line
/// (``maximumLineLength``) or one partial frame (``UBXFrame/maximumPayloadLength``) between chunks. A text line
/// is printable ASCII: any other byte inside it (a UBX sync, noise) abandons it and is looked at afresh, so a
/// frame that interrupts a line is still found. A frame whose length field exceeds the bound is not a frame: its
/// header bytes are scanned again as text. A frame with a bad checksum is reported, and its bytes after the sync
/// are scanned again: a corrupted length byte, or a byte lost in transit, makes a frame that swallows what follows
/// it (the next lines, the answer to a command), which is found there.
///
/// Hand-written rather than built from NIO decoders because the two framings share one byte stream and must
/// resynchronise on each other; gpsd's packet lexer (`packet.c`) takes the same approach.
public struct ReceiverStreamSplitter: Sendable {
    /// One piece of the stream.
    public enum Piece: Sendable, Hashable {
        /// A text line from `$` or `!` through its LF.
        case line([UInt8])
        /// A UBX frame with a valid checksum.
        case ubx(UBXFrame)
        /// A UBX frame whose checksum did not match (garbled in transit), dropped.
        case garbledFrame
    }

    /// Counters since creation.
    public struct Statistics: Sendable, Hashable {
        /// Text lines handed out.
        public var lines = 0
        /// UBX frames handed out.
        public var frames = 0
        /// UBX frames dropped for a bad checksum.
        public var garbledFrames = 0
        /// Bytes that belonged to neither (noise, abandoned lines, oversized lines).
        public var discardedBytes = 0
    }

    private enum State: Sendable {
        case hunting
        case line
        case sync
        case frame(length: Int?)
    }

    /// The longest line kept, `$` through LF.
    public let maximumLineLength: Int
    /// The largest ``maximumLineLength`` taken: 65,535 bytes, as the NMEA decoder's (no longer sentence parses).
    public static let longestLine = Int(UInt16.max)
    private var state = State.hunting
    private var buffer: [UInt8] = []
    /// Counters since creation.
    public private(set) var statistics = Statistics()

    /// A splitter keeping lines of at most `maximumLineLength` bytes, 16 to ``longestLine`` (outside that
    /// range the nearest): a peer that never ends its line holds no more than that.
    public init(maximumLineLength: Int = 256) {
        self.maximumLineLength = min(max(16, maximumLineLength), Self.longestLine)
    }

    /// Bytes of an incomplete line or frame held until the next chunk.
    public var bufferedByteCount: Int { buffer.count }

    /// The stream was cut (the port closed or reopened): a line or frame begun on the old connection is
    /// dropped, counted in ``Statistics/discardedBytes``, so that it does not swallow the new connection's
    /// first bytes (a version reply among them).
    /// - Complexity: O(1)
    public mutating func streamCut() {
        if !buffer.isEmpty { discard(buffer.count) } else { reset() }
    }

    /// Splits a chunk, calling `body` for each complete piece in order.
    /// - Complexity: O(n) in the chunk length.
    public mutating func feed(_ bytes: some Sequence<UInt8>, _ body: (Piece) -> Void) {
        for byte in bytes { step(byte, body) }
    }

    private mutating func step(_ byte: UInt8, _ body: (Piece) -> Void) {
        switch state {
        case .hunting:
            begin(byte)
        case .line:
            if byte == 0x0A {
                buffer.append(byte)
                statistics.lines += 1
                body(.line(buffer))
                reset()
            } else if (0x20...0x7E).contains(byte) && byte != 0x24 && byte != 0x21 || byte == 0x0D {
                guard buffer.count < maximumLineLength - 1 else {
                    discard(buffer.count + 1)
                    return
                }
                buffer.append(byte)
            } else {
                // Not text: the line is abandoned and the byte starts afresh (a new `$`, a UBX sync, noise).
                discard(buffer.count)
                begin(byte)
            }
        case .sync:
            if byte == UBXFrame.sync.1 {
                buffer.append(byte)
                state = .frame(length: nil)
            } else {
                discard(1)
                begin(byte)
            }
        case .frame(let length):
            buffer.append(byte)
            if length == nil, buffer.count == 6 {
                let declared = Int(buffer[4]) | Int(buffer[5]) << 8
                guard declared <= UBXFrame.maximumPayloadLength else {
                    // Not a frame after all: the sync is noise, and the header bytes are scanned again.
                    let header = buffer[2...]
                    discard(2)
                    for replay in header { step(replay, body) }
                    return
                }
                state = .frame(length: declared)
            } else if let length, buffer.count == length + 8 {
                if let frame = try? UBXFrame.decode(buffer) {
                    statistics.frames += 1
                    body(.ubx(frame))
                    reset()
                } else {
                    statistics.garbledFrames += 1
                    body(.garbledFrame)
                    // Its sync is dropped; the rest is scanned again (strictly fewer bytes each time, so this ends).
                    let rest = buffer[2...]
                    discard(2)
                    for replay in rest { step(replay, body) }
                }
            }
        }
    }

    /// Looks at `byte` outside any piece.
    private mutating func begin(_ byte: UInt8) {
        switch byte {
        case 0x24, 0x21:
            buffer = [byte]
            state = .line
        case UBXFrame.sync.0:
            buffer = [byte]
            state = .sync
        default:
            statistics.discardedBytes += 1
        }
    }

    /// Drops the buffered piece, counting `count` bytes as discarded.
    private mutating func discard(_ count: Int) {
        statistics.discardedBytes += count
        reset()
    }

    private mutating func reset() {
        buffer.removeAll(keepingCapacity: true)
        state = .hunting
    }
}

import NIOCore
import NIOExtras

/// One frame of a line-oriented stream: a line (without its terminator), or the size of a line that
/// was too long to keep and was dropped.
enum LineFrame {
    /// A complete line, without `\n` or `\r\n`.
    case line(ByteBuffer)
    /// A line longer than the bound was dropped; `byteCount` bytes were discarded up to its newline.
    case oversized(byteCount: Int)
}

/// Splits a byte stream into lines with NIOExtras' `LineBasedFrameDecoder`, and bounds memory: a line
/// longer than `maximumLineLength` is never buffered whole. Its bytes are discarded as they arrive,
/// up to and including its newline, and one ``LineFrame/oversized(byteCount:)`` reports it, so a
/// hostile peer cannot make the reader grow without bound, and the stream resynchronises on the next line.
///
/// An unterminated line at the end of the stream is dropped.
struct BoundedLineDecoder: ByteToMessageDecoder {
    typealias InboundOut = LineFrame

    /// The longest line kept, terminator excluded.
    let maximumLineLength: Int
    /// NIOExtras' line splitter. It remembers how far it scanned, so it is replaced whenever this
    /// decoder consumes bytes itself.
    private var lines = LineBasedFrameDecoder()
    /// Bytes dropped so far of the oversized line being skipped, or `nil` when not skipping.
    private var discarding: Int?

    /// Creates a decoder keeping lines of at most `maximumLineLength` bytes (at least 1).
    init(maximumLineLength: Int) {
        self.maximumLineLength = max(1, maximumLineLength)
    }

    mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        guard let frame = try nextFrame(&buffer) else { return .needMoreData }
        context.fireChannelRead(wrapInboundOut(frame))
        return .continue
    }

    mutating func decodeLast(context: ChannelHandlerContext, buffer: inout ByteBuffer, seenEOF: Bool) throws -> DecodingState {
        while let frame = try nextFrame(&buffer) {
            context.fireChannelRead(wrapInboundOut(frame))
        }
        buffer.moveReaderIndex(to: buffer.writerIndex)
        return .needMoreData
    }

    /// The next frame in `buffer`, or `nil` when more bytes are needed.
    /// - Complexity: O(n) in the bytes not scanned before.
    private mutating func nextFrame(_ buffer: inout ByteBuffer) throws -> LineFrame? {
        if let dropped = discarding {
            guard let newline = buffer.readableBytesView.firstIndex(of: UInt8(ascii: "\n")) else {
                discarding = dropped + buffer.readableBytes
                buffer.moveReaderIndex(to: buffer.writerIndex)
                return nil
            }
            let count = newline - buffer.readerIndex + 1
            buffer.moveReaderIndex(forwardBy: count)
            discarding = nil
            lines = LineBasedFrameDecoder()
            return .oversized(byteCount: dropped + count)
        }
        if let line = try lines.decode(buffer: &buffer) {
            if line.readableBytes > maximumLineLength { return .oversized(byteCount: line.readableBytes) }
            return .line(line)
        }
        if buffer.readableBytes > maximumLineLength {
            discarding = buffer.readableBytes
            buffer.moveReaderIndex(to: buffer.writerIndex)
            lines = LineBasedFrameDecoder()
        }
        return nil
    }
}

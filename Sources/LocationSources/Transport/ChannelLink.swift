import NIOCore

/// A ``StreamLink`` over a NIO `Channel` (a TCP connection, a serial device, a pipe).
struct ChannelLink: StreamLink {
    let channel: any Channel
    /// Whether closing shuts the output first and reads on until the peer closes (``closingGrace`` at most):
    /// for a TCP connection (``close(farewell:)``). A device or a pipe closes at once.
    var shutsOutputFirst = false

    /// How long a closing TCP link has, from the close reaching its event loop (after the writes handed to it
    /// before), to write what is pending, shut its output and read on until the peer closes in turn (gpsd does at
    /// once); then it closes, whatever the peer does (one that stopped reading included).
    static let closingGrace = TimeAmount.seconds(1)

    func send(_ bytes: ByteBuffer, failed: (@Sendable (any Error) -> Void)?) {
        guard let failed else { return channel.writeAndFlush(bytes, promise: nil) }
        channel.writeAndFlush(bytes).whenFailure(failed)
    }

    /// Writes `farewell` (if any) after what was sent, then closes.
    ///
    /// A TCP socket closed while input it has not read is waiting sends a reset instead of an end, and the
    /// peer drops what it had received and not yet read: a receiver's standby command sent through gpsd just
    /// before the source stopped was lost that way while gpsd streamed reports, and the receiver kept tracking.
    /// So a TCP link shuts its output once everything written is on its way (the peer reads all of it, then
    /// the end), reads on, discarding, until the peer closes too, and closes after ``closingGrace`` at the
    /// latest. Written here: NIO offers the half-close, not the wait for the peer's.
    func close(farewell: ByteBuffer?) {
        let channel = self.channel
        if let farewell { channel.writeAndFlush(farewell, promise: nil) }
        guard shutsOutputFirst else {
            channel.close(promise: nil)
            return
        }
        // On the loop, behind the writes handed to it before: the grace counts from when they were tried, not from
        // this call, which a busy loop may reach seconds later. Armed first: NIO shuts the output only once the
        // pending writes are written, which a peer that stopped reading never lets happen.
        channel.eventLoop.execute {
            channel.eventLoop.scheduleTask(in: Self.closingGrace) { channel.close(promise: nil) }
            channel.close(mode: .output).whenFailure { _ in channel.close(promise: nil) }
        }
    }

    /// Adds the handlers that cut input by `framing` and forward it to `events`.
    static func configure(_ channel: any Channel, framing: LinkFraming, events: LinkEvents) throws {
        let pipeline = channel.pipeline.syncOperations
        switch framing {
        case .bytes:
            try pipeline.addHandler(LinkInputForwarder<ByteBuffer>(events: events, wrap: LinkInput.bytes))
        case .lines(let maximumLength):
            try pipeline.addHandler(FirstBytesHandler(heard: events.heard))
            try pipeline.addHandler(ByteToMessageHandler(BoundedLineDecoder(maximumLineLength: maximumLength)))
            try pipeline.addHandler(
                LinkInputForwarder<LineFrame>(events: events) { frame in
                    switch frame {
                    case .line(let line): .line(line)
                    case .oversized(let count): .oversizedLine(byteCount: count)
                    }
                })
        }
    }
}

/// Ahead of a line decoder: tells ``LinkEvents/heard`` at the first bytes, and passes every read on.
final class FirstBytesHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    private let heard: @Sendable () -> Void
    private var told = false

    init(heard: @escaping @Sendable () -> Void) { self.heard = heard }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if !told {
            told = true
            heard()
        }
        context.fireChannelRead(data)
    }
}

/// The last handler of a link's pipeline: hands input to the link's reader and reports its end once.
/// A channel that never became active (a failed connect) reports nothing: its open fails instead.
///
/// When the reader returns a future (a paced replay of a named pipe), the channel reads nothing more until it
/// completes: the read the channel asks for is held, so that a writer faster than the pacing fills the pipe
/// and waits, rather than the replay queueing all it wrote. (NIO's own backpressure is this: hold `read`.)
final class LinkInputForwarder<Input>: ChannelDuplexHandler {
    typealias InboundIn = Input
    typealias OutboundIn = ByteBuffer

    private let events: LinkEvents
    private let wrap: (Input) -> LinkInput
    private var error: (any Error)?
    private var wasActive = false
    private var ended = false
    /// The reader's futures not yet complete.
    private var waits = 0
    /// Whether the channel asked to read while the reader made it wait.
    private var readHeld = false
    private var removed = false

    init(events: LinkEvents, wrap: @escaping (Input) -> LinkInput) {
        self.events = events
        self.wrap = wrap
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { wasActive = true }
    }

    func channelActive(context: ChannelHandlerContext) {
        wasActive = true
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard let wait = events.received(wrap(unwrapInboundIn(data))) else { return }
        waits += 1
        let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        wait.hop(to: context.eventLoop).whenComplete { _ in
            let (handler, context) = loopBound.value
            handler.waits -= 1
            guard handler.waits == 0, handler.readHeld, !handler.removed else { return }
            handler.readHeld = false
            context.read()
        }
    }

    func read(context: ChannelHandlerContext) {
        guard waits == 0 else {
            readHeld = true
            return
        }
        context.read()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if self.error == nil { self.error = error }
        context.close(promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        guard wasActive, !ended else { return }
        ended = true
        events.closed(error)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        removed = true
        guard wasActive, !ended else { return }
        ended = true
        events.closed(error)
    }
}

import NIOCore

/// A ``StreamLink`` over a NIO `Channel` (a TCP connection, a serial device, a pipe).
struct ChannelLink: StreamLink {
    let channel: any Channel

    func send(_ bytes: ByteBuffer, failed: (@Sendable (any Error) -> Void)?) {
        guard let failed else { return channel.writeAndFlush(bytes, promise: nil) }
        channel.writeAndFlush(bytes).whenFailure(failed)
    }

    func close(farewell: ByteBuffer?) {
        let channel = self.channel
        guard let farewell else {
            channel.close(promise: nil)
            return
        }
        channel.writeAndFlush(farewell).whenComplete { _ in channel.close(promise: nil) }
    }

    /// Adds the handlers that cut input by `framing` and forward it to `events`.
    static func configure(_ channel: any Channel, framing: LinkFraming, events: LinkEvents) throws {
        let pipeline = channel.pipeline.syncOperations
        switch framing {
        case .bytes:
            try pipeline.addHandler(LinkInputForwarder<ByteBuffer>(events: events, wrap: LinkInput.bytes))
        case .lines(let maximumLength):
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

/// The last handler of a link's pipeline: hands input to the link's reader and reports its end once.
/// A channel that never became active (a failed connect) reports nothing: its open fails instead.
final class LinkInputForwarder<Input>: ChannelInboundHandler {
    typealias InboundIn = Input

    private let events: LinkEvents
    private let wrap: (Input) -> LinkInput
    private var error: (any Error)?
    private var wasActive = false
    private var ended = false

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
        _ = events.received(wrap(unwrapInboundIn(data)))
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
        guard wasActive, !ended else { return }
        ended = true
        events.closed(error)
    }
}

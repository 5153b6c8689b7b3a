import NIOConcurrencyHelpers
import NIOCore
import NIOEmbedded
import Testing

@testable import LocationSources

/// A channel link's reads wait for its reader: a paced replay of a named pipe takes no more than it delivers.
struct ChannelLinkBackpressureTests {
    /// Counts the reads that reach the channel (it sits before the link's own handlers, nearer the socket).
    final class ReadCounter: ChannelOutboundHandler {
        typealias OutboundIn = ByteBuffer
        var reads = 0
        func read(context: ChannelHandlerContext) {
            reads += 1
            context.read()
        }
    }

    @Test("while the reader's future is pending (a paced replay) the channel reads nothing more; once it completes, the held read goes out; with nothing pending, reads pass at once")
    func readsWaitForTheReader() throws {
        let channel = EmbeddedChannel()
        let loop = channel.eventLoop
        let pending = NIOLockedValueBox<[EventLoopPromise<Void>]>([])
        let received = NIOLockedValueBox(0)
        let events = LinkEvents(
            received: { _ in
                received.withLockedValue { $0 += 1 }
                let promise = loop.makePromise(of: Void.self)
                pending.withLockedValue { $0.append(promise) }
                return promise.futureResult
            },
            closed: { _ in })
        let counter = ReadCounter()
        try channel.pipeline.syncOperations.addHandler(counter)
        try ChannelLink.configure(channel, framing: .bytes, events: events)
        try channel.writeInbound(ByteBuffer(string: "$GPGGA,000001.00,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,*55\r\n"))
        #expect(received.withLockedValue { $0 } == 1)
        channel.read()
        channel.read()
        #expect(counter.reads == 0, "held while the reader waits")
        pending.withLockedValue { $0.removeFirst() }.succeed()
        channel.embeddedEventLoop.run()
        #expect(counter.reads == 1, "the held read goes out once")
        channel.read()
        #expect(counter.reads == 2, "nothing pending: at once")
        _ = try channel.finish()
    }
}

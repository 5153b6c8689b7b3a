import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import TestSupport

/// A TCP server on 127.0.0.1 (port chosen by the system) for tests: a fake gpsd, an NMEA feed for a
/// real gpsd, an NMEA feed for the stream source. It records what clients did, lets the test talk to
/// them, and lets the test await a condition on that record without polling.
final class TestTCPServer: Sendable {
    /// What clients have done so far.
    struct Record: Sendable {
        var connections = 0
        var disconnections = 0
        var active: Int { connections - disconnections }
        /// The errors connections ended with (a reset: the client closed with input unread), in order.
        var errors: [String] = []
        /// Everything clients sent, in arrival order (bounded to the first MiB).
        var received: [UInt8] = []
        var receivedText: String { String(decoding: received, as: UTF8.self) }
    }

    /// One connected client.
    struct Client: Sendable {
        let channel: any Channel
        /// Which connection this is, from 1.
        let number: Int

        func send(_ text: String) { send(Array(text.utf8)) }

        func send(_ bytes: [UInt8]) {
            let channel = self.channel
            channel.eventLoop.execute {
                channel.writeAndFlush(channel.allocator.buffer(bytes: bytes), promise: nil)
            }
        }

        /// Closes the connection after everything sent before has been written.
        func close() {
            let channel = self.channel
            channel.eventLoop.execute {
                channel.writeAndFlush(channel.allocator.buffer(capacity: 0)).whenComplete { _ in channel.close(promise: nil) }
            }
        }
    }

    private struct State: Sendable {
        var record = Record()
        var clients: [ObjectIdentifier: Client] = [:]
    }

    let port: Int
    private let channel: any Channel
    private let state: Observed<State>

    private init(port: Int, channel: any Channel, state: Observed<State>) {
        self.port = port
        self.channel = channel
        self.state = state
    }

    /// Starts a server; `onConnect` runs for every new client (on its event loop). Without `reading`, it reads
    /// nothing its clients send (a peer that stopped reading: their writes fill the buffers and wait).
    static func start(reading: Bool = true, onConnect: @escaping @Sendable (Client) -> Void = { _ in }) async throws -> TestTCPServer {
        let state = Observed(State())
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.autoRead, value: reading)
            .childChannelInitializer { child in
                child.eventLoop.makeCompletedFuture {
                    try child.pipeline.syncOperations.addHandler(Handler(state: state, onConnect: onConnect))
                }
            }
            .bind(host: "127.0.0.1", port: 0)
            .get()
        return TestTCPServer(port: channel.localAddress!.port!, channel: channel, state: state)
    }

    var record: Record { state.value.record }

    var clients: [Client] { state.value.clients.values.sorted { $0.number < $1.number } }

    /// Sends `text` to every connected client.
    func broadcast(_ text: String) {
        for client in clients { client.send(text) }
    }

    /// Returns once `predicate` holds for the record (at once if it already does), or when the task is cancelled.
    func waitUntil(_ predicate: @escaping @Sendable (Record) -> Bool) async {
        await state.waitUntil { predicate($0.record) }
    }

    /// Stops listening and disconnects every client.
    func close() async {
        try? await channel.close()
        for client in clients { try? await client.channel.close() }
    }


    private final class Handler: ChannelInboundHandler {
        typealias InboundIn = ByteBuffer

        let state: Observed<State>
        let onConnect: @Sendable (Client) -> Void

        init(state: Observed<State>, onConnect: @escaping @Sendable (Client) -> Void) {
            self.state = state
            self.onConnect = onConnect
        }

        func channelActive(context: ChannelHandlerContext) {
            let channel = context.channel
            var client: Client?
            state.update { state in
                state.record.connections += 1
                let made = Client(channel: channel, number: state.record.connections)
                state.clients[ObjectIdentifier(channel)] = made
                client = made
            }
            if let client { onConnect(client) }
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            let buffer = unwrapInboundIn(data)
            state.update { state in
                let room = max(0, 1 << 20 - state.record.received.count)
                state.record.received += buffer.readableBytesView.prefix(room)
            }
        }

        func channelInactive(context: ChannelHandlerContext) {
            let id = ObjectIdentifier(context.channel)
            state.update { state in
                state.record.disconnections += 1
                state.clients.removeValue(forKey: id)
            }
        }

        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            state.update { $0.record.errors.append("\(error)") }
            context.close(promise: nil)
        }
    }
}

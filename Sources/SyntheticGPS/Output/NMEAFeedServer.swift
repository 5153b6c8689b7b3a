import NIOCore
import NIOPosix
import NIOConcurrencyHelpers

/// A TCP server that sends the same NMEA stream to every connected client, the way a receiver on a
/// serial-to-TCP bridge does — what `gpsd tcp://HOST:PORT` reads — or the same on a Unix-domain socket
/// (what GeoClue's `--nmea-socket` reads).
///
/// Clients that cannot keep up lose data rather than make the server buffer without bound (a client
/// whose socket is not writable skips the text). Anything clients send is discarded.
public final class NMEAFeedServer: Sendable {
    /// The address the server is bound to (with the actual port when port 0 was asked for).
    public let address: ListenAddress

    private let channel: any Channel
    private let registry: ClientRegistry

    private init(address: ListenAddress, channel: any Channel, registry: ClientRegistry) {
        self.address = address
        self.channel = channel
        self.registry = registry
    }

    /// Binds a server to `address` (use `127.0.0.1` or `::1` unless you mean to serve other machines).
    /// - Throws: ``SyntheticGPSError`` when the address cannot be bound.
    public static func start(
        on address: ListenAddress, group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton
    ) async throws(SyntheticGPSError) -> NMEAFeedServer {
        let registry = ClientRegistry()
        let channel: any Channel
        do {
            let bootstrap = ServerBootstrap(group: group)
                .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
                .childChannelInitializer { child in
                    child.eventLoop.makeCompletedFuture {
                        try child.pipeline.syncOperations.addHandler(ClientHandler(registry: registry))
                    }
                }
            if let path = address.unixSocketPath {
                switch UnixSocketFile.at(path) {
                case .listening: throw SyntheticGPSError.io("cannot listen on \(address): a running server listens there; stop it first, or choose another path")
                case .notASocket: throw SyntheticGPSError.io("cannot listen on \(address): a file that is not a socket is there")
                case .stale, .absent: break
                }
                channel = try await bootstrap.bind(unixDomainSocketPath: path, cleanupExistingSocketFile: true).get()
                return NMEAFeedServer(address: address, channel: channel, registry: registry)
            }
            channel = try await bootstrap.bind(host: address.host, port: address.port).get()
        } catch let error as SyntheticGPSError {
            throw error
        } catch {
            throw .io("cannot listen on \(address): \(error)")
        }
        let port = channel.localAddress?.port ?? address.port
        return NMEAFeedServer(address: ListenAddress(host: address.host, port: port), channel: channel, registry: registry)
    }

    /// How many clients are connected.
    public var clientCount: Int { registry.state.withLockedValue { $0.channels.count } }

    /// Returns once at least one client has connected (immediately if one ever has), or when the
    /// calling task is cancelled.
    public func waitForClient() async {
        let id = registry.state.withLockedValue { state in
            defer { state.nextWaiterID += 1 }
            return state.nextWaiterID
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let ready = registry.state.withLockedValue { state in
                    if state.everConnected || state.cancelledWaiters.remove(id) != nil { return true }
                    state.waiters[id] = continuation
                    return false
                }
                if ready { continuation.resume() }
            }
        } onCancel: {
            let waiter = registry.state.withLockedValue { state in
                guard let waiter = state.waiters.removeValue(forKey: id) else {
                    state.cancelledWaiters.insert(id)
                    return CheckedContinuation<Void, Never>?.none
                }
                return waiter
            }
            waiter?.resume()
        }
    }

    /// Sends `text` to every connected client whose socket can take it now.
    public func broadcast(_ text: String) {
        let targets = registry.state.withLockedValue { Array($0.channels.values) }
        for client in targets {
            let buffer = client.allocator.buffer(string: text)
            client.eventLoop.execute {
                guard client.isWritable else { return }
                client.writeAndFlush(buffer, promise: nil)
            }
        }
    }

    /// Stops listening and disconnects every client. On a Unix-domain socket, the socket file goes with the
    /// listener (NIO removes the path of a Unix server socket it closes).
    public func close() async {
        try? await channel.close()
        let targets = registry.state.withLockedValue { state in
            defer { state.channels.removeAll() }
            return Array(state.channels.values)
        }
        for client in targets { try? await client.close() }
    }
}

/// The connected clients, shared by the server and the handlers of its child channels.
private final class ClientRegistry: Sendable {
    struct State: Sendable {
        var channels: [ObjectIdentifier: any Channel] = [:]
        var waiters: [UInt64: CheckedContinuation<Void, Never>] = [:]
        var cancelledWaiters: Set<UInt64> = []
        var nextWaiterID: UInt64 = 0
        var everConnected = false
    }

    let state = NIOLockedValueBox(State())

    func connected(_ client: any Channel) {
        let waiters = state.withLockedValue { state in
            state.channels[ObjectIdentifier(client)] = client
            state.everConnected = true
            defer { state.waiters.removeAll() }
            return state.waiters
        }
        for waiter in waiters.values { waiter.resume() }
    }

    func disconnected(_ client: any Channel) {
        _ = state.withLockedValue { $0.channels.removeValue(forKey: ObjectIdentifier(client)) }
    }
}

/// Registers a client with the server and discards what it sends.
private final class ClientHandler: ChannelInboundHandler, Sendable {
    typealias InboundIn = ByteBuffer

    private let registry: ClientRegistry

    init(registry: ClientRegistry) {
        self.registry = registry
    }

    func channelActive(context: ChannelHandlerContext) {
        registry.connected(context.channel)
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        registry.disconnected(context.channel)
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {}
}

import LocationEngine
import NIOConcurrencyHelpers
import NIOCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What waits on each connection — `/location` requests, `/updates` and `/geofences/events` streams — cancelled
/// once its client has stopped sending.
///
/// Hummingbird does not cancel a handler whose client has gone, and nothing reads the connection while a `/location`
/// waits: without this, a request whose client disconnected would wait out its timeout, up to a day, the engine
/// working for nobody and the client's place among its open requests (``OpenRequestLimitMiddleware``) held. A stream
/// hears its client close only until the client sends its next request on the connection (Hummingbird then stops
/// watching): a quiet stream would run until shutdown. The server lets a client half-close its side, so a closed
/// input is what a disconnection looks like; a client that half-closes and still waits for its answer has what waits
/// cancelled too. Told by ``ConnectionInputWatcher`` in each connection's pipeline.
final class ConnectionRequests: Sendable {
    /// What waits on one connection, to be ended with ``end(_:)``.
    struct Watch: Sendable {
        fileprivate let connection: ObjectIdentifier
        fileprivate let token: UInt64
    }

    private enum Connection {
        case open([UInt64: @Sendable () -> Void])
        /// The client sent its last byte: what begins to wait now is cancelled at once.
        case inputClosed
    }

    private struct State {
        var connections: [ObjectIdentifier: Connection] = [:]
        var nextToken: UInt64 = 0
    }

    private let state = NIOLockedValueBox(State())
    private let cancel: @Sendable (RequestID) -> Void

    /// Cancels a request with `cancel` when its client stops sending first.
    init(cancel: @escaping @Sendable (RequestID) -> Void) { self.cancel = cancel }

    /// Request `id` waits on `channel` until ``end(_:)``; cancelled if the client stops sending first.
    func began(_ id: RequestID, on channel: any Channel) -> Watch? {
        watch(on: channel) { [cancel] in cancel(id) }
    }

    /// Something waits on `channel` until ``end(_:)``: `cancel` runs if the client stops sending first — at once if it
    /// has stopped already, or when the channel closes if it is no longer active (a client that reset the connection
    /// before its handler ran; a router test's channel, never active, never closes).
    /// - Complexity: O(1) amortised.
    func watch(on channel: any Channel, cancel: @escaping @Sendable () -> Void) -> Watch? {
        let key = ObjectIdentifier(channel)
        enum Outcome { case watched(Watch), cancelNow, whenClosed }
        let outcome = state.withLockedValue { state -> Outcome in
            // Checked under the lock: a channel is inactive before its `channelInactive` removes its entry, so no entry
            // is made for a channel that has gone (one whose identifier a later channel could take).
            guard channel.isActive else { return .whenClosed }
            let token = state.nextToken
            state.nextToken += 1
            switch state.connections[key] {
            case .inputClosed: return .cancelNow
            case .open(var waiting)?:
                waiting[token] = cancel
                state.connections[key] = .open(waiting)
            case nil:
                state.connections[key] = .open([token: cancel])
            }
            return .watched(Watch(connection: key, token: token))
        }
        switch outcome {
        case .watched(let watch): return watch
        case .cancelNow: cancel()
        case .whenClosed: channel.closeFuture.whenComplete { _ in cancel() }
        }
        return nil
    }

    /// What `watch` stood for has ended (answered, or its stream closed).
    /// - Complexity: O(1).
    func end(_ watch: Watch?) {
        guard let watch else { return }
        state.withLockedValue { state in
            guard case .open(var waiting)? = state.connections[watch.connection] else { return }
            waiting[watch.token] = nil
            state.connections[watch.connection] = .open(waiting)
        }
    }

    /// Runs `body` (a stream) until it returns, or until the client of `channel` stops sending: then `body` is
    /// cancelled, and this returns once it has. `body` may write to the stream's writer: it runs as a child task
    /// but does not outlive this call (the pattern of Hummingbird's `consumeWithCancellationOnInboundClose`, which
    /// stops watching once the client sends another request).
    func untilClientLeaves(_ channel: any Channel, _ body: () async throws -> Void) async throws {
        try await withoutActuallyEscaping(body) { body in
            let (left, leaving) = AsyncStream<Void>.makeStream()
            let watch = watch(on: channel) { leaving.finish() }
            defer { end(watch) }
            let operation = NonEscapingOperation(run: body)
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await operation.run() }
                group.addTask {
                    // Ends when the client leaves, or when this is cancelled (the stream ended first).
                    for await _ in left {}
                }
                defer { group.cancelAll() }
                // Whichever ends first: the stream (its error thrown), or the client leaving.
                try await group.next()
            }
        }
    }

    /// A closure that does not escape ``untilClientLeaves(_:_:)`` handed to one of its child tasks, which the group
    /// awaits before the call returns.
    private struct NonEscapingOperation: @unchecked Sendable {
        let run: () async throws -> Void
    }

    /// The client of `channel` sent its last byte: what waits on it is cancelled, and what begins later.
    func inputClosed(_ channel: any Channel) {
        cancelWaiting(on: channel, leaving: .inputClosed)
    }

    /// `channel` closed: what waits on it is cancelled, and its entry goes.
    func closed(_ channel: any Channel) {
        cancelWaiting(on: channel, leaving: nil)
    }

    private func cancelWaiting(on channel: any Channel, leaving: Connection?) {
        let waiting: [@Sendable () -> Void] = state.withLockedValue { state in
            let key = ObjectIdentifier(channel)
            let before = state.connections[key]
            state.connections[key] = leaving
            guard case .open(let waiting)? = before else { return [] }
            return Array(waiting.values)
        }
        for cancel in waiting { cancel() }
    }

    /// What waits on all connections, and the connections known (for tests).
    var counts: (requests: Int, connections: Int) {
        state.withLockedValue { state in
            let requests = state.connections.values.reduce(0) { total, connection in
                if case .open(let waiting) = connection { total + waiting.count } else { total }
            }
            return (requests, state.connections.count)
        }
    }
}

/// Tells ``ConnectionRequests`` when a connection's client stops sending (its input closed, or the connection closed),
/// which the handlers waiting on it do not hear; passes everything on.
///
/// A client whose network vanished without closing (no FIN or RST: a NAT's mapping dropped, a laptop lid shut) sends
/// nothing the server would hear, and a quiet stream writes nothing that could fail: its place would be held until
/// the server stops. So each TCP connection asks the kernel to find such a peer (``vanishedPeerOptions``): keepalive
/// probes once it has been quiet 30 s, 10 s apart, and a connection whose probes or data go unacknowledged for 60 s
/// is closed — the close this handler hears, about a minute and a half after the client went at most.
final class ConnectionInputWatcher: ChannelInboundHandler, RemovableChannelHandler, Sendable {
    typealias InboundIn = Any
    let requests: ConnectionRequests

    init(_ requests: ConnectionRequests) { self.requests = requests }

    /// The socket options that let the kernel find a peer gone without a word: TCP keepalive (`SO_KEEPALIVE`, probes
    /// after 30 s quiet, 10 s apart) and `TCP_USER_TIMEOUT` (60 s unacknowledged closes the connection).
    static let vanishedPeerOptions: [(ChannelOptions.Types.SocketOption, SocketOptionValue)] = {
        var options = [(ChannelOptions.Types.SocketOption(level: .socket, name: .so_keepalive), SocketOptionValue(1))]
        #if os(Linux)
        func tcp(_ name: CInt) -> ChannelOptions.Types.SocketOption { .init(level: .tcp, name: NIOBSDSocket.Option(rawValue: name)) }
        options += [
            (tcp(CInt(TCP_KEEPIDLE)), 30), (tcp(CInt(TCP_KEEPINTVL)), 10), (tcp(CInt(TCP_KEEPCNT)), 3),
            (tcp(CInt(TCP_USER_TIMEOUT)), 60_000),
        ]
        #endif
        return options
    }()

    func handlerAdded(context: ChannelHandlerContext) {
        // A Unix-domain connection takes no TCP option (the kernel tells its peer's end at once): refused, ignored.
        guard let options = context.channel.syncOptions else { return }
        for (option, value) in Self.vanishedPeerOptions { try? options.setOption(option, value: value) }
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case ChannelEvent.inputClosed = event { requests.inputClosed(context.channel) }
        context.fireUserInboundEventTriggered(event)
    }

    func channelInactive(context: ChannelHandlerContext) {
        requests.closed(context.channel)
        context.fireChannelInactive()
    }
}

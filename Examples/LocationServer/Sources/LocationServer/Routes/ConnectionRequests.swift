import LocationEngine
import NIOConcurrencyHelpers
import NIOCore

/// The `/location` requests waiting on each connection, cancelled once their client has stopped sending.
///
/// Hummingbird does not cancel a handler whose client has gone, and nothing reads the connection while a `/location`
/// waits: without this, a request whose client disconnected would wait out its timeout, up to a day, the engine
/// working for nobody and the client's place among its open requests (``OpenRequestLimitMiddleware``) held. The
/// server lets a client half-close its side, so a closed input is what a disconnection looks like; a client that
/// half-closes and still waits for its answer has its `/location` cancelled too (as its streams end). Told by
/// ``ConnectionInputWatcher`` in each connection's pipeline.
final class ConnectionRequests: Sendable {
    private enum Connection {
        case open(Set<RequestID>)
        /// The client sent its last byte: a request that begins now is cancelled at once.
        case inputClosed
    }

    private let connections = NIOLockedValueBox<[ObjectIdentifier: Connection]>([:])
    private let cancel: @Sendable (RequestID) -> Void

    /// Cancels a request with `cancel` when its client stops sending first.
    init(cancel: @escaping @Sendable (RequestID) -> Void) { self.cancel = cancel }

    /// Request `id` waits on `channel` until ``ended(_:on:)``; cancelled if the client stops sending first (at once if it
    /// has stopped already). A channel no longer active is not watched.
    /// - Complexity: O(1) amortised.
    func began(_ id: RequestID, on channel: any Channel) {
        let key = ObjectIdentifier(channel)
        let gone = connections.withLockedValue { connections in
            // Checked under the lock: a channel is inactive before its `channelInactive` removes its entry, so no entry
            // is made for a channel that has gone (one whose identifier a later channel could take). Such a request is
            // not tracked: its answer finds no one, as before this watch (and a router test's channel is never active).
            guard channel.isActive else { return false }
            switch connections[key] {
            case .inputClosed: return true
            case .open(var waiting)?:
                waiting.insert(id)
                connections[key] = .open(waiting)
            case nil:
                connections[key] = .open([id])
            }
            return false
        }
        if gone { cancel(id) }
    }

    /// Request `id` on `channel` has its answer.
    /// - Complexity: O(1).
    func ended(_ id: RequestID, on channel: any Channel) {
        connections.withLockedValue { connections in
            let key = ObjectIdentifier(channel)
            guard case .open(var waiting)? = connections[key] else { return }
            waiting.remove(id)
            connections[key] = .open(waiting)
        }
    }

    /// The client of `channel` sent its last byte: its waiting requests are cancelled, and any it makes later.
    func inputClosed(_ channel: any Channel) {
        cancelWaiting(on: channel, leaving: .inputClosed)
    }

    /// `channel` closed: its waiting requests are cancelled, and its entry goes.
    func closed(_ channel: any Channel) {
        cancelWaiting(on: channel, leaving: nil)
    }

    private func cancelWaiting(on channel: any Channel, leaving: Connection?) {
        let waiting: Set<RequestID> = connections.withLockedValue { connections in
            let key = ObjectIdentifier(channel)
            let before = connections[key]
            connections[key] = leaving
            guard case .open(let waiting)? = before else { return [] }
            return waiting
        }
        for id in waiting { cancel(id) }
    }

    /// The requests waiting on all connections, and the connections known (for tests).
    var counts: (requests: Int, connections: Int) {
        connections.withLockedValue { connections in
            let requests = connections.values.reduce(0) { total, connection in
                if case .open(let waiting) = connection { total + waiting.count } else { total }
            }
            return (requests, connections.count)
        }
    }
}

/// Tells ``ConnectionRequests`` when a connection's client stops sending (its input closed, or the connection closed),
/// which the handlers waiting on it do not hear; passes everything on.
final class ConnectionInputWatcher: ChannelInboundHandler, RemovableChannelHandler, Sendable {
    typealias InboundIn = Any
    let requests: ConnectionRequests

    init(_ requests: ConnectionRequests) { self.requests = requests }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case ChannelEvent.inputClosed = event { requests.inputClosed(context.channel) }
        context.fireUserInboundEventTriggered(event)
    }

    func channelInactive(context: ChannelHandlerContext) {
        requests.closed(context.channel)
        context.fireChannelInactive()
    }
}

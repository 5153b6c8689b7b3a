@_spi(Internals) import LocationEngine
import NIOCore
import NIOPosix

/// Opens TCP client connections to `host:port`.
struct TCPLinkOpener: LinkOpener {
    let host: String
    let port: Int
    /// What the peer is, for messages: `"gpsd"`, `"NMEA feed"`.
    let role: String
    /// How long a connect may take before it counts as failed.
    let connectTimeout: Duration

    var endpointDescription: String {
        let address = host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
        return "\(role) at \(address)"
    }

    /// What to check when the peer cannot be reached.
    let troubleshootingHint: String

    var isFinite: Bool { false }

    func open(on eventLoop: any EventLoop, framing: LinkFraming, events: LinkEvents) -> EventLoopFuture<any StreamLink> {
        // Refused here: NIO converts the port to 16 bits with a trapping conversion.
        guard (0...65_535).contains(port) else {
            return eventLoop.makeFailedFuture(ConnectFailure(description: "port \(port) is not a TCP port (0 to 65535)"))
        }
        return ClientBootstrap(group: eventLoop)
            .connectTimeout(connectTimeout.timeAmount)
            .channelOption(.socketOption(.so_keepalive), value: 1)
            // A connection whose peer vanished without a word (a network drop, a remote gpsd's host powered off)
            // is found out in about 25 s: probes after 10 s of silence, every 5 s, 3 unanswered. The kernel's
            // defaults take over two hours, while requests time out without a `disconnected` to say why.
            .channelOption(Self.keepaliveIdle, value: Self.keepalive.idle)
            .channelOption(Self.keepaliveInterval, value: Self.keepalive.interval)
            .channelOption(Self.keepaliveCount, value: Self.keepalive.count)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try ChannelLink.configure(channel, framing: framing, events: events)
                }
            }
            .connect(host: host, port: port)
            .map { ChannelLink(channel: $0, shutsOutputFirst: true) as any StreamLink }
            .flatMapErrorThrowing { error in throw ConnectFailure(error) }
    }
}

extension TCPLinkOpener {
    /// The keepalive: seconds of silence before the first probe, seconds between probes, probes unanswered.
    static let keepalive: (idle: SocketOptionValue, interval: SocketOptionValue, count: SocketOptionValue) = (10, 5, 3)
    static let keepaliveIdle = ChannelOptions.Types.SocketOption(level: .tcp, name: NIOBSDSocket.Option(rawValue: CInt(TCP_KEEPIDLE)))
    static let keepaliveInterval = ChannelOptions.Types.SocketOption(level: .tcp, name: NIOBSDSocket.Option(rawValue: CInt(TCP_KEEPINTVL)))
    static let keepaliveCount = ChannelOptions.Types.SocketOption(level: .tcp, name: NIOBSDSocket.Option(rawValue: CInt(TCP_KEEPCNT)))
}

/// A failed connect, described by the system's reason alone (NIO wraps it in one entry per address tried).
struct ConnectFailure: Error, CustomStringConvertible {
    let description: String

    init(description: String) {
        self.description = description
    }

    init(_ error: any Error) {
        if let failure = error as? NIOConnectionError {
            let reasons = failure.connectionErrors.map { "\($0.error)" }
            description = reasons.isEmpty ? (failure.dnsAError ?? failure.dnsAAAAError).map { "\($0)" } ?? "\(error)" : Set(reasons).sorted().joined(separator: "; ")
        } else {
            description = "\(error)"
        }
    }
}

extension Duration {
    /// The duration as NIO's `TimeAmount`, clamped to about 292 years either way (the engine's
    /// ``Duration/saturatingNanoseconds``: `components` traps beyond 2⁶³ seconds).
    var timeAmount: TimeAmount { .nanoseconds(saturatingNanoseconds) }
}

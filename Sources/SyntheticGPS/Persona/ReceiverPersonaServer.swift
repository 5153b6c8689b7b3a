import NIOConcurrencyHelpers
import NIOCore
import NIOPosix

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#else
import Darwin
#endif

/// A ``CommandedReceiver`` on a live line, in real time: on a TCP port (what `gpsgen --persona … --listen` serves,
/// every client seeing the same receiver) or on a terminal such as one end of a `socat` pseudo-terminal pair.
///
/// What the host writes is read by the receiver as it arrives, and its replies go back at once to the client that
/// wrote; its NMEA goes to every client, checked every 20 ms. Time zero is when the server starts.
///
/// With ``Timing/manual`` the receiver's time stands still until ``advance(to:)`` moves it (and sends the NMEA due
/// by then): the bytes still cross a real line, but what the receiver does, and when, is deterministic.
public final class ReceiverPersonaServer: Sendable {
    /// How the receiver's time passes.
    public enum Timing: Sendable, Hashable {
        /// Seconds since the server started, the NMEA checked every 20 ms.
        case realTime
        /// Virtual: zero until ``ReceiverPersonaServer/advance(to:)`` moves it, the NMEA sent only then.
        case manual
    }

    /// What happened on the line, for an observer (tests wait on these rather than poll).
    public enum Event: Sendable, Hashable {
        /// The host wrote these bytes.
        case received([UInt8])
        /// The receiver obeyed a command (its log entry).
        case obeyed(String)
        /// The receiver's power phase changed.
        case phase(ReceiverPowerPhase)
    }

    /// A command the receiver obeyed, and when (seconds since the server started).
    public struct ObeyedCommand: Sendable, Hashable {
        /// The receiver's log entry (a PMTK sentence without CR LF, `UBX 06-08 [6 bytes]`, `wake`).
        public var entry: String
        /// When it was obeyed.
        public var elapsed: Double
    }

    private struct State: Sendable {
        var receiver: CommandedReceiver
        var channels: [ObjectIdentifier: any Channel] = [:]
        var lastPhase: ReceiverPowerPhase?
        var commandTimes: [ObeyedCommand] = []
        var repliesDropped = 0
        /// Reply bytes written and not yet sent, over every client.
        var pendingReplyBytes = 0
    }


    private let state: NIOLockedValueBox<State>
    /// The most reply bytes waiting to be sent before further replies are dropped: far above what a client that
    /// reads, however slowly, leaves waiting (a reply is tens of bytes), so only one that never reads loses any.
    static let mostPendingReplyBytes = 1 << 20
    private let origin = NIODeadline.now()
    /// The virtual time, with ``Timing/manual``.
    private let manualTime: NIOLockedValueBox<Double>?
    private let listener: NIOLockedValueBox<(any Channel)?> = NIOLockedValueBox(nil)
    private let ticker: NIOLockedValueBox<RepeatedTask?> = NIOLockedValueBox(nil)
    /// The line, when served on a terminal.
    private let line: NIOLockedValueBox<(any Channel)?> = NIOLockedValueBox(nil)
    /// The TCP address (with the actual port), or `nil` on a terminal.
    public let address: ListenAddress?

    private let observer: (@Sendable (Event) -> Void)?

    private init(receiver: CommandedReceiver, address: ListenAddress?, timing: Timing = .realTime, observer: (@Sendable (Event) -> Void)?) {
        self.state = NIOLockedValueBox(State(receiver: receiver))
        self.address = address
        self.manualTime = timing == .manual ? NIOLockedValueBox(0) : nil
        self.observer = observer
    }

    /// Serves a receiver over TCP on `address` (use `127.0.0.1` unless you mean to serve other machines).
    /// - Throws: ``SyntheticGPSError`` when the address cannot be bound.
    public static func listen(
        on address: ListenAddress, receiver: CommandedReceiver, group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
        observer: (@Sendable (Event) -> Void)? = nil
    ) async throws(SyntheticGPSError) -> ReceiverPersonaServer {
        let holder = NIOLockedValueBox<ReceiverPersonaServer?>(nil)
        let channel: any Channel
        do {
            channel = try await ServerBootstrap(group: group)
                .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
                .childChannelInitializer { child in
                    child.eventLoop.makeCompletedFuture {
                        guard let server = holder.withLockedValue({ $0 }) else { throw ChannelError.ioOnClosedChannel }
                        try child.pipeline.syncOperations.addHandler(PersonaHandler(server: server))
                    }
                }
                .bind(host: address.host, port: address.port)
                .get()
        } catch {
            throw .io("cannot listen on \(address): \(error)")
        }
        let bound = ListenAddress(host: address.host, port: channel.localAddress?.port ?? address.port)
        let server = ReceiverPersonaServer(receiver: receiver, address: bound, observer: observer)
        holder.withLockedValue { $0 = server }
        server.listener.withLockedValue { $0 = channel }
        server.startTicking(on: channel.eventLoop)
        return server
    }

    /// Serves a receiver on the terminal (or FIFO) at `path`, opened read-write and set to raw mode, its time
    /// passing as `timing` says.
    /// - Throws: ``SyntheticGPSError`` when it cannot be opened.
    public static func attach(
        terminal path: String, receiver: CommandedReceiver, group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
        timing: Timing = .realTime, observer: (@Sendable (Event) -> Void)? = nil
    ) async throws(SyntheticGPSError) -> ReceiverPersonaServer {
        let descriptor = open(path, O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else { throw .io("cannot open \(path): \(String(cString: strerror(errno)))") }
        // Only what the event loop can watch: a character device other than a terminal (`/dev/null`, `/dev/zero`)
        // or a regular file is refused by epoll, which NIO's pipe channel treats as a programming error and traps.
        // (A socket's path cannot be opened at all.)
        var status = stat()
        let kind = fstat(descriptor, &status) == 0 ? status.st_mode & S_IFMT : 0
        guard isatty(descriptor) == 1 || kind == S_IFIFO else {
            closeFileDescriptor(descriptor)
            throw .io("cannot serve on \(path): it is not a terminal or a FIFO")
        }
        if isatty(descriptor) == 1 {
            var attributes = termios()
            if tcgetattr(descriptor, &attributes) == 0 {
                cfmakeraw(&attributes)
                _ = tcsetattr(descriptor, TCSANOW, &attributes)
            }
        }
        let server = ReceiverPersonaServer(receiver: receiver, address: nil, timing: timing, observer: observer)
        let channel: any Channel
        do {
            channel = try await NIOPipeBootstrap(group: group)
                .channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(PersonaHandler(server: server)) }
                }
                .takingOwnershipOfDescriptor(inputOutput: descriptor)
                .get()
        } catch {
            closeFileDescriptor(descriptor)
            throw .io("cannot read \(path): \(error)")
        }
        server.registered(channel)
        server.line.withLockedValue { $0 = channel }
        if timing == .realTime { server.startTicking(on: channel.eventLoop) }
        return server
    }

    /// The receiver's energy meter now.
    public var meter: ReceiverEnergyMeter { withReceiver { $0.meter } }

    /// How many times a client's replies were lost because it was not reading (its connection's buffer full): one
    /// for each chunk of commands read whose replies were dropped.
    public var repliesDropped: Int { state.withLockedValue { $0.repliesDropped } }
    /// What the receiver is doing now.
    public var phase: ReceiverPowerPhase { withReceiver { $0.phase } }
    /// The commands the receiver obeyed, newest last.
    public var commandLog: [String] { state.withLockedValue { $0.receiver.log } }
    /// The commands obeyed (the last 64) with when they were.
    public var commandTimes: [ObeyedCommand] { state.withLockedValue { $0.commandTimes } }
    /// Seconds since the server started (with ``Timing/manual``, the virtual time).
    public var elapsed: Double {
        if let manualTime { return manualTime.withLockedValue { $0 } }
        return Double((NIODeadline.now() - origin).nanoseconds) / 1e9
    }

    /// With ``Timing/manual``: moves the receiver's time to `elapsed` seconds (earlier times are ignored) and sends
    /// the NMEA due by then, returning the bytes written to every client.
    /// - Precondition: the server was attached with ``Timing/manual``.
    @discardableResult
    public func advance(to elapsed: Double) -> [UInt8] {
        guard let manualTime else { preconditionFailure("ReceiverPersonaServer.advance(to:) needs Timing.manual; this server runs in real time") }
        manualTime.withLockedValue { $0 = max($0, elapsed) }
        return tick()
    }

    /// Changes how commands are answered from now on.
    public func setAcknowledgements(_ behavior: AcknowledgementBehavior) {
        state.withLockedValue { $0.receiver.acknowledgements = behavior }
    }

    /// Runs `body` on the receiver brought up to now.
    public func withReceiver<T>(_ body: (CommandedReceiver) -> T) -> T {
        let now = elapsed
        return state.withLockedValue { state in
            _ = state.receiver.receive([], at: now)
            return body(state.receiver)
        }
    }

    /// Disconnects every client and keeps serving, as a serial-to-network bridge that restarts does: the
    /// receiver runs on, and a client that connects again finds it as it was.
    public func disconnectClients() async { await closeClients(forgetting: false) }

    /// On a terminal: returns once the line is gone — the host closed its end (a pseudo-terminal's other side, a
    /// serial adapter unplugged) or ``close()`` closed it. Over TCP, where clients come and go, it returns at once.
    /// Returns early when the calling task is cancelled.
    public func lineClosed() async {
        guard let line = line.withLockedValue({ $0 }) else { return }
        // A stream, not `closeFuture.get()`: awaiting a future ignores cancellation, and a caller racing the line
        // against its own deadline could then never finish.
        let (closed, finish) = AsyncStream<Void>.makeStream()
        line.closeFuture.whenComplete { _ in finish.finish() }
        for await _ in closed {}
    }

    /// Stops serving and disconnects every client (on a terminal, closes it: the host sees the line drop).
    public func close() async {
        ticker.withLockedValue { $0?.cancel() }
        try? await listener.withLockedValue({ $0 })?.close()
        await closeClients(forgetting: true)
    }

    /// Closes every client's channel; `forgetting` them, when the server stops serving.
    private func closeClients(forgetting: Bool) async {
        let channels = state.withLockedValue { state in
            defer { if forgetting { state.channels.removeAll() } }
            return Array(state.channels.values)
        }
        for channel in channels { try? await channel.close() }
    }

    private func startTicking(on eventLoop: any EventLoop) {
        let task = eventLoop.scheduleRepeatedTask(initialDelay: .zero, delay: .milliseconds(20)) { [weak self] _ in
            self?.tick()
        }
        ticker.withLockedValue { $0 = task }
    }

    @discardableResult
    private func tick() -> [UInt8] {
        let now = elapsed
        let (bytes, channels, events) = state.withLockedValue { state in
            let before = state.receiver.logCount
            let bytes = state.receiver.output(through: now)
            return (bytes, Array(state.channels.values), changes(&state, since: before))
        }
        for event in events { observer?(event) }
        guard !bytes.isEmpty else { return bytes }
        for channel in channels where channel.isWritable {
            channel.writeAndFlush(channel.allocator.buffer(bytes: bytes), promise: nil)
        }
        return bytes
    }

    /// The commands obeyed since the log held `before` entries, and the phase if it changed.
    private func changes(_ state: inout State, since before: Int) -> [Event] {
        guard observer != nil else { return [] }
        let added = min(state.receiver.logCount - before, state.receiver.log.count)
        var events = state.receiver.log.suffix(added).map { Event.obeyed($0) }
        let phase = state.receiver.phase
        if phase != state.lastPhase {
            state.lastPhase = phase
            events.append(.phase(phase))
        }
        return events
    }

    fileprivate func registered(_ channel: any Channel) {
        state.withLockedValue { $0.channels[ObjectIdentifier(channel)] = channel }
    }

    fileprivate func unregistered(_ channel: any Channel) {
        _ = state.withLockedValue { $0.channels.removeValue(forKey: ObjectIdentifier(channel)) }
    }

    fileprivate func received(_ bytes: [UInt8], from channel: any Channel) {
        let now = elapsed
        let (replies, events) = state.withLockedValue { state in
            let before = state.receiver.logCount
            let replies = state.receiver.receive(bytes, at: now)
            let added = min(state.receiver.logCount - before, state.receiver.log.count)
            state.commandTimes += state.receiver.log.suffix(added).map { ObeyedCommand(entry: $0, elapsed: now) }
            if state.commandTimes.count > 64 { state.commandTimes.removeFirst(state.commandTimes.count - 64) }
            return (replies, [.received(bytes)] + changes(&state, since: before))
        }
        for event in events { observer?(event) }
        // A client that sends commands and never reads loses their replies, as a receiver's full UART buffer
        // does, rather than having them queued without bound.
        guard !replies.isEmpty else { return }
        let size = replies.count
        let taken: Bool = state.withLockedValue { state in
            guard state.pendingReplyBytes + size <= Self.mostPendingReplyBytes else {
                state.repliesDropped += 1
                return false
            }
            state.pendingReplyBytes += size
            return true
        }
        guard taken else { return }
        let sent = channel.eventLoop.makePromise(of: Void.self)
        sent.futureResult.whenComplete { [state] _ in state.withLockedValue { $0.pendingReplyBytes -= size } }
        channel.writeAndFlush(channel.allocator.buffer(bytes: replies), promise: sent)
    }
}

/// Hands what a client writes to the receiver, and registers the client for the NMEA.
private final class PersonaHandler: ChannelInboundHandler, Sendable {
    typealias InboundIn = ByteBuffer

    private let server: ReceiverPersonaServer

    init(server: ReceiverPersonaServer) {
        self.server = server
    }

    func channelActive(context: ChannelHandlerContext) {
        server.registered(context.channel)
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        server.unregistered(context.channel)
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let buffer = unwrapInboundIn(data)
        server.received(Array(buffer.readableBytesView), from: context.channel)
    }
}

/// `close(2)`, at file scope so that the name is not taken for the server's `close()`.
private func closeFileDescriptor(_ descriptor: CInt) {
    _ = close(descriptor)
}

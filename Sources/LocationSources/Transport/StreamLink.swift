import NIOCore

/// What a link delivers to its reader.
enum LinkInput: Sendable {
    /// Raw bytes, as they arrived.
    case bytes(ByteBuffer)
    /// One line without its terminator (for links opened with ``LinkFraming/lines(maximumLength:)``).
    case line(ByteBuffer)
    /// A line over the length bound was dropped.
    case oversizedLine(byteCount: Int)
}

/// How a link cuts its input before delivering it.
enum LinkFraming: Sendable, Hashable {
    /// Chunks as they arrive.
    case bytes
    /// Lines of at most `maximumLength` bytes; longer ones are dropped and reported.
    case lines(maximumLength: Int)
}

/// Where one open link reports, bound to that link's attempt by ``ReconnectingLink``.
struct LinkEvents: Sendable {
    /// Input arrived. The reader may return a future to delay the next read until it completes
    /// (a paced replay of a file or a named pipe does): a file link reads its next chunk, a channel link
    /// (a pipe) asks its channel to read, only then.
    let received: @Sendable (LinkInput) -> EventLoopFuture<Void>?
    /// The link ended: `error` is `nil` for a clean end of stream.
    let closed: @Sendable ((any Error)?) -> Void
    /// The peer sent its first bytes, before any framing: a line-framed link tells so before a whole line has
    /// come (a peer whose bytes never make one — a login banner, another protocol's binary — answered all the
    /// same, and is not taken for a silent one).
    var heard: @Sendable () -> Void = {}
}

/// One open connection, device or file.
protocol StreamLink: Sendable {
    /// Writes `bytes` to the peer (a no-op for read-only links); `failed` is called if the write fails
    /// (the link closed under it).
    func send(_ bytes: ByteBuffer, failed: (@Sendable (any Error) -> Void)?)
    /// Closes the link, after writing `farewell` when given. Idempotent. ``LinkEvents/closed`` follows.
    func close(farewell: ByteBuffer?)
}

/// Opens links to one endpoint.
protocol LinkOpener: Sendable {
    /// What the links lead to, for messages: `"gpsd at 127.0.0.1:2947"`, `"serial device /dev/ttyUSB0"`.
    var endpointDescription: String { get }
    /// What to check when the endpoint cannot be reached, for the fatal error's message.
    var troubleshootingHint: String { get }
    /// Whether the end of a successfully read stream is final (a file) rather than a connection loss.
    var isFinite: Bool { get }
    /// Opens one link on `eventLoop`, cutting input by `framing` and reporting to `events`.
    func open(on eventLoop: any EventLoop, framing: LinkFraming, events: LinkEvents) -> EventLoopFuture<any StreamLink>
}

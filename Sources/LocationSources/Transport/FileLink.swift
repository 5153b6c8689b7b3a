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

/// Opens a recorded log file for replay.
struct FileLinkOpener: LinkOpener {
    let path: String
    let threadPool: NIOThreadPool

    var endpointDescription: String { "NMEA log \(path)" }
    var troubleshootingHint: String { "check that \(path) exists and is readable" }
    var isFinite: Bool { true }

    /// Opens without blocking: a named pipe with no writer would otherwise block the caller (and the event
    /// loop, on a retry) in `open` until one came. A regular file, or a device the poller cannot watch
    /// (`/dev/null`), is read on the thread pool; anything else (a named pipe, a terminal) through NIO's pipe
    /// channel, as standard input is. A directory is refused.
    func open(on eventLoop: any EventLoop, framing: LinkFraming, events: LinkEvents) -> EventLoopFuture<any StreamLink> {
        let descriptor = openDescriptor(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard descriptor >= 0 else { return eventLoop.makeFailedFuture(DeviceOpenError.openFile(path, errno: errno)) }
        var status = stat()
        let type = fstat(descriptor, &status) == 0 ? status.st_mode & S_IFMT : 0
        if type == S_IFDIR {
            closeDescriptor(descriptor)
            return eventLoop.makeFailedFuture(DeviceOpenError.openFile(path, errno: EISDIR))
        }
        guard type == S_IFREG || !Pollability.canPoll(descriptor) else {
            return PipeLink.open(descriptor: descriptor, writable: false, on: eventLoop, framing: framing, events: events)
        }
        let flags = fcntl(descriptor, F_GETFL)
        if flags >= 0 { _ = fcntl(descriptor, F_SETFL, flags & ~O_NONBLOCK) }
        return eventLoop.makeSucceededFuture(
            FileLink.start(descriptor: descriptor, threadPool: threadPool, eventLoop: eventLoop, events: events))
    }
}

/// Reads a regular file in chunks with blocking reads on a thread pool (epoll cannot poll regular
/// files), handing each chunk to the reader on the event loop and waiting for the future the reader
/// returns (a paced replay) before reading on. Memory stays at one chunk in flight.
final class FileLink: StreamLink {
    /// Bytes per read.
    static let chunkSize = 4096

    private struct State {
        var closeRequested = false
        var ended = false
        /// A blocking read is on the thread pool: the descriptor is closed once it is back, never under it
        /// (its number could be reused by then).
        var reading = false
        var descriptorClosed = false

        /// Whether the caller should close the descriptor now: asked to, no read in flight, and not closed yet.
        mutating func takeClose() -> Bool {
            guard closeRequested, !reading, !descriptorClosed else { return false }
            descriptorClosed = true
            return true
        }
    }

    private let descriptor: CInt
    private let threadPool: NIOThreadPool
    private let eventLoop: any EventLoop
    private let events: LinkEvents
    private let state = NIOLockedValueBox(State())

    private init(descriptor: CInt, threadPool: NIOThreadPool, eventLoop: any EventLoop, events: LinkEvents) {
        self.descriptor = descriptor
        self.threadPool = threadPool
        self.eventLoop = eventLoop
        self.events = events
    }

    /// Takes ownership of `descriptor` and starts reading it.
    static func start(descriptor: CInt, threadPool: NIOThreadPool, eventLoop: any EventLoop, events: LinkEvents) -> FileLink {
        let link = FileLink(descriptor: descriptor, threadPool: threadPool, eventLoop: eventLoop, events: events)
        eventLoop.execute { link.readNext() }
        return link
    }

    func send(_ bytes: ByteBuffer, failed: (@Sendable (any Error) -> Void)?) {}

    /// Stops reading. The descriptor is closed at once, or when the read in flight is back: not when a paced
    /// replay has delivered what was read (up to a chunk's worth of recorded time later).
    func close(farewell: ByteBuffer?) {
        closeOnce()
        end(nil)
    }

    /// Stops reading and closes the descriptor, unless a read is in flight (then once it is back) or it is
    /// closed already.
    private func closeOnce() {
        if state.withLockedValue({ state in
            state.closeRequested = true
            return state.takeClose()
        }) {
            closeDescriptor(descriptor)
        }
    }

    private func readNext() {
        let closing = state.withLockedValue { state in
            if !state.closeRequested { state.reading = true }
            return state.closeRequested
        }
        guard !closing else {
            closeOnce()
            return
        }
        let descriptor = self.descriptor
        threadPool.runIfActive(eventLoop: eventLoop) { () throws -> ByteBuffer in
            var buffer = ByteBufferAllocator().buffer(capacity: Self.chunkSize)
            let count = try buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: Self.chunkSize) { pointer in
                while true {
                    let result = read(descriptor, pointer.baseAddress, pointer.count)
                    if result >= 0 { return result }
                    if errno != EINTR { throw IOError(errnoCode: errno, reason: "read") }
                }
            }
            _ = count
            return buffer
        }.whenComplete { result in
            let closing = self.state.withLockedValue { state in
                state.reading = false
                return state.closeRequested
            }
            switch result {
            case _ where closing:
                // Closed while reading: what was read is not handed on.
                self.closeOnce()
            case .success(let buffer) where buffer.readableBytes == 0:
                self.end(nil)
                self.closeOnce()
            case .success(let buffer):
                if let wait = self.events.received(.bytes(buffer)) {
                    wait.whenComplete { _ in self.readNext() }
                } else {
                    self.readNext()
                }
            case .failure(let error):
                self.end(error)
                self.closeOnce()
            }
        }
    }

    private func end(_ error: (any Error)?) {
        let first = state.withLockedValue { state in
            defer { state.ended = true }
            return !state.ended
        }
        if first { events.closed(error) }
    }
}

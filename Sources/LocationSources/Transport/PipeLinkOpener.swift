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

/// Opens a serial device (or a named pipe) and reads it through NIO's pipe channel.
struct SerialLinkOpener: LinkOpener {
    let path: String
    let baudRate: Int

    var endpointDescription: String { "serial device \(path)" }
    var troubleshootingHint: String {
        "check that the receiver is plugged in, that \(path) exists and that the user may read it (the dialout group)"
    }
    var isFinite: Bool { false }

    func open(on eventLoop: any EventLoop, framing: LinkFraming, events: LinkEvents) -> EventLoopFuture<any StreamLink> {
        let descriptor: CInt
        do {
            descriptor = try SerialPort.open(path: path, baudRate: baudRate)
        } catch {
            return eventLoop.makeFailedFuture(error)
        }
        // Read-write: a commanded receiver is written to (see ReceiverControlConfiguration).
        return PipeLink.open(descriptor: descriptor, writable: true, on: eventLoop, framing: framing, events: events)
    }
}

/// Opens the process's standard input: a pipe or terminal through NIO's pipe channel, a redirected
/// regular file (or a device the poller cannot watch, as `< /dev/null`) by plain reads on the thread pool. The
/// descriptor is duplicated, so closing the link leaves the process's standard input open; the pipe channel
/// needs it non-blocking, a flag the duplicate shares with it, so a blocking standard input is made blocking
/// again once the link is closed (a terminal left non-blocking fails the next program's reads with `EAGAIN`).
struct StandardInputLinkOpener: LinkOpener {
    let threadPool: NIOThreadPool

    var endpointDescription: String { "standard input" }
    var troubleshootingHint: String { "check what is piped into the program" }
    var isFinite: Bool { true }

    func open(on eventLoop: any EventLoop, framing: LinkFraming, events: LinkEvents) -> EventLoopFuture<any StreamLink> {
        let descriptor = dup(STDIN_FILENO)
        guard descriptor >= 0 else { return eventLoop.makeFailedFuture(DeviceOpenError.duplicate(errno: errno)) }
        var status = stat()
        if fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG || !Pollability.canPoll(descriptor) {
            return eventLoop.makeSucceededFuture(
                FileLink.start(descriptor: descriptor, threadPool: threadPool, eventLoop: eventLoop, events: events))
        }
        let flags = fcntl(descriptor, F_GETFL)
        Self.pipeLinks.withLockedValue { links in
            if links.open == 0 { links.wasBlocking = flags >= 0 && flags & O_NONBLOCK == 0 }
            links.open += 1
        }
        if flags >= 0 { _ = fcntl(descriptor, F_SETFL, flags | O_NONBLOCK) }
        return PipeLink.open(descriptor: descriptor, writable: false, on: eventLoop, framing: framing, events: events) {
            let restore = Self.pipeLinks.withLockedValue { links in
                links.open -= 1
                return links.open == 0 && links.wasBlocking
            }
            guard restore else { return }
            let now = fcntl(STDIN_FILENO, F_GETFL)
            if now >= 0 { _ = fcntl(STDIN_FILENO, F_SETFL, now & ~O_NONBLOCK) }
        }
    }

    /// Standard input's links through the pipe channel open in the process, and whether it was blocking before the
    /// first: the flag is the open file's, shared by every duplicate, so it is restored only as the last closes (a
    /// stop then a start would otherwise have the old link's close make the new one's descriptor blocking, and
    /// its reads stall the event loop).
    private static let pipeLinks = NIOLockedValueBox<(open: Int, wasBlocking: Bool)>((0, false))
}

/// Links over a file descriptor NIO can poll (a terminal, a pipe, a FIFO).
enum PipeLink {
    /// Hands `descriptor` to a NIO pipe channel (which then owns it), or closes it if that fails. A `writable`
    /// descriptor (a serial device) is read and written; otherwise it is only read. `closed` runs once the
    /// descriptor is closed, either way.
    static func open(
        descriptor: CInt, writable: Bool, on eventLoop: any EventLoop, framing: LinkFraming, events: LinkEvents,
        closed: (@Sendable () -> Void)? = nil
    ) -> EventLoopFuture<any StreamLink> {
        let bootstrap = NIOPipeBootstrap(group: eventLoop)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try ChannelLink.configure(channel, framing: framing, events: events)
                }
            }
        let channel = writable ? bootstrap.takingOwnershipOfDescriptor(inputOutput: descriptor) : bootstrap.takingOwnershipOfDescriptor(input: descriptor)
        return channel
            .map { channel in
                if let closed { channel.closeFuture.whenComplete { _ in closed() } }
                return ChannelLink(channel: channel) as any StreamLink
            }
            .flatMapErrorThrowing { error in
                closeDescriptor(descriptor)
                closed?()
                throw error
            }
    }
}

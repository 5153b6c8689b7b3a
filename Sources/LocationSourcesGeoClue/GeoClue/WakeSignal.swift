#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A wake-up the GeoClue worker thread can wait on beside its bus connection: a pipe that the engine's side
/// makes readable (``signal()``) when it asks something of the thread (a start, a new mode, a stop, the end of
/// the source's run), so that the thread sleeps in `poll(2)` until the bus or the engine has news instead of
/// waking on a timer to look.
///
/// Written by hand because it is a single descriptor `poll(2)` must see beside libdbus's socket: swift-nio's
/// event loops wake themselves the same way but own the descriptors they watch, and libdbus owns its socket.
/// A pipe rather than an `eventfd`, which the Swift Glibc module does not export.
final class WakeSignal: Sendable {
    /// The pipe's read end (non-blocking, closed on exec): readable while signalled and not yet drained.
    let descriptor: Int32
    /// The pipe's write end (non-blocking: a full pipe is still readable, so a signal is never lost).
    private let writeEnd: Int32

    /// A new wake-up, not signalled.
    /// - Precondition: the process can open two more descriptors.
    init() {
        var ends: [Int32] = [-1, -1]
        precondition(pipe(&ends) == 0, "pipe failed (errno \(errno)): the process is out of file descriptors")
        for end in ends {
            _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
        }
        descriptor = ends[0]
        writeEnd = ends[1]
    }

    deinit {
        close(descriptor)
        close(writeEnd)
    }

    /// Makes the descriptor readable, waking a thread that waits on it (now or at its next wait).
    func signal() {
        var byte: UInt8 = 1
        _ = write(writeEnd, &byte, 1)
    }

    /// Clears the signal: the next wait sleeps until the next ``signal()``. Drain before looking at what was
    /// asked, never after, so that a signal between the look and the wait still wakes the wait.
    func drain() {
        var bytes = (UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0))
        while withUnsafeMutableBytes(of: &bytes, { read(descriptor, $0.baseAddress, $0.count) }) > 0 {}
    }

    /// Waits until the signal is set or `timeout` has passed (`nil`: no limit); returns whether it was set
    /// (and drains it).
    @discardableResult
    func wait(timeout: Duration?) -> Bool {
        var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        let ready = Self.waitForEvents(&entry, count: 1, timeout: timeout)
        guard ready > 0 else { return false }
        drain()
        return true
    }

    /// `poll(2)` on `count` entries for at most `timeout` (`nil`: no limit), restarted when a signal
    /// interrupts it; returns the number of entries with events, 0 when the time ran out.
    static func waitForEvents(_ entries: UnsafeMutablePointer<pollfd>, count: Int, timeout: Duration?) -> Int32 {
        let deadline = timeout.map { ContinuousClock.now + $0 }
        while true {
            let milliseconds = deadline.map { Self.milliseconds(ContinuousClock.now.duration(to: $0)) } ?? -1
            let ready = poll(entries, nfds_t(count), milliseconds)
            if ready >= 0 { return ready }
            guard errno == EINTR else { return 0 }
        }
    }

    /// `duration` in whole milliseconds for `poll(2)`, rounded up so that a wait never ends early; 0 when it
    /// has passed.
    static func milliseconds(_ duration: Duration) -> Int32 {
        guard duration > .zero else { return 0 }
        let (seconds, attoseconds) = duration.components
        // Beyond Int32's milliseconds (24.8 days) before the product could overflow Int64.
        guard seconds < Int64(Int32.max) / 1000 else { return .max }
        return Int32(clamping: seconds * 1000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000)
    }
}

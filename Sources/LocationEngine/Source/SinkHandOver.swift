#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import NIOConcurrencyHelpers

/// A source's hand-over of what it reads to its sink, as one step with the check that the run it belongs to is
/// still the current one: a stop (or a change that makes a reading another run's) waits for a hand-over in
/// progress, so that nothing of a run reaches the sink, or is counted as delivered, after the stop returns.
///
/// A source calls ``deliver(_:)`` around the check and the sink's call, from whatever thread reads (an event
/// loop, a worker), and ``awaitIdle()`` once its stop has made the run stale. A stop from inside a hand-over —
/// a sink that stops the source, on the delivering thread — does not wait for itself, and a hand-over nested in
/// another on one thread (a reading handed over in pieces) is part of it.
///
/// Written here rather than taken from NIO: its locks are not reentrant, and a sink may stop its source.
package final class SinkHandOver: Sendable {
    private let lock = NIOLock()
    /// The thread handing over, while one is (``currentThread``).
    private let deliverer = NIOLockedValueBox<UInt?>(nil)

    package init() {}

    /// The calling thread, as a number unique among the threads alive: `pthread_t` is one on Linux, a pointer
    /// on Darwin.
    private static var currentThread: UInt {
        #if canImport(Darwin)
        UInt(bitPattern: pthread_self())
        #else
        UInt(pthread_self())
        #endif
    }

    /// Whether the calling thread is handing over.
    private var isDelivering: Bool { deliverer.withLockedValue { $0 } == Self.currentThread }

    /// Runs `body` (the check that the run is current, and the sink's call) as one hand-over.
    package func deliver<Result>(_ body: () throws -> Result) rethrows -> Result {
        if isDelivering { return try body() }
        return try lock.withLock {
            deliverer.withLockedValue { $0 = Self.currentThread }
            defer { deliverer.withLockedValue { $0 = nil } }
            return try body()
        }
    }

    /// Returns once no hand-over is in progress, unless called from inside one.
    package func awaitIdle() {
        if isDelivering { return }
        lock.withLock {}
    }
}

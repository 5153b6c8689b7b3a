import HeapModule
import NIOConcurrencyHelpers

/// A `Clock` whose time moves only when a test says so, for deterministic tests of code that sleeps.
///
/// Written here rather than taken from pointfreeco's swift-clocks because tests of the engine need
/// `advance` to be synchronous and to report exactly which sleepers it woke; `TestClock.advance` is
/// `async` and yields to the scheduler an unspecified number of times.
public final class ManualClock: Clock, Sendable {
    /// A point on the manual timeline.
    public struct Instant: InstantProtocol, Sendable, Hashable {
        /// Time since the clock's epoch.
        public var offset: Duration

        /// Creates an instant `offset` after the epoch.
        public init(offset: Duration) { self.offset = offset }

        public func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        public func duration(to other: Instant) -> Duration { other.offset - offset }
        public static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
    }

    private struct Sleeper {
        var deadline: Instant
        var continuation: CheckedContinuation<Void, any Error>
    }

    /// A sleeper's place in the wake-up order: by deadline, then by when it went to sleep.
    private struct Wake: Comparable {
        var deadline: Instant
        var id: UInt64
        static func < (lhs: Wake, rhs: Wake) -> Bool { (lhs.deadline, lhs.id) < (rhs.deadline, rhs.id) }
    }

    private struct State {
        var now = Instant(offset: .zero)
        var sleepers: [UInt64: Sleeper] = [:]
        /// Every sleeper's wake-up, earliest first; entries of cancelled sleepers stay until they surface.
        var wakes = Heap<Wake>()
        var cancelledBeforeSleeping: Set<UInt64> = []
        var nextSleeperID: UInt64 = 0
    }

    private let state = NIOLockedValueBox(State())

    /// Creates a clock at its epoch.
    public init() {}

    public var now: Instant { state.withLockedValue { $0.now } }

    public var minimumResolution: Duration { .zero }

    /// The number of tasks sleeping on this clock.
    public var sleeperCount: Int { state.withLockedValue { $0.sleepers.count } }

    public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        let id = state.withLockedValue { state in
            defer { state.nextSleeperID += 1 }
            return state.nextSleeperID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                enum Outcome { case wait, wake, cancelled }
                let outcome: Outcome = state.withLockedValue { state in
                    if state.cancelledBeforeSleeping.remove(id) != nil { return .cancelled }
                    if deadline <= state.now { return .wake }
                    state.sleepers[id] = Sleeper(deadline: deadline, continuation: continuation)
                    state.wakes.insert(Wake(deadline: deadline, id: id))
                    return .wait
                }
                switch outcome {
                case .wait: break
                case .wake: continuation.resume()
                case .cancelled: continuation.resume(throwing: CancellationError())
                }
            }
        } onCancel: {
            let sleeper = state.withLockedValue { state -> Sleeper? in
                if let sleeper = state.sleepers.removeValue(forKey: id) { return sleeper }
                state.cancelledBeforeSleeping.insert(id)
                return nil
            }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Moves time forward by `duration` and wakes every sleeper now due. Returns how many it woke.
    @discardableResult
    public func advance(by duration: Duration) -> Int {
        precondition(duration >= .zero, "ManualClock.advance(by: \(duration)): time cannot run backwards")
        return advance(to: now.advanced(by: duration))
    }

    /// Moves time forward to `instant` (no-op if it is in the past) and wakes every sleeper now due,
    /// earliest deadline first.
    /// - Complexity: O(k log n) for k sleepers due (and cancelled ones passed over) out of n.
    @discardableResult
    public func advance(to instant: Instant) -> Int {
        let due = state.withLockedValue { state -> [Sleeper] in
            if instant > state.now { state.now = instant }
            var due: [Sleeper] = []
            while let first = state.wakes.min, first.deadline <= state.now {
                state.wakes.removeMin()
                if let sleeper = state.sleepers.removeValue(forKey: first.id) { due.append(sleeper) }
            }
            return due
        }
        for sleeper in due { sleeper.continuation.resume() }
        return due.count
    }
}

import DequeModule
import NIOConcurrencyHelpers

/// A task executor that runs nothing by itself: the thread that owns it runs its jobs with
/// ``runUntilIdle(jobLimit:)``, in the order they were enqueued, and counts them.
///
/// Give every task of a test or a probe this executor as its preference (`Task(executorPreference:)`;
/// child tasks inherit it) and the engine — a default actor, which runs its code on its callers'
/// preferred executor — runs on that one thread too: one job after another, the same jobs in the same
/// order on every machine and under any load. A job is one hand-off, a task resumed after it suspended
/// (a parked loop woken by a command, a timer's sleeper by the clock, a caller by its result): what a
/// context switch costs on a real executor. Jobs must only be enqueued by tasks of this executor or by
/// the owning thread (a manual clock's `advance`, a scripted source's `emit`).
///
/// ```swift
/// let executor = SerialTaskExecutor()
/// let lifetime = Task(executorPreference: executor) { try await engine.run() }
/// executor.runUntilIdle()                 // the engine's loop has parked
/// engine.location(accuracy: .block, timeout: .seconds(5)) { result in … }
/// executor.runUntilIdle()                 // processed; `executor.jobsRun` says at what cost
/// ```
///
/// Written here because swift-nio's manual task executor (in NIOTestUtils) is package-internal.
public final class SerialTaskExecutor: TaskExecutor {
    private let jobs = NIOLockedValueBox(Deque<UnownedJob>())
    /// Jobs run so far. Read it on the thread that runs the jobs, as ``runUntilIdle(jobLimit:)`` is called.
    public private(set) var jobsRun = 0

    /// An executor with no jobs.
    public init() {}

    public func enqueue(_ job: UnownedJob) {
        jobs.withLockedValue { $0.append(job) }
    }

    /// Runs jobs, those they enqueue included, until none is left — every task on this executor has then
    /// suspended or finished — or until `jobLimit` jobs have run. Returns whether none is left (`false`:
    /// the tasks keep handing work to each other, a spin). Call it from the owning thread only.
    @discardableResult
    public func runUntilIdle(jobLimit: Int = .max) -> Bool {
        var run = 0
        while run < jobLimit, let job = jobs.withLockedValue({ $0.popFirst() }) {
            run += 1
            jobsRun += 1
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
        return jobs.withLockedValue { $0.isEmpty }
    }
}

// `jobsRun` is read and written by the owning thread only (`runUntilIdle(jobLimit:)`, which runs every job
// on that thread); from other threads only `enqueue(_:)` is called, and the queue it touches is behind a lock.
extension SerialTaskExecutor: @unchecked Sendable {}

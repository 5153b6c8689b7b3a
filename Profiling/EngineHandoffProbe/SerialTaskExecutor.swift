import DequeModule
import NIOConcurrencyHelpers

/// A task executor that runs nothing by itself: the probe's one thread runs its jobs with
/// ``runUntilIdle()``, in the order they were enqueued, and counts them.
///
/// Every task of the probe prefers it (the engine's `run()` and the children it starts, the tasks that
/// await results), and the engine, a default actor, runs its code on its callers' preferred executor: so
/// everything happens on one thread, one job after another, and the same workload takes the same jobs on
/// every machine, however loaded. A job is one hand-off — a task resumed after it suspended (a parked
/// loop woken by a command, a timer's sleeper by the clock, a caller by its result) — the thing a
/// context switch costs on a real executor.
///
/// Written here because swift-nio's manual task executor (NIOTestUtils) is package-internal.
final class SerialTaskExecutor: TaskExecutor {
    private let jobs = NIOLockedValueBox(Deque<UnownedJob>())
    /// Jobs run so far.
    private(set) var jobsRun = 0

    func enqueue(_ job: UnownedJob) {
        jobs.withLockedValue { $0.append(job) }
    }

    /// Runs jobs, those they enqueue included, until none is left: every task of the probe has then
    /// suspended or finished. Called from the probe's thread only.
    func runUntilIdle() {
        while let job = jobs.withLockedValue({ $0.popFirst() }) {
            jobsRun += 1
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
    }
}

// The executor's state is touched from the probe's one thread (`runUntilIdle()`, `jobsRun`), and from any
// thread only through `jobs`, which a lock guards.
extension SerialTaskExecutor: @unchecked Sendable {}

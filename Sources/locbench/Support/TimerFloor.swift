import Atomics
import Foundation
import LocationEngine

#if canImport(Glibc)
import Glibc
#endif

/// What the machine gives any program that sleeps until a deadline: a bare thread sleeping to absolute instants
/// `period` apart (`clock_nanosleep` with `TIMER_ABSTIME` on `CLOCK_MONOTONIC`), and how late it woke for each
/// of them (for a deadline it slept through, how long after it it woke).
/// `locbench` runs one through its wall-clock runs and prints it beside the engine's timeout lateness: under
/// the same load, no timer in the process wakes sooner than the operating system wakes this thread.
///
/// Hand-written: Foundation, Dispatch and swift-nio offer relative sleeps and timers with their own queues in
/// between, not the operating system's absolute-deadline sleep on a thread of one's own.
final class TimerFloor: Sendable {
    private let stopped = ManagedAtomic(false)
    private let result: Task<LatencySummary, Never>

    /// Starts sleeping on a thread of its own, `period` apart, until ``stop()``.
    init(period: Duration = .milliseconds(1)) {
        let stopped = self.stopped
        result = Task {
            await withCheckedContinuation { continuation in
                let thread = Thread { continuation.resume(returning: Self.sleepAndMeasure(period: period, until: stopped)) }
                thread.name = "locbench-timer-floor"
                thread.start()
            }
        }
    }

    /// Stops the thread after its current sleep; how late it woke, in microseconds.
    func stop() async -> LatencySummary {
        stopped.store(true, ordering: .relaxed)
        return await result.value
    }

    private static func sleepAndMeasure(period: Duration, until stopped: ManagedAtomic<Bool>) -> LatencySummary {
        var recorder = LatencyRecorder()
        #if canImport(Glibc)
        let step = max(1, period.saturatingNanoseconds)
        func nanoseconds() -> Int64 {
            var now = timespec()
            clock_gettime(CLOCK_MONOTONIC, &now)
            return Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec)
        }
        var deadline = nanoseconds() + step
        while !stopped.load(ordering: .relaxed) {
            var target = timespec(tv_sec: Int(deadline / 1_000_000_000), tv_nsec: Int(deadline % 1_000_000_000))
            // Interrupted by a signal: sleep again towards the same instant.
            while clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &target, nil) == EINTR {}
            // Every deadline passed meanwhile counts, as every timeout falling due meanwhile would: a stall of
            // ten periods is ten late deadlines, the first one the latest.
            let now = nanoseconds()
            repeat {
                recorder.record(nanoseconds: now - deadline)
                deadline += step
            } while deadline <= now
        }
        #endif
        return recorder.summary
    }
}

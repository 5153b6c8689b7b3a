import Atomics
import Foundation
@_spi(Internals) import LocationEngine
import LocbenchModel
import NIOConcurrencyHelpers

#if canImport(Glibc)
import Glibc
#endif

/// What the machine gives any program that sleeps until a deadline: a bare thread sleeping to absolute instants
/// `period` apart (`clock_nanosleep` with `TIMER_ABSTIME` on `CLOCK_MONOTONIC`), and how late it woke for each
/// of them (for a deadline it slept through, how long after it it woke). `locbench` runs one through its
/// wall-clock runs and prints it beside the engine's timeout lateness: an engine that sleeps until its next
/// deadline cannot expect a better tail from the operating system than this thread gets under the same load.
///
/// Hand-written: Foundation, Dispatch and swift-nio offer relative sleeps and timers with their own queues in
/// between, not the operating system's absolute-deadline sleep on a thread of one's own.
final class TimerFloor: Sendable {
    /// Whether this platform has the sleep it measures (Linux).
    static var isAvailable: Bool {
        #if canImport(Glibc)
        true
        #else
        false
        #endif
    }

    /// What the thread measured.
    struct Measurement: Codable, Sendable {
        /// How long after each deadline it woke, microseconds.
        var lateness: LatencySummary
        /// The CPU time of the thread itself, seconds (part of the process's CPU time the runs report).
        var cpuSeconds: Double
    }

    private enum Outcome {
        case running
        case waiting(CheckedContinuation<Measurement, Never>)
        case finished(Measurement)
    }

    private let stopped = ManagedAtomic(false)
    private let outcome = NIOLockedValueBox(Outcome.running)

    /// Starts sleeping on a thread of its own, `period` apart, until ``stop()``.
    init(period: Duration = .milliseconds(1)) {
        let thread = Thread { [stopped, outcome] in
            let summary = Self.sleepAndMeasure(period: period, until: stopped)
            let waiting: CheckedContinuation<Measurement, Never>? = outcome.withLockedValue { outcome in
                defer { outcome = .finished(summary) }
                if case .waiting(let continuation) = outcome { return continuation }
                return nil
            }
            waiting?.resume(returning: summary)
        }
        thread.name = "locbench-timer-floor"
        thread.start()
    }

    /// Stops the thread after its current sleep; what it measured.
    func stop() async -> Measurement {
        stopped.store(true, ordering: .relaxed)
        return await withCheckedContinuation { continuation in
            let finished: Measurement? = outcome.withLockedValue { outcome in
                if case .finished(let summary) = outcome { return summary }
                outcome = .waiting(continuation)
                return nil
            }
            if let finished { continuation.resume(returning: finished) }
        }
    }

    private static func sleepAndMeasure(period: Duration, until stopped: ManagedAtomic<Bool>) -> Measurement {
        var recorder = LatencyRecorder()
        var cpuSeconds = 0.0
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
        var cpu = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &cpu)
        cpuSeconds = Double(cpu.tv_sec) + Double(cpu.tv_nsec) / 1e9
        #endif
        return Measurement(lateness: recorder.summary, cpuSeconds: cpuSeconds)
    }
}

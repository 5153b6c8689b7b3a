import CHeapStats
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Voluntary and involuntary context switches, as `getrusage` counts them.
struct ContextSwitches: Sendable {
    var voluntary: Int
    var involuntary: Int

    /// The switches between `start` and this reading.
    func since(_ start: ContextSwitches) -> ContextSwitches {
        ContextSwitches(voluntary: voluntary - start.voluntary, involuntary: involuntary - start.involuntary)
    }
}

/// CPU time, context switches, peak RSS and heap figures of this process.
enum ProcessStats {
    /// User + system CPU time in seconds.
    static func cpuSeconds() -> Double {
        var usage = rusage()
        getrusage(Int32(RUSAGE_SELF.rawValue), &usage)
        let user = Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6
        let system = Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
        return user + system
    }

    /// Context switches of this process so far (`getrusage`): voluntary ones (a thread blocked, waiting
    /// for work, a lock or a timer: each a wake-up later) and involuntary ones (a thread preempted).
    static func contextSwitches() -> ContextSwitches {
        var usage = rusage()
        getrusage(Int32(RUSAGE_SELF.rawValue), &usage)
        return ContextSwitches(voluntary: Int(usage.ru_nvcsw), involuntary: Int(usage.ru_nivcsw))
    }

    /// Peak resident set size in bytes: `VmHWM` from `/proc/self/status`, which `exec` resets (under
    /// `swift run`, `getrusage` would report the larger of `swift run`'s peak and ours).
    static func peakRSS() -> Int {
        if let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
            let kilobytes = Int(line.dropFirst("VmHWM:".count).trimmingCharacters(in: .whitespaces).split(separator: " ").first ?? "")
        {
            return kilobytes * 1024
        }
        var usage = rusage()
        getrusage(Int32(RUSAGE_SELF.rawValue), &usage)
        return Int(usage.ru_maxrss) * 1024
    }

    /// Bytes the allocator has handed out now, and whether jemalloc measured it.
    static func heap() -> (allocated: Int, jemalloc: Bool) {
        let stats = heapstats_read()
        return (Int(stats.allocated), stats.fromJemalloc != 0)
    }

    /// Whether standard error is a terminal (progress bars only then).
    static var stderrIsTerminal: Bool { isatty(2) != 0 }
}

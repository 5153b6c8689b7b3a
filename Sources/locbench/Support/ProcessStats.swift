import CHeapStats

#if canImport(Glibc)
import Glibc
#endif

/// CPU time, peak RSS and heap figures of this process.
enum ProcessStats {
    /// User + system CPU time in seconds.
    static func cpuSeconds() -> Double {
        var usage = rusage()
        getrusage(Int32(RUSAGE_SELF.rawValue), &usage)
        let user = Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6
        let system = Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
        return user + system
    }

    /// Peak resident set size in bytes.
    static func peakRSS() -> Int {
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

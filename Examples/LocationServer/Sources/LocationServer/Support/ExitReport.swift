import Foundation
import LocationEngine

/// What the server prints as one JSON line when it exits, for a load test to check: the HTTP side's
/// totals, the engine's counters, and the heap when idle after start and at exit.
struct ExitReport: Codable {
    struct Engine: Codable {
        var oneShotsSubmitted: Int
        var oneShotsEnded: Int
        var oneShotsCancelled: Int
        var pendingOneShots: Int
        var subscriptionsSubmitted: Int
        var subscriptionsEnded: Int
        var subscriptionsCancelled: Int
        var activeSubscriptions: Int
        var sourceStarts: Int
        var sourceStops: Int
        var sourceOn: Bool
        var fixesReceived: Int

        init(_ statistics: SchedulerStatistics) {
            oneShotsSubmitted = statistics.oneShotsSubmitted
            oneShotsEnded = statistics.oneShotsSucceeded + statistics.oneShotsTimedOut + statistics.oneShotsForceCompleted
                + statistics.oneShotsFailed
            oneShotsCancelled = statistics.oneShotsCancelled
            pendingOneShots = statistics.pendingOneShots
            subscriptionsSubmitted = statistics.subscriptionsSubmitted
            subscriptionsEnded = statistics.subscriptionsEnded
            subscriptionsCancelled = statistics.subscriptionsCancelled
            activeSubscriptions = statistics.activeSubscriptions
            sourceStarts = statistics.sourceStarts
            sourceStops = statistics.sourceStops
            sourceOn = statistics.sourceMode != nil
            fixesReceived = statistics.fixesReceived
        }
    }

    var http: ServerCounters.Totals
    var geofences: GeofenceCounters.Totals
    var engine: Engine
    var heapIdleBytes: UInt64
    var heapAtExitBytes: UInt64
    /// CPU time the process used, user + system, in seconds.
    var cpuSeconds: Double

    var json: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return (try? String(decoding: encoder.encode(self), as: UTF8.self)) ?? "{}"
    }
}

/// The process's CPU time so far, user + system, in seconds.
func processCPUSeconds() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
}

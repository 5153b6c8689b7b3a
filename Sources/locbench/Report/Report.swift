import LocationEngine

/// The machine-readable report (`--json`), and the source of the table and the HTML report.
struct Report: Codable, Sendable {
    struct Design: Codable, Sendable {
        var design: String
        var wallSeconds: Double
        var cpuSeconds: Double
        var timelineSeconds: Double
        var operations: Int
        var submitThroughputPerSecond: Double
        var maxPending: Int
        var heapBytesPerPendingRequest: Double
        var heapMeasuredBy: String
        var outcomes: [String: Int]
        var subscriptionUpdates: Int
        var fixToDeliveryLatencyMicroseconds: LatencySummary
        var timeoutLatenessMicroseconds: LatencySummary
        var sourceStarts: Int
        var sourceStops: Int
        var sourceModeChanges: Int
        var sourceDutyCycle: Double
        var secondsInMode: [String: Double]
        var energyJoules: Double
        var alwaysOnEnergyJoules: Double
        var sourceOffAtEnd: Bool
        var invariantViolations: Int
        var firstViolations: [String]
        var authorizationPrompts: Int
        var authorizationChanges: Int
        var coarseDeliveriesChecked: Int
    }

    var command: String
    var clock: String
    var scenario: String
    var seed: UInt64
    var requests: Int
    var operations: Int
    var peakRSSBytes: Int
    var processWallSeconds: Double
    /// The `--authorization` script, if any.
    var authorization: String?
    var engine: Design
    var baseline: Design?

    static func design(_ run: RunMeasurements) -> Design {
        let onNanoseconds = run.timeInModes.values.reduce(0, +)
        return Design(
            design: run.design,
            wallSeconds: run.wallSeconds,
            cpuSeconds: run.cpuSeconds,
            timelineSeconds: run.timelineSeconds,
            operations: run.operationsSubmitted,
            submitThroughputPerSecond: run.submitSeconds > 0 ? Double(run.operationsSubmitted) / run.submitSeconds : 0,
            maxPending: run.maxPending,
            heapBytesPerPendingRequest: run.heapBytesPerPending,
            heapMeasuredBy: run.heapFromJemalloc ? "jemalloc mallctl stats.allocated" : "glibc mallinfo2 (jemalloc not linked)",
            outcomes: run.outcomes,
            subscriptionUpdates: run.subscriptionUpdates,
            fixToDeliveryLatencyMicroseconds: run.latency,
            timeoutLatenessMicroseconds: run.lateness,
            sourceStarts: run.sourceStarts,
            sourceStops: run.sourceStops,
            sourceModeChanges: run.sourceModeChanges,
            sourceDutyCycle: run.timelineSeconds > 0 ? Double(onNanoseconds) / 1e9 / run.timelineSeconds : 0,
            secondsInMode: Dictionary(uniqueKeysWithValues: run.timeInModes.map { ("\($0.key)", Double($0.value) / 1e9) }),
            energyJoules: EnergyModel.joules(run.timeInModes),
            alwaysOnEnergyJoules: EnergyModel.alwaysOnJoules(seconds: run.timelineSeconds),
            sourceOffAtEnd: run.sourceOffAtEnd,
            invariantViolations: run.violationCount,
            firstViolations: run.violations,
            authorizationPrompts: run.authorizationPrompts,
            authorizationChanges: run.authorizationChanges,
            coarseDeliveriesChecked: run.coarseDeliveriesChecked)
    }
}

@_spi(Internals) import LocationEngine
import LocbenchModel

/// The machine-readable report (`--json`), and the source of the table and the HTML report.
struct Report: Codable, Sendable {
    struct Design: Codable, Sendable {
        var design: String
        /// Runs measured (interleaved with the other design's); wall and CPU figures are their median.
        var runs: Int
        var wallSeconds: Double
        var wallSecondsMinMax: [Double]
        var cpuSeconds: Double
        var cpuSecondsMinMax: [Double]
        /// CPU time per operation (median run): the design's processing cost, independent of the clock.
        var cpuMicrosecondsPerOperation: Double
        /// Voluntary context switches of the process per 1,000 operations (median run): how often a
        /// thread blocked and had to be woken, which no count of instructions sees.
        var voluntaryContextSwitchesPerThousandOperations: Double
        /// Involuntary context switches (preemptions) per 1,000 operations (median run).
        var involuntaryContextSwitchesPerThousandOperations: Double
        /// The engine's loop wake-ups per 1,000 operations (median run; `nil` for a design other than the
        /// engine): the hand-offs between callers and the loop, counted by the engine, not by the kernel.
        var loopWakeupsPerThousandOperations: Double?
        var timelineSeconds: Double
        var operations: Int
        var submitThroughputPerSecond: Double
        var maxPending: Int
        /// Heap above the baseline at peak pending, divided by the pending count (meaningful from
        /// ``minimumPendingForHeapFigure`` pending on; below, the run's other growth dominates).
        var heapBytesPerPendingRequest: Double
        /// Heap above the run's baseline when pending peaked.
        var heapBytesAtPeakPending: Int
        var heapMeasuredBy: String
        var outcomes: [String: Int]
        var subscriptionUpdates: Int
        /// One-shots that succeeded from the cache when made: no fix arrived for them, so no delay.
        var oneShotsAnsweredFromCache: Int
        /// Fix leaving the source → handler called: on the virtual timeline (a delay the clock sees)
        /// for virtual runs, on the wall clock for wall runs.
        var fixToDeliveryLatencyMicroseconds: LatencySummary
        var timeoutLatenessMicroseconds: LatencySummary
        /// Submission → success of the one-shots that waited for a fix (not answered from the cache), by
        /// accuracy level: how soon each level is answered.
        var timeToAnswerMicroseconds: [String: LatencySummary]
        var sourceStarts: Int
        var sourceStops: Int
        var sourceModeChanges: Int
        var sourceOnSeconds: Double
        var sourceDutyCycle: Double
        var secondsInMode: [String: Double]
        var energyJoules: Double
        /// The engine's own figure of the receiver's energy (``SchedulerStatistics/receiverEnergy``), joules.
        var ownEnergyJoules: Double?
        var alwaysOnEnergyJoules: Double
        var sourceOffAtEnd: Bool
        var invariantViolations: Int
        var firstViolations: [String]
        var authorizationPrompts: Int
        var authorizationChanges: Int
        var coarseDeliveriesChecked: Int
    }

    /// The engine's power against the oracle and always-on (the engine run's demand).
    struct Power: Codable, Sendable {
        var oracleOnSeconds: Double
        var oracleEnergyJoules: Double
        var oracleSecondsInMode: [String: Double]
        /// Separate stretches of demand, and the idle gaps between them.
        var oracleOnIntervals: Int
        var oracleIdleGaps: Int
        var alwaysOnSeconds: Double
        var alwaysOnEnergyJoules: Double
        var lingerSeconds: Double
        var engineOnTimeVsOracle: Double
        var engineEnergyVsOracle: Double
        var engineEnergyVsAlwaysOn: Double
        /// The goal: on-time at most 1.1× the oracle's plus one linger per stretch of demand.
        var engineOnTimeBoundSeconds: Double
        var engineWithinBound: Bool
        var naiveEnergyVsEngine: Double?
        var naiveOnTimeVsOracle: Double?
    }

    var command: String
    var clock: String
    var arrival: String
    var scenario: String
    var seed: UInt64
    var requests: Int
    var operations: Int
    var peakRSSBytes: Int
    var processWallSeconds: Double
    /// The `--authorization` script, if any.
    var authorization: String?
    var power: Power
    /// The receiver's energy against the restart-aware oracle and the other designs (synthetic source only).
    var receiver: ReceiverPower?
    var engine: Design
    var baseline: Design?
    /// `--timer-floor`: how late a bare thread of this process woke from sleeping to deadlines 1 ms apart through
    /// the runs, and its own CPU time (``TimerFloor``): the floor under the timeout lateness.
    var timerFloor: TimerFloor.Measurement?

    /// Figures of one design: counts and the virtual timeline from its first run (every run of a
    /// design on the virtual clock sees the same), wall and CPU time as the median over its runs;
    /// always-on is over the design's own timeline (on the wall clock a slow design's run lasts longer).
    static func design(_ runs: [RunMeasurements]) -> Design {
        let perThousand = { (count: Int, run: RunMeasurements) in
            run.operationsSubmitted > 0 ? Double(count) * 1000 / Double(run.operationsSubmitted) : 0
        }
        let run = runs[0]
        let onNanoseconds = run.timeInModes.values.reduce(0, +)
        let wall = runs.map(\.wallSeconds).sorted()
        let cpu = runs.map(\.cpuSeconds).sorted()
        let median = { (values: [Double]) in values[values.count / 2] }
        return Design(
            design: run.design,
            runs: runs.count,
            wallSeconds: median(wall), wallSecondsMinMax: [wall.first!, wall.last!],
            cpuSeconds: median(cpu), cpuSecondsMinMax: [cpu.first!, cpu.last!],
            cpuMicrosecondsPerOperation: run.operationsSubmitted > 0 ? median(cpu) / Double(run.operationsSubmitted) * 1e6 : 0,
            voluntaryContextSwitchesPerThousandOperations: median(runs.map { perThousand($0.contextSwitches.voluntary, $0) }.sorted()),
            involuntaryContextSwitchesPerThousandOperations: median(runs.map { perThousand($0.contextSwitches.involuntary, $0) }.sorted()),
            loopWakeupsPerThousandOperations: run.loopWakeups == nil
                ? nil : median(runs.map { perThousand($0.loopWakeups ?? 0, $0) }.sorted()),
            timelineSeconds: run.timelineSeconds,
            operations: run.operationsSubmitted,
            submitThroughputPerSecond: median(runs.map { $0.submitSeconds > 0 ? Double($0.operationsSubmitted) / $0.submitSeconds : 0 }.sorted()),
            maxPending: run.maxPending,
            heapBytesPerPendingRequest: run.heapBytesPerPending,
            heapBytesAtPeakPending: run.heapBytesAtPeak,
            heapMeasuredBy: run.heapFromJemalloc ? "jemalloc mallctl stats.allocated" : "glibc mallinfo2 (jemalloc not linked)",
            outcomes: run.outcomes,
            subscriptionUpdates: run.subscriptionUpdates,
            oneShotsAnsweredFromCache: run.answeredFromCache,
            fixToDeliveryLatencyMicroseconds: run.latency,
            timeoutLatenessMicroseconds: run.lateness,
            timeToAnswerMicroseconds: run.timeToAnswer,
            sourceStarts: run.sourceStarts,
            sourceStops: run.sourceStops,
            sourceModeChanges: run.sourceModeChanges,
            sourceOnSeconds: Double(onNanoseconds) / 1e9,
            sourceDutyCycle: run.timelineSeconds > 0 ? Double(onNanoseconds) / 1e9 / run.timelineSeconds : 0,
            secondsInMode: Dictionary(uniqueKeysWithValues: run.timeInModes.map { ("\($0.key)", Double($0.value) / 1e9) }),
            energyJoules: run.meteredJoules ?? EnergyModel.joules(run.timeInModes),
            ownEnergyJoules: run.ownEnergyJoules,
            alwaysOnEnergyJoules: EnergyModel.alwaysOnJoules(seconds: run.timelineSeconds),
            sourceOffAtEnd: run.sourceOffAtEnd,
            invariantViolations: runs.map(\.violationCount).max() ?? 0,
            firstViolations: runs.first { $0.violationCount > 0 }?.violations ?? [],
            authorizationPrompts: run.authorizationPrompts,
            authorizationChanges: run.authorizationChanges,
            coarseDeliveriesChecked: run.coarseDeliveriesChecked)
    }

    /// Below this many pending requests at the peak, heap per pending request is not reported in the table.
    static let minimumPendingForHeapFigure = 1_000

    /// The engine's power against the oracle of its own run, always-on over its timeline, and the naive design.
    static func power(engine: RunMeasurements, naive: RunMeasurements?, linger: Duration) -> Power {
        let oracle = engine.oracle
        let oracleOn = Double(oracle.onNanoseconds) / 1e9
        let oracleJoules = oracle.joules { EnergyModel.milliwatts(PowerMode(rawValue: $0)!) }
        let engineOn = Double(engine.timeInModes.values.reduce(0, +)) / 1e9
        let engineJoules = EnergyModel.joules(engine.timeInModes)
        let alwaysOn = EnergyModel.alwaysOnJoules(seconds: engine.timelineSeconds)
        let bound = oracle.onTimeBound(factor: 1.1, lingerNanoseconds: linger.saturatingNanoseconds)
        let ratio = { (numerator: Double, denominator: Double) in denominator > 0 ? numerator / denominator : 0 }
        return Power(
            oracleOnSeconds: oracleOn, oracleEnergyJoules: oracleJoules,
            oracleSecondsInMode: Dictionary(
                uniqueKeysWithValues: oracle.nanosecondsPerLevel.enumerated().map { ("\(PowerMode(rawValue: $0.offset)!)", Double($0.element) / 1e9) }),
            oracleOnIntervals: oracle.onIntervals.count, oracleIdleGaps: oracle.idleGaps,
            alwaysOnSeconds: engine.timelineSeconds, alwaysOnEnergyJoules: alwaysOn,
            lingerSeconds: Double(linger.saturatingNanoseconds) / 1e9,
            engineOnTimeVsOracle: ratio(engineOn, oracleOn), engineEnergyVsOracle: ratio(engineJoules, oracleJoules),
            engineEnergyVsAlwaysOn: ratio(engineJoules, alwaysOn),
            engineOnTimeBoundSeconds: Double(bound) / 1e9,
            engineWithinBound: engine.timeInModes.values.reduce(0, +) <= bound,
            naiveEnergyVsEngine: naive.map { ratio(EnergyModel.joules($0.timeInModes), engineJoules) },
            naiveOnTimeVsOracle: naive.map { ratio(Double($0.timeInModes.values.reduce(0, +)) / 1e9, oracleOn) })
    }
}

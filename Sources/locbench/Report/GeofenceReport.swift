import LocationEngine
import LocbenchModel
import SyntheticGPS

/// The figures of `locbench --geofences N` (its `--json`): per trajectory, the engine and the naive design against the
/// ground truth and against the energy of always-on and the reach oracle, and the engine's headline figures.
struct GeofenceReport: Codable, Sendable {
    /// One design over one trajectory.
    struct Design: Codable, Sendable {
        var design: String
        var detected: Int
        /// True crossings deeper than the margin never reported.
        var missed: Int
        /// True crossings of excursions shallower than the margin, not reported (excepted), and reported anyway.
        var withinMargin: Int
        var withinMarginDetected: Int
        /// True crossings in the last minute, not reported yet.
        var pendingAtEnd: Int
        var duplicates: Int
        var falseTransitions: Int
        var dwells: Int
        var unknowns: Int
        /// Entered and exited at one fix: crossings found between two fixes outside.
        var crossedBetweenFixes: Int
        /// Delivery minus true crossing, on the virtual timeline (each percentile `nil` when none was delivered).
        var latencyP50Seconds: Double?
        var latencyP99Seconds: Double?
        var latencyMaxSeconds: Double?
        /// Delivery minus the decidable instant (the truth first the margin past the boundary on the far side), over
        /// the detected transitions whose crossing has one.
        var latencyFromDecidableP50Seconds: Double?
        var latencyFromDecidableP99Seconds: Double?
        var latencyFromDecidableMaxSeconds: Double?
        /// Each of those latencies, seconds, in report order (for pooling runs of several seeds).
        var latencyFromDecidableSeconds: [Double]
        /// The p99 from the decidable instant with the margin at the receiver's median accuracy throughout (the
        /// decidable instant's margin is the one at the accuracy the receiver gave then).
        var latencyFromDecidableAtMedianAccuracyP99Seconds: Double?
        /// The design's estimate of each crossing (``GeofenceEvent/estimatedCrossing``) against the truth: how many
        /// detected transitions carried one, and the absolute error's p50 and p99.
        var estimatedCrossings: Int
        var estimateErrorP50Seconds: Double?
        var estimateErrorP99Seconds: Double?
        /// Metered by the synthetic receiver over the trajectory.
        var energyJoules: Double
        var energyVsAlwaysOn: Double
        var energyVsReachOracle: Double
        var receiverOnSeconds: Double
        var fixes: Int
        /// Where the metered energy went (`nil` without a metered receiver).
        var receiverStates: ReceiverStates?
        /// Process CPU of the run loop per fix, the synthetic receiver included.
        var cpuMicrosecondsPerFix: Double
        var invariantViolations: Int
        var firstViolations: [String]
    }

    /// The metered energy by the receiver's state: acquiring after a start, tracking (continuously or in a power-save
    /// mode), and waiting (standby or backup).
    struct ReceiverStates: Codable, Sendable {
        var acquiringStarts: Int
        var acquisitionSeconds: Double
        var acquisitionJoules: Double
        var trackingSeconds: Double
        var trackingJoules: Double
        var waitingSeconds: Double
        var waitingJoules: Double

        init(_ meter: ReceiverEnergyMeter) {
            acquiringStarts = meter.acquiringStarts
            acquisitionSeconds = meter.seconds[.acquisition] ?? 0
            acquisitionJoules = meter.energy(in: .acquisition)
            trackingSeconds = (meter.seconds[.tracking] ?? 0) + (meter.seconds[.powerSave] ?? 0)
            trackingJoules = meter.energy(in: .tracking) + meter.energy(in: .powerSave)
            waitingSeconds = (meter.seconds[.standby] ?? 0) + (meter.seconds[.backup] ?? 0)
            waitingJoules = meter.energy(in: .standby) + meter.energy(in: .backup)
        }
    }

    /// One trajectory.
    struct Shape: Codable, Sendable {
        var shape: String
        var distanceKilometres: Double
        var stoppedSeconds: Double
        var circles: Int
        var polygons: Int
        /// Fences by how they were placed: crossed, touched, far.
        var placements: [String: Int]
        /// Fences the path really crossed at least once.
        var fencesCrossed: Int
        var trueCrossings: Int
        var medianAccuracyMetres: Double
        /// Excursions shallower than this are excepted from "missed".
        var marginMetres: Double
        /// The engine's ``GeofenceConfiguration/maximumSpeed`` on this trajectory, m/s, and its
        /// ``GeofenceConfiguration/maximumAcceleration``, m/s² (`nil`: none).
        var maximumSpeed: Double
        var maximumAcceleration: Double?
        /// The median true speed while moving, and the time it takes to travel the margin at it: what a confident
        /// decision adds to the latency from the true crossing.
        var medianMovingSpeed: Double
        var marginTravelSeconds: Double
        /// The reach oracle tracks while a boundary is this close.
        var reachMetres: Double
        var reachOracleTrackingSeconds: Double
        var reachOracleJoules: Double
        /// Where the engine tracked while the reach oracle did not (stopped or moving), and the reverse.
        var engineBeyondReachOracle: ReachOracle.Excess
        var alwaysOnJoules: Double
        var designs: [Design]
        /// The engine's slowest transitions, slowest first, with what set their latency.
        var engineSlowest: [GeofenceTail]
        /// The engine's transitions whose estimated crossing instant is furthest from the truth, worst first.
        var engineWorstEstimates: [GeofenceTail]
        /// The true crossings the engine missed (deeper than the margin), with what its fixes saw of each.
        var engineMissed: [GeofenceMiss]
        /// With `--geofence-curve`: the engine at each responsiveness and the polling designs (else empty), how
        /// many of the polling designs some engine point dominates, and the fix intervals of the polling designs
        /// that dominate some engine point, seconds (``ParetoFront``: energy, latency and missed transitions);
        /// the same on energy and latency alone, a design's missed transitions not counted.
        var curve: [GeofenceCurvePoint]
        var pollingDominated: Int
        var pollingDominating: [Int]
        var pollingDominatedOnEnergyAndLatency: Int
        var pollingDominatingOnEnergyAndLatency: [Int]
    }

    /// A headline figure of the engine's, summed or listed over the trajectories: what is measured and the value.
    struct Figure: Codable, Sendable {
        /// What is measured, as the table prints it.
        var figure: String
        var measured: String
    }

    var command: String
    var seed: UInt64
    var fences: Int
    var receiver: String
    var powerDown: String
    /// How the engine's maximum speed was chosen (`--geofence-max-speed`).
    var maximumSpeedRule: String
    /// Every monitor's responsiveness in the main run, seconds (`--geofence-responsiveness`).
    var responsivenessSeconds: Double
    /// How much of the receiver's error the fixes carried (`--geofence-fix-error`): 1, the receiver's own.
    var fixErrorScale: Double
    var durationSeconds: Double
    var fixIntervalSeconds: Double
    var processWallSeconds: Double
    var shapes: [Shape]
    var figures: [Figure]
}

extension GeofenceReport {
    init(
        command: String, seed: UInt64, fences: Int, receiver: String, maximumSpeed: String, responsiveness: Duration, fixErrorScale: Double = 1,
        powerDown: String, processWallSeconds: Double, runs: [GeofenceShapeRun]
    ) {
        let shapes = runs.map(Self.shape)
        self.init(
            command: command, seed: seed, fences: fences, receiver: receiver, powerDown: powerDown, maximumSpeedRule: maximumSpeed,
            responsivenessSeconds: Double(responsiveness.components.seconds) + Double(responsiveness.components.attoseconds) / 1e18,
            fixErrorScale: fixErrorScale, durationSeconds: runs.first?.path.duration ?? 0, fixIntervalSeconds: 1, processWallSeconds: processWallSeconds,
            shapes: shapes, figures: Self.figures(shapes))
    }

    static func shape(_ run: GeofenceShapeRun) -> Shape {
        let samples = run.path.samples
        let stopped = zip(samples, samples.dropFirst()).reduce(0.0) { $0 + ($1.0.speed < 0.1 && $1.1.speed < 0.1 ? $1.1.seconds - $1.0.seconds : 0) }
        let moving = samples.map(\.speed).filter { $0 > 0.5 }.sorted()
        let speed = moving.isEmpty ? 0 : moving[moving.count / 2]
        let circles = run.fences.count { if case .circle = $0.region.shape { true } else { false } }
        let dominance = GeofenceCurve.dominance(run.curve)
        let dominanceIgnoringMisses = GeofenceCurve.dominance(run.curve, countingMisses: false)
        func design(_ name: String, _ design: GeofenceDesignRun, _ comparison: TransitionComparison) -> Design {
            Design(
                design: name, detected: comparison.detected, missed: comparison.missed, withinMargin: comparison.withinMargin,
                withinMarginDetected: comparison.withinMarginDetected, pendingAtEnd: comparison.pendingAtEnd,
                duplicates: comparison.duplicates, falseTransitions: comparison.falseTransitions, dwells: comparison.dwells,
                unknowns: comparison.unknowns, crossedBetweenFixes: comparison.crossedBetweenFixes, latencyP50Seconds: comparison.latency(percentile: 50),
                latencyP99Seconds: comparison.latency(percentile: 99), latencyMaxSeconds: comparison.latency(percentile: 100),
                latencyFromDecidableP50Seconds: comparison.latencyFromDecidable(percentile: 50),
                latencyFromDecidableP99Seconds: comparison.latencyFromDecidable(percentile: 99),
                latencyFromDecidableMaxSeconds: comparison.latencyFromDecidable(percentile: 100),
                latencyFromDecidableSeconds: comparison.latenciesFromDecidable,
                latencyFromDecidableAtMedianAccuracyP99Seconds: comparison.latencyFromDecidableAtMedianAccuracy(percentile: 99),
                estimatedCrossings: comparison.estimateErrors.count, estimateErrorP50Seconds: comparison.estimateError(percentile: 50),
                estimateErrorP99Seconds: comparison.estimateError(percentile: 99),
                energyJoules: design.meteredJoules, energyVsAlwaysOn: run.alwaysOnJoules > 0 ? design.meteredJoules / run.alwaysOnJoules : 0,
                energyVsReachOracle: run.oracleJoules > 0 ? design.meteredJoules / run.oracleJoules : 0,
                receiverOnSeconds: Double(design.modes.dropFirst().count { $0 != nil }), fixes: design.accuracies.count,
                receiverStates: design.meter.map(ReceiverStates.init), cpuMicrosecondsPerFix: design.cpuMicrosecondsPerFix, invariantViolations: design.violations.count,
                firstViolations: Array(design.violations.prefix(5)))
        }
        return Shape(
            shape: run.shape.rawValue, distanceKilometres: (run.path.distanceAlong.last ?? 0) / 1000, stoppedSeconds: stopped,
            circles: circles, polygons: run.fences.count - circles,
            placements: Dictionary(grouping: run.fences, by: \.intent.rawValue).mapValues(\.count),
            fencesCrossed: run.truth.count { !$0.crossings.isEmpty }, trueCrossings: run.engineComparison.trueCrossings,
            medianAccuracyMetres: run.medianAccuracy, marginMetres: run.margin, maximumSpeed: run.maximumSpeed, maximumAcceleration: run.maximumAcceleration, medianMovingSpeed: speed,
            marginTravelSeconds: speed > 0 ? run.margin / speed : 0, reachMetres: run.reach,
            reachOracleTrackingSeconds: Double(run.oracle.demand.reduce(0) { $0 + $1.interval.length }) / 1e9,
            reachOracleJoules: run.oracleJoules, engineBeyondReachOracle: run.oracle.excess(onAfter: run.engine.modes.map { $0 != nil }, along: run.path),
            alwaysOnJoules: run.alwaysOnJoules,
            designs: [design("engine", run.engine, run.engineComparison), design("naive", run.naive, run.naiveComparison)],
            engineSlowest: GeofenceTail.worst(10, judged: run.engineComparison.judged, design: run.engine, fences: run.fences, path: run.path),
            engineWorstEstimates: GeofenceTail.worst(
                10, judged: run.engineComparison.judged, design: run.engine, fences: run.fences, path: run.path,
                by: { judged in judged.estimatedCrossing.map { abs($0 - judged.crossing!.seconds) } ?? 0 }),
            engineMissed: GeofenceMiss.list(comparison: run.engineComparison, design: run.engine, fences: run.fences, rules: run.rules, end: run.path.duration),
            curve: run.curve, pollingDominated: dominance.pollingDominated, pollingDominating: dominance.pollingDominating,
            pollingDominatedOnEnergyAndLatency: dominanceIgnoringMisses.pollingDominated,
            pollingDominatingOnEnergyAndLatency: dominanceIgnoringMisses.pollingDominating)
    }

    /// The engine's headline figures: its wrong and missed transitions over every trajectory, and per trajectory
    /// its latency, its estimate's error and the commute's energy.
    static func figures(_ shapes: [Shape]) -> [Figure] {
        let engines = shapes.compactMap { shape in shape.designs.first { $0.design == "engine" }.map { (shape.shape, $0) } }
        let wrong = engines.reduce(0) { $0 + $1.1.falseTransitions + $1.1.duplicates }
        let missed = engines.reduce(0) { $0 + $1.1.missed }
        let excepted = engines.reduce(0) { $0 + $1.1.withinMargin }
        func each(_ value: (Design) -> Double?) -> String {
            engines.map { shape, design in "\(shape) \(GeofenceTable.seconds(value(design)))" }.joined(separator: ", ")
        }
        var figures = [
            Figure(figure: "false or duplicate transitions", measured: "\(wrong)"),
            Figure(figure: "missed transitions (shallower than the margin excepted)", measured: "\(missed) (\(excepted) excepted)"),
            Figure(figure: "latency from the true crossing, p99", measured: each(\.latencyP99Seconds)),
            Figure(figure: "latency from the decidable instant, p99", measured: each(\.latencyFromDecidableP99Seconds)),
            Figure(figure: "  the same, the margin at the median accuracy throughout", measured: each(\.latencyFromDecidableAtMedianAccuracyP99Seconds)),
            Figure(figure: "the estimated crossing instant's error, p99", measured: each(\.estimateErrorP99Seconds)),
        ]
        if let commute = engines.first(where: { $0.0 == GeofenceShape.commute.rawValue })?.1 {
            figures.append(Figure(figure: "commute energy, of always-on", measured: String(format: "%.1f %%", 100 * commute.energyVsAlwaysOn)))
            figures.append(Figure(figure: "commute energy, against the reach oracle", measured: String(format: "%.2fx", commute.energyVsReachOracle)))
        }
        return figures
    }
}

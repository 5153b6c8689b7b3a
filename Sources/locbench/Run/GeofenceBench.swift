import LocationEngine
import LocbenchModel
import SyntheticGPS

/// One trajectory of `locbench --geofences`: its truth, its fences, both designs' runs, judged.
struct GeofenceShapeRun: Sendable {
    var shape: GeofenceShape
    var path: TruthPath
    var fences: [PlacedFence]
    var truth: [FenceTruth]
    var engine: GeofenceDesignRun
    var naive: GeofenceDesignRun
    /// The excursion depth below which a crossing is excepted: the engine's decision distance at the receiver's
    /// median accuracy.
    var margin: Double
    /// The engine's decision rules on this trajectory (how far across a boundary a fix must be).
    var rules: GeofenceConfiguration
    /// The receiver's median horizontal accuracy while it tracks continuously (the always-on naive design's fixes),
    /// metres: the same for every design judged, whichever fixes that design happened to take.
    var medianAccuracy: Double
    /// The engine's maximum speed on this trajectory, m/s, and its acceleration bound, m/s² (`nil`: none).
    var maximumSpeed: Double
    var maximumAcceleration: Double?
    /// How near a boundary the reach oracle tracks, metres.
    var reach: Double
    var oracle: ReachOracle
    var oracleJoules: Double
    var alwaysOnJoules: Double
    var engineComparison: TransitionComparison
    var naiveComparison: TransitionComparison
    /// With `--geofence-curve`: the engine swept over its responsiveness and the polling designs (else empty), and
    /// the invariants the sweep's engine runs broke.
    var curve: [GeofenceCurvePoint]
    var curveViolations: [String]
}

/// `locbench --geofences N`: for each shape, a trajectory with its ground truth, N fences along it, the engine and the
/// naive design over the same receiver, each compared with the truth, and the energy against always-on and the
/// reach oracle.
struct GeofenceBench {
    var count: Int
    var shapes: [GeofenceShape]
    var duration: Double
    var seed: UInt64
    var persona: ReceiverPersona
    var configuration: LocationEngineConfiguration
    /// The engine's ``GeofenceConfiguration/maximumSpeed`` on each trajectory.
    var maximumSpeed: GeofenceSpeed
    /// Every monitor's ``GeofenceOptions/responsiveness`` in the main run.
    var responsiveness: Duration
    /// Whether to sweep the curve (``GeofenceCurve``).
    var curve: Bool
    /// How much of the receiver's error its fixes carry (``Scenario/fixErrorScale``), for every design alike.
    var fixErrorScale: Double = 1

    func run(progress: (String) -> Void) async throws(LocbenchError) -> [GeofenceShapeRun] {
        var runs: [GeofenceShapeRun] = []
        for shape in shapes {
            progress("geofences: \(shape.rawValue): truth and \(count) fences")
            var scenario = shape.scenario(seed: seed)
            scenario.fixErrorScale = fixErrorScale
            let path = TruthPath(scenario: scenario, duration: duration)
            let fences = FencePlacement.place(count: count, along: path, seed: seed)
            guard fences.count == count else {
                throw .badArgument(
                    "the \(shape.rawValue) trajectory covers \(Int(path.distanceAlong.last ?? 0)) m in --geofence-duration \(Int(duration)) s, and fences lie beyond its first \(Int(FencePlacement.firstAnchor)) m and at least \(Int(FencePlacement.clearanceAtStart)) m from its start: \(fences.count) of \(count) could be placed; make it longer (or try another --seed)")
            }
            let crossings = GroundTruth.fences(fences.map(\.region), along: path)
            progress("geofences: \(shape.rawValue): the engine")
            var configuration = configuration
            configuration.geofences.maximumSpeed = maximumSpeed.speed(for: shape)
            configuration.geofences.maximumAcceleration = maximumSpeed.acceleration(for: shape)
            let engine = await GeofenceRun.engine(
                scenario: scenario, fences: fences, duration: duration, persona: persona, configuration: configuration, responsiveness: responsiveness)
            progress("geofences: \(shape.rawValue): the naive design")
            let naive = NaiveGeofenceMonitor.run(scenario: scenario, fences: fences, duration: duration, persona: persona)
            // The margin, the decidable instants and the oracle's reach come from the receiver, not from the design
            // under test: a design whose fixes are more often a restart's first (less accurate) one would otherwise
            // move the yardstick it is measured with.
            let medianAccuracy = Self.median(naive.accuracies.isEmpty ? engine.accuracies : naive.accuracies)
            let rules = configuration.geofences
            let margin = rules.decisionDistance(accuracy: medianAccuracy)
            let reach = margin + shape.topSpeed * scenario.fixInterval
            // A decision waits for the margin at the accuracy the receiver gives at the time, for every design alike:
            // the always-on design's fixes say what that was, second by second.
            let decisionMargin = DecisionMargin(rules: rules, medianAccuracy: medianAccuracy, accuracies: naive.fixAccuracies)
            let truth = zip(crossings, fences).map { $0.findingDecidableInstants(of: $1.region, along: path, margin: decisionMargin) }
            let oracle = ReachOracle(regions: fences.map(\.region), along: path, reach: reach)
            let end = Int64(path.duration * 1e9)
            var oracleJoules = 0.0, alwaysOnJoules = 0.0
            if let profile = persona.powerProfile {
                let firstStart = ReceiverPowerProfile.StartCondition(rawValue: scenario.startCondition.rawValue) ?? .cold
                oracleJoules = oracle.joules(end: end, profile: profile, firstStart: firstStart)
                let whole = [Demand(TimelineInterval(start: 0, end: end), level: PowerMode.best.rawValue)]
                alwaysOnJoules = DesignCharge(.alwaysOn, segments: whole, end: end, profile: profile, firstStart: firstStart).joules
            }
            var curvePoints: [GeofenceCurvePoint] = []
            var curveViolations: [String] = []
            if curve {
                var engines: [(seconds: Int, run: GeofenceDesignRun)] = []
                for seconds in GeofenceCurve.responsivenesses {
                    progress("geofences: \(shape.rawValue): the curve, the engine at \(seconds) s")
                    let run =
                        Duration.seconds(seconds) == responsiveness
                        ? engine
                        : await GeofenceRun.engine(
                            scenario: scenario, fences: fences, duration: duration, persona: persona, configuration: configuration, responsiveness: .seconds(seconds))
                    curveViolations += run.violations.map { "responsiveness \(seconds) s: \($0)" }
                    engines.append((seconds, run))
                }
                let polling = GeofenceCurve.pollingIntervals.map { seconds in
                    progress("geofences: \(shape.rawValue): the curve, polling every \(seconds) s")
                    return (
                        seconds: seconds,
                        run: PollingGeofenceMonitor.run(
                            interval: seconds, scenario: scenario, fences: fences, duration: duration, persona: persona, configuration: configuration.geofences,
                            loiteringDelay: GeofenceRun.loiteringDelay)
                    )
                }
                curvePoints = GeofenceCurve.points(engine: engines, polling: polling, truth: truth, margin: margin, end: path.duration, oracleJoules: oracleJoules)
            }
            runs.append(
                GeofenceShapeRun(
                    shape: shape, path: path, fences: fences, truth: truth, engine: engine, naive: naive, margin: margin, rules: rules,
                    medianAccuracy: medianAccuracy, maximumSpeed: configuration.geofences.maximumSpeed,
                    maximumAcceleration: configuration.geofences.maximumAcceleration, reach: reach, oracle: oracle, oracleJoules: oracleJoules, alwaysOnJoules: alwaysOnJoules,
                    engineComparison: TransitionComparison(
                        reports: engine.reports, truth: truth, margin: margin, end: path.duration, waiting: Double(responsiveness.components.seconds)),
                    naiveComparison: TransitionComparison(reports: naive.reports, truth: truth, margin: margin, end: path.duration),
                    curve: curvePoints, curveViolations: curveViolations))
        }
        return runs
    }

    static func median(_ values: [Double]) -> Double {
        guard !values.isEmpty else { return 0 }
        return values.sorted()[values.count / 2]
    }
}

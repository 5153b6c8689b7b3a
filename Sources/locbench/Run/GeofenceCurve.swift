import LocbenchModel

/// One design of the energy/latency curve over one trajectory: the engine at one responsiveness, or a
/// fixed-interval polling design (``PollingGeofenceMonitor``), judged against the same truth.
struct GeofenceCurvePoint: Codable, Sendable {
    /// `engine` or `polling`.
    var design: String
    /// The engine's responsiveness, or the polling design's fix interval, seconds.
    var settingSeconds: Double
    var energyJoules: Double
    var energyVsReachOracle: Double
    /// Delivery minus the decidable instant, p99, and minus the true crossing, p99; each `nil` when the design
    /// delivered no transition it applies to (sleeping through every crossing is not a latency of zero).
    var latencyFromDecidableP99Seconds: Double?
    var latencyP99Seconds: Double?
    var falseTransitions: Int
    var duplicates: Int
    /// True crossings deeper than the margin reported, not reported, and not reported but in the run's last
    /// stretch, which the design's budget or fix interval may still owe (``TransitionComparison``).
    var detected: Int
    var missed: Int
    var pendingAtEnd: Int
    /// No other design of the curve has less or as much energy, latency from the decidable instant and missed
    /// transitions, and less of one (``ParetoFront``).
    var onParetoFront: Bool

    /// What the Pareto front compares.
    var figures: ParetoFront.Point {
        ParetoFront.Point(energy: energyJoules, latency: latencyFromDecidableP99Seconds ?? .infinity, missed: missed)
    }
}

/// `locbench --geofences N --geofence-curve`: the engine swept over its responsiveness and the fixed-interval
/// polling designs beside it, energy against latency from the decidable instant and missed transitions, the
/// Pareto front of the three marked.
enum GeofenceCurve {
    /// The engine's settings swept, seconds (``GeofenceOptions/responsiveness``).
    static let responsivenesses = [0, 5, 10, 20, 30, 60, 120, 300]
    /// The polling designs' fix intervals, seconds.
    static let pollingIntervals = [1, 2, 5, 10, 30, 60, 120, 300]

    /// The curve's points, the engine's first, each judged against `truth` as the main comparison is.
    static func points(
        engine: [(seconds: Int, run: GeofenceDesignRun)], polling: [(seconds: Int, run: GeofenceDesignRun)], truth: [FenceTruth], margin: Double,
        end: Double, oracleJoules: Double
    ) -> [GeofenceCurvePoint] {
        func point(_ design: String, _ seconds: Int, _ run: GeofenceDesignRun) -> GeofenceCurvePoint {
            // A crossing in the run's last stretch that the budget or the fix interval may still owe is pending.
            let comparison = TransitionComparison(reports: run.reports, truth: truth, margin: margin, end: end, waiting: Double(seconds))
            return GeofenceCurvePoint(
                design: design, settingSeconds: Double(seconds), energyJoules: run.meteredJoules,
                energyVsReachOracle: oracleJoules > 0 ? run.meteredJoules / oracleJoules : 0,
                latencyFromDecidableP99Seconds: comparison.latencyFromDecidable(percentile: 99), latencyP99Seconds: comparison.latency(percentile: 99),
                falseTransitions: comparison.falseTransitions, duplicates: comparison.duplicates,
                detected: comparison.detected - comparison.withinMarginDetected, missed: comparison.missed, pendingAtEnd: comparison.pendingAtEnd,
                onParetoFront: false)
        }
        var points = engine.map { point("engine", $0.seconds, $0.run) } + polling.map { point("polling", $0.seconds, $0.run) }
        let front = ParetoFront.members(of: points.map(\.figures))
        for index in points.indices { points[index].onParetoFront = front[index] }
        return points
    }

    /// How many polling designs of `points` some engine point dominates, and the fix intervals of those that
    /// dominate some engine point, seconds: on energy, latency and missed transitions, or (`countingMisses`
    /// false) on energy and latency alone.
    static func dominance(_ points: [GeofenceCurvePoint], countingMisses: Bool = true) -> (pollingDominated: Int, pollingDominating: [Int]) {
        func figures(_ point: GeofenceCurvePoint) -> ParetoFront.Point {
            var figures = point.figures
            if !countingMisses { figures.missed = 0 }
            return figures
        }
        let engine = points.filter { $0.design == "engine" }.map(figures)
        let polling = points.filter { $0.design == "polling" }
        let dominated = polling.count { design in engine.contains { ParetoFront.dominates($0, figures(design)) } }
        let dominating = polling.filter { design in engine.contains { ParetoFront.dominates(figures(design), $0) } }
        return (dominated, dominating.map { Int($0.settingSeconds) })
    }
}

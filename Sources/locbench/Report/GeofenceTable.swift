import Foundation

/// The text `locbench --geofences N` prints: per trajectory, both designs against the truth and the energy bounds,
/// then the engine's headline figures.
enum GeofenceTable {
    static func render(_ report: GeofenceReport) -> String {
        let pad = TableReport.pad
        var lines = [
            String(
                format: "locbench --geofences %d: %d fences per trajectory, %@ each, receiver %@ (metered), power-down %@, maximum speed %@, responsiveness %@, seed %llu, virtual clock",
                report.fences, report.fences, duration(report.durationSeconds), report.receiver, report.powerDown, report.maximumSpeedRule,
                duration(report.responsivenessSeconds), report.seed),
            "  the truth: the receiver's 1 s trajectory samples joined by straight lines, crossings bisected to 1 mm;"
                + (report.fixErrorScale == 1
                    ? " the fixes carry the receiver's noise (its error model and sky)"
                    : String(format: " the fixes carry %g × the receiver's position and velocity error (--geofence-fix-error), its reported accuracy and sky unchanged", report.fixErrorScale)),
        ]
        for shape in report.shapes {
            let placements = ["crossed", "touched", "far"].map { "\(shape.placements[$0] ?? 0) \($0)" }.joined(separator: ", ")
            lines.append("")
            lines.append(
                String(
                    format: "%@: %.1f km, stopped %@; %d circles, %d polygons (placed %@); %d fences crossed, %d true crossings",
                    shape.shape, shape.distanceKilometres, duration(shape.stoppedSeconds), shape.circles, shape.polygons, placements,
                    shape.fencesCrossed, shape.trueCrossings))
            lines.append(
                String(
                    format: "  margin %.1f m (2a + max(20 m, a) at the receiver's median accuracy a = %.1f m tracking continuously: shallower excursions excepted),"
                        + " %.1f s of travel at the median moving speed %.1f m/s; reach %.0f m; the engine's maximumSpeed %.1f m/s, maximumAcceleration %@",
                    shape.marginMetres, shape.medianAccuracyMetres, shape.marginTravelSeconds, shape.medianMovingSpeed, shape.reachMetres,
                    shape.maximumSpeed, shape.maximumAcceleration.map { String(format: "%.1f m/s²", $0) } ?? "none"))
            lines.append(
                "  " + pad("design", 7) + "  detected  missed  excepted  pending  duplicate  false  dwell  unknown  crossed"
                    + "  latency p50/p99/max       energy  vs always-on  vs oracle  on-time  CPU/fix")
            for design in shape.designs {
                lines.append(
                    "  " + pad(design.design, 7)
                        + String(
                            format: "  %8d  %6d  %8d  %7d  %9d  %5d  %5d  %7d  %7d  %@  %7.1f J  %11.1f%%  %8.2fx  %6.0f s  %5.1f µs",
                            design.detected, design.missed, design.withinMargin, design.pendingAtEnd, design.duplicates,
                            design.falseTransitions, design.dwells, design.unknowns, design.crossedBetweenFixes,
                            pad(seconds([design.latencyP50Seconds, design.latencyP99Seconds, design.latencyMaxSeconds], format: "%5.1f", none: "none delivered"), 23),
                            design.energyJoules, 100 * design.energyVsAlwaysOn, design.energyVsReachOracle,
                            design.receiverOnSeconds, design.cpuMicrosecondsPerFix))
            }
            for design in shape.designs {
                let percentiles = seconds([design.latencyFromDecidableP50Seconds, design.latencyFromDecidableP99Seconds, design.latencyFromDecidableMaxSeconds])
                lines.append(
                    String(
                        format: "  %@: latency from the decidable instant (the truth first the margin past the boundary, 2a + max(20 m, a) at the accuracy a the receiver gave then;"
                            + " a fix every %.0f s while tracking), %d transitions: p50/p99/max %@; at the median's %.1f m throughout, p99 %@",
                        design.design, report.fixIntervalSeconds, design.latencyFromDecidableSeconds.count, percentiles, shape.marginMetres,
                        seconds([design.latencyFromDecidableAtMedianAccuracyP99Seconds])))
            }
            for design in shape.designs where design.design != "naive" {
                guard let states = design.receiverStates else { continue }
                lines.append(
                    String(
                        format: "  %@: the receiver's energy by state: acquiring %.0f s, %.1f J, over %d starts (%.2f J each); tracking %.0f s, %.1f J; waiting %.0f s, %.1f J",
                        design.design, states.acquisitionSeconds, states.acquisitionJoules, states.acquiringStarts,
                        states.acquiringStarts > 0 ? states.acquisitionJoules / Double(states.acquiringStarts) : 0, states.trackingSeconds,
                        states.trackingJoules, states.waitingSeconds, states.waitingJoules))
            }
            for design in shape.designs where design.estimatedCrossings > 0 {
                lines.append(
                    String(
                        format: "  %@: the estimated crossing instant (GeofenceEvent.estimatedCrossing) against the truth, %d transitions: |error| p50/p99 %@",
                        design.design, design.estimatedCrossings, seconds([design.estimateErrorP50Seconds, design.estimateErrorP99Seconds])))
            }
            lines.append(
                String(
                    format: "  reach oracle %.1f J (tracking %@ of %@, within %.0f m of a boundary, restarts paid); always-on %.1f J",
                    shape.reachOracleJoules, duration(shape.reachOracleTrackingSeconds), duration(report.durationSeconds), shape.reachMetres,
                    shape.alwaysOnJoules))
            let beyond = shape.engineBeyondReachOracle
            lines.append(
                String(
                    format: "  the engine tracked %@ while the oracle did not: %@ with the mover stopped (no design that cannot see ahead knows a stop goes on), %@ moving (it plans by its maximum speed); the oracle tracked %@ while the engine did not",
                    duration(beyond.stoppedSeconds + beyond.movingSeconds), duration(beyond.stoppedSeconds), duration(beyond.movingSeconds),
                    duration(beyond.missingSeconds)))
            lines += curve(shape)
            lines.append("  the engine's slowest transitions (crossing, latency, true speed, receiver then, seconds without a fix, deciding fix past the boundary ± accuracy, truth past it after the travel since the crossing):")
            for tail in shape.engineSlowest.prefix(5) {
                lines.append(
                    String(
                        format: "    fence %4d %@ at %6.0f s: %5.1f s late (estimate %@), %4.1f m/s, receiver %@, %3d s without a fix, fix %@, truth %.0f m after %.0f m of travel",
                        tail.fence, tail.entering ? "entered" : "exited ", tail.crossingSeconds, tail.latencySeconds,
                        tail.estimateErrorSeconds.map { String(format: "%+.1f s", $0) } ?? "none", tail.speed,
                        tail.receiverAtCrossing, tail.secondsWithoutFix,
                        tail.decidingDepth.map { String(format: "%.0f m ± %.0f", $0, tail.decidingAccuracy ?? 0) } ?? "none",
                        tail.trueDepthAtDelivery, tail.travelledToDelivery))
            }
            if !shape.engineMissed.isEmpty {
                lines.append(
                    String(
                        format: "  the engine's missed crossings (how deep the excursion went, against the margin of %.1f m; its fixes, and the one nearest to deciding it: how far past the boundary ± accuracy, and the distance the rules ask of a fix that accurate):",
                        shape.marginMetres))
                for miss in shape.engineMissed {
                    let nearest =
                        miss.endsMissedExcursion
                        ? "ends the excursion missed above"
                        : miss.nearestFix.map { String(format: "nearest %.1f m ± %.1f, asked %.1f m", $0.depth, $0.accuracy, $0.asked) } ?? "none"
                    lines.append(
                        String(
                            format: "    fence %4d %@ at %6.0f s: %5.1f m deep, %3d fixes, %@",
                            miss.fence, miss.entering ? "entered" : "exited ", miss.crossingSeconds, miss.excursionDepth, miss.fixes, nearest))
                }
            }
        }
        lines.append("")
        lines.append("the engine's figures:")
        for figure in report.figures {
            lines.append("  " + pad(figure.figure, 60) + "  " + figure.measured)
        }
        let violations = report.shapes.flatMap { $0.designs.filter { $0.design == "engine" } }.reduce(0) { $0 + $1.invariantViolations }
        lines.append(
            violations == 0
                ? "invariants: every monitor ended exactly once (force-completed), nothing after its end, the source off at the end"
                : "INVARIANTS VIOLATED: \(violations)")
        lines.append(String(format: "process wall time %.1f s", report.processWallSeconds))
        return lines.joined(separator: "\n")
    }

    /// The energy/latency curve of one trajectory, if it was swept: a line per design, the Pareto front marked.
    static func curve(_ shape: GeofenceReport.Shape) -> [String] {
        guard !shape.curve.isEmpty else { return [] }
        var lines = [
            "  the curve: energy against latency p99 from the decidable instant and missed transitions (* on the Pareto front of the three); the engine by its responsiveness, polling by its fix interval (standby between fixes, restarts paid, the engine's decision rules):"
        ]
        for point in shape.curve {
            let latency =
                if let fromDecidable = point.latencyFromDecidableP99Seconds, let fromCrossing = point.latencyP99Seconds {
                    String(format: "p99 %6.1f s from the decidable instant, %6.1f s from the crossing", fromDecidable, fromCrossing)
                } else {
                    "no transition delivered"
                }
            lines.append(
                String(
                    format: "    %@ %@ %7.1f J  %5.2fx oracle  %@; false %d, duplicate %d, detected %d, missed %d%@ %@",
                    TableReport.pad(point.design, 7), TableReport.pad(duration(point.settingSeconds), 9), point.energyJoules, point.energyVsReachOracle,
                    latency, point.falseTransitions, point.duplicates, point.detected, point.missed,
                    point.pendingAtEnd > 0 ? ", pending at the end \(point.pendingAtEnd)" : "", point.onParetoFront ? "*" : ""))
        }
        let polling = shape.curve.count { $0.design == "polling" }
        lines.append("  polling designs that a point of the engine's curve dominates (less or as much energy, latency p99 and missed transitions, less of one): \(shape.pollingDominated) of \(polling)")
        func intervals(_ seconds: [Int]) -> String {
            seconds.isEmpty ? "none" : seconds.map { "every \(duration(Double($0)))" }.joined(separator: ", ")
        }
        lines.append("  polling designs that dominate a point of the engine's curve: \(intervals(shape.pollingDominating))")
        lines.append(
            "  on energy and latency p99 alone (missed transitions not counted): the engine dominates \(shape.pollingDominatedOnEnergyAndLatency) of \(polling); dominating an engine point: \(intervals(shape.pollingDominatingOnEnergyAndLatency))")
        return lines
    }

    /// Percentiles of one set of transitions as the reports print them, `a / b / c s` (each with `format`), or
    /// `none` when the set was empty (they are all there or none is).
    static func seconds(_ values: [Double?], format: String = "%.1f", none: String = "none") -> String {
        let present = values.compactMap(\.self)
        guard !present.isEmpty, present.count == values.count else { return none }
        return present.map { String(format: format, $0) }.joined(separator: " / ") + " s"
    }

    /// One percentile, `a s`, or `none`.
    static func seconds(_ value: Double?) -> String { seconds([value]) }

    /// `3600` as `1 h 0 min`, `754` as `12 min 34 s`.
    static func duration(_ seconds: Double) -> String {
        let total = Int(seconds.rounded())
        if total >= 3600 { return "\(total / 3600) h \(total % 3600 / 60) min" }
        if total >= 60 { return "\(total / 60) min \(total % 60) s" }
        return "\(total) s"
    }
}

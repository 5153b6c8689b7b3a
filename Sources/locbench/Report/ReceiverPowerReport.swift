import Foundation
@_spi(Internals) import LocationEngine
import LocbenchModel
import SyntheticGPS

extension Report {
    /// One power design on the run's demand: the engine and the naive design as the synthetic receiver metered
    /// them, the others charged on the engine run's demand with the receiver's profile (``DesignCharge``).
    struct PowerDesignRow: Codable, Sendable {
        var design: String
        /// `metered` (the synthetic receiver's own meter) or `charged` (the profile, on the run's demand).
        var energySource: String
        var energyJoules: Double
        var vsOracle: Double
        /// Restarts after the first start.
        var restarts: Int
        /// Start → first fix of those restarts: what a request arriving then waits.
        var restartDelayP50Seconds: Double
        var restartDelayP99Seconds: Double
        /// Metered designs: the first-fix delay a power-down added (start → first fix, less the wait for the next
        /// epoch a running receiver would have had), over the restarts after less than the ephemerides stay valid.
        var addedDelayRestarts: Int?
        var addedDelayP50Seconds: Double?
        var addedDelayP99Seconds: Double?
    }

    /// Energy from the receiver against the restart-aware oracle and the other designs (`--receiver`, `--shape`).
    struct ReceiverPower: Codable, Sendable {
        var receiver: String
        /// The receiver's fault (`--receiver-fault`), if any.
        var fault: String?
        /// Whether the fault leaves the receiver controllable: the engine must then stay within 1.1× the oracle.
        var faultLeavesReceiverControllable: Bool?
        var shape: String
        var powerDown: String
        /// The break-even of the receiver's first step down from tracking in the best mode.
        var breakEvenSeconds: Double
        var ephemerisValiditySeconds: Double
        /// The longest hot start of the synthetic receiver: the goal for the first-fix delay a power-down adds.
        var hotStartSeconds: Double
        /// The engine's added first-fix delay after a power-down shorter than the ephemerides stay valid, p99,
        /// against ``hotStartSeconds``.
        var addedDelayGoalMet: Bool
        var oracleJoules: Double
        var designs: [PowerDesignRow]
        var engineVsOracle: Double
        var engineVsGpsd: Double
        var engineVsStopImmediately: Double
        /// The engine spent less than both stop-immediately and gpsd's 60 s release.
        var energyGoalMet: Bool
        /// Gaps by the oracle's choice: on, standby, off.
        var oracleGapChoices: [String: Int]
    }

    /// The receiver's figures for a synthetic run with a persona that describes itself (`nil` otherwise).
    /// `stopImmediately`, when given, is the engine run as INTULocationManager (linger zero, no restart-aware
    /// rule) on the same workload and receiver: its row is then metered like the engine's, not charged.
    static func receiverPower(
        engine: RunMeasurements, naive: RunMeasurements?, stopImmediately: RunMeasurements? = nil, shape: String, persona: ReceiverPersona?,
        powerDown: PowerDownRule, firstStart: StartCondition, fault: ReceiverFault? = nil
    ) -> ReceiverPower? {
        guard let persona, let profile = persona.powerProfile, let engineJoules = engine.meteredJoules else { return nil }
        let segments = engine.oracle.segments
        let end = Int64(engine.timelineSeconds * 1e9)
        let first = ReceiverPowerProfile.StartCondition(rawValue: firstStart.rawValue) ?? .cold
        let restartAware = RestartAwareOracle(segments: segments, profile: profile, firstStart: first)
        // The oracle waits in the deepest state before the first demand and after the last, as the designs do.
        let oracleJoules = RestartAwareOracle.joules(segments: segments, end: end, profile: profile, firstStart: first)
        let seconds = { (values: [Int64]) -> (Double, Double) in
            let sorted = values.sorted()
            guard !sorted.isEmpty else { return (0, 0) }
            let p99 = sorted[min(sorted.count - 1, Int((Double(sorted.count) * 0.99).rounded(.up)) - 1)]
            return (Double(sorted[sorted.count / 2]) / 1e9, Double(p99) / 1e9)
        }
        let ratio = { (joules: Double) in oracleJoules > 0 ? joules / oracleJoules : 0 }
        let validity = profile.ephemerisValidity.saturatingNanoseconds
        func row(_ name: String, _ source: String, _ joules: Double, _ delays: [Int64], restarts: [RecordingSource.RestartDelay]? = nil) -> PowerDesignRow {
            let (p50, p99) = seconds(delays)
            var row = PowerDesignRow(
                design: name, energySource: source, energyJoules: joules, vsOracle: ratio(joules), restarts: delays.count,
                restartDelayP50Seconds: p50, restartDelayP99Seconds: p99)
            if let restarts {
                let hot = restarts.filter { $0.downFor < validity }.map(\.added)
                let (added50, added99) = seconds(hot)
                row.addedDelayRestarts = hot.count
                row.addedDelayP50Seconds = added50
                row.addedDelayP99Seconds = added99
            }
            return row
        }
        func metered(_ name: String, _ joules: Double, _ restarts: [RecordingSource.RestartDelay]) -> PowerDesignRow {
            row(name, "metered", joules, restarts.map(\.delay), restarts: restarts)
        }
        let engineRow = metered("engine", engineJoules, engine.restarts)
        var rows = [
            engineRow,
            PowerDesignRow(
                design: "restart-aware oracle", energySource: "charged", energyJoules: oracleJoules, vsOracle: 1,
                restarts: restartAware.gaps.filter { $0.state != .on }.count, restartDelayP50Seconds: 0, restartDelayP99Seconds: 0),
        ]
        var charged: [PowerDesign: Double] = [:]
        for design in PowerDesign.allCases {
            if design == .stopImmediately, let run = stopImmediately, let joules = run.meteredJoules {
                charged[design] = joules
                rows.append(metered(design.name, joules, run.restarts))
                continue
            }
            let charge = DesignCharge(design, segments: segments, end: end, profile: profile, firstStart: first)
            charged[design] = charge.joules
            rows.append(row(design.name, "charged", charge.joules, charge.restartDelays.map { $0.saturatingNanoseconds }))
        }
        if let naive, let joules = naive.meteredJoules { rows.append(metered("naive", joules, naive.restarts)) }
        let hot = StartCondition.hot.timeToFirstFix.upperBound
        let engineVsGpsd = engineJoules / max(1e-12, charged[.gpsdRelease] ?? 0)
        let engineVsStopImmediately = engineJoules / max(1e-12, charged[.stopImmediately] ?? 0)
        return ReceiverPower(
            receiver: persona.rawValue, fault: fault?.rawValue, faultLeavesReceiverControllable: fault?.leavesReceiverControllable, shape: shape, powerDown: powerDown.description,
            breakEvenSeconds: PowerDownDecider(profile: profile).plan(mode: .best).dropFirst().first.map { Double($0.after.saturatingNanoseconds) / 1e9 } ?? 0,
            ephemerisValiditySeconds: Double(profile.ephemerisValidity.saturatingNanoseconds) / 1e9,
            hotStartSeconds: hot, addedDelayGoalMet: (engineRow.addedDelayP99Seconds ?? 0) <= hot + 1e-9, oracleJoules: oracleJoules, designs: rows,
            engineVsOracle: ratio(engineJoules),
            engineVsGpsd: engineVsGpsd,
            engineVsStopImmediately: engineVsStopImmediately,
            energyGoalMet: engineVsStopImmediately < 1 && engineVsGpsd < 1,
            oracleGapChoices: Dictionary(grouping: restartAware.gaps, by: { $0.state.rawValue }).mapValues(\.count))
    }
}

extension TableReport {
    /// The receiver's energy against the restart-aware oracle and the other designs, one line each.
    static func receiverLines(_ power: Report.ReceiverPower) -> [String] {
        var lines = [
            String(
                format: "receiver energy (%@, metered by the synthetic receiver; shape %@; engine %@): %.2f× the restart-aware oracle, %.2f× gpsd 60 s, %.2f× stop-immediately",
                power.receiver + (power.fault.map { " that \($0.replacingOccurrences(of: "-", with: " "))" } ?? ""), power.shape, power.powerDown, power.engineVsOracle, power.engineVsGpsd, power.engineVsStopImmediately),
            String(
                format: "       break-even %.2f s; ephemerides valid %.0f s; the oracle's gaps: %d on, %d standby, %d off",
                power.breakEvenSeconds, power.ephemerisValiditySeconds, power.oracleGapChoices["on"] ?? 0, power.oracleGapChoices["standby"] ?? 0,
                power.oracleGapChoices["off"] ?? 0),
        ]
        let width = max(22, power.designs.map(\.design.count).max() ?? 0)
        lines.append(
            "       " + pad("design", width)
                + "  energy        vs oracle  restarts  first fix after restart p50/p99  added by a power-down under the ephemerides' validity: restarts, p50/p99")
        for row in power.designs {
            let added =
                row.addedDelayRestarts.map { count in
                    String(format: "  %5d, %.1f s / %.1f s", count, row.addedDelayP50Seconds ?? 0, row.addedDelayP99Seconds ?? 0)
                } ?? ""
            lines.append(
                "       " + pad(row.design, width)
                    + String(
                        format: "  %9.2f J  %8.2f×  %8d  %.1f s / %.1f s  (%@)", row.energyJoules, row.vsOracle, row.restarts,
                        row.restartDelayP50Seconds, row.restartDelayP99Seconds, row.energySource) + added)
        }
        if let engine = power.designs.first(where: { $0.design == "engine" }) {
            lines.append(
                String(
                    format: "       the first-fix delay a power-down adds, p99, after less than the ephemerides' validity: %.1f s over %d restarts (the hot start: %.1f s)",
                    engine.addedDelayP99Seconds ?? 0, engine.addedDelayRestarts ?? 0, power.hotStartSeconds))
            lines.append(
                String(
                    format: "       the engine's energy against stop-immediately and gpsd 60 s: %.3f× and %.3f×", power.engineVsStopImmediately, power.engineVsGpsd))
        }
        return lines
    }
}

extension Report {
    /// With a metered receiver, the headline's energies are the receiver's: the designs' metered joules, against
    /// always-on and the restart-aware oracle charged with the same profile (the mode-table model stays for real
    /// sources, which meter nothing).
    mutating func adoptMeteredEnergy() {
        guard let receiver else { return }
        let alwaysOn = receiver.designs.first { $0.design == PowerDesign.alwaysOn.name }?.energyJoules ?? 0
        engine.alwaysOnEnergyJoules = alwaysOn
        baseline?.alwaysOnEnergyJoules = alwaysOn
        power.alwaysOnEnergyJoules = alwaysOn
        power.oracleEnergyJoules = receiver.oracleJoules
        power.engineEnergyVsOracle = receiver.engineVsOracle
        power.engineEnergyVsAlwaysOn = alwaysOn > 0 ? engine.energyJoules / alwaysOn : 0
        if let baseline { power.naiveEnergyVsEngine = engine.energyJoules > 0 ? baseline.energyJoules / engine.energyJoules : 0 }
    }
}

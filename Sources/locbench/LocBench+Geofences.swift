import Foundation
@_spi(Internals) import LocationEngine
import LocbenchModel
import SyntheticGPS

extension LocBench {
    /// `--geofences N`: runs ``GeofenceBench``, prints its table, writes `--json` and `--report`, and fails when the
    /// engine broke an invariant.
    func runGeofences(count: Int) async throws {
        let processStart = ContinuousClock.now
        var configuration = LocationEngineConfiguration(linger: try lingerDuration())
        configuration.powerDown = powerDownRule()!
        let bench = GeofenceBench(
            count: count, shapes: try GeofenceShape.list(parsing: geofenceShapes), duration: try DurationOptions.geofenceDuration(parsing: geofenceDuration),
            seed: seed, persona: ReceiverPersona(name: receiver)!, configuration: configuration,
            maximumSpeed: try GeofenceSpeed(parsing: geofenceMaxSpeed),
            responsiveness: .milliseconds(Int64((try DurationOptions.geofenceResponsiveness(parsing: geofenceResponsiveness) * 1000).rounded())),
            curve: geofenceCurve, fixErrorScale: geofenceFixError)
        let showProgress = ProcessStats.stderrIsTerminal && json == nil
        let runs = try await bench.run { message in
            if showProgress { FileHandle.standardError.write(Data("\r\u{1B}[K\(message)".utf8)) }
        }
        if showProgress { FileHandle.standardError.write(Data("\r\u{1B}[K".utf8)) }
        let report = GeofenceReport(
            command: CommandLine.arguments.joined(separator: " "), seed: seed, fences: count, receiver: receiver,
            maximumSpeed: bench.maximumSpeed.description, responsiveness: bench.responsiveness, fixErrorScale: bench.fixErrorScale,
            powerDown: configuration.powerDown.description, processWallSeconds: Double(processStart.duration(to: .now).saturatingNanoseconds) / 1e9,
            runs: runs)
        print(GeofenceTable.render(report))
        if let json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            try write(try encoder.encode(report), to: json)
        }
        if let path = self.report { try write(Data(GeofenceHTML.render(report, runs: runs).utf8), to: path) }
        let violations = runs.flatMap { run in (run.engine.violations + run.curveViolations).map { "\(run.shape.rawValue): \($0)" } }
        if !violations.isEmpty { throw LocbenchError.invariantViolated(violations.prefix(20).joined(separator: "\n")) }
    }
}

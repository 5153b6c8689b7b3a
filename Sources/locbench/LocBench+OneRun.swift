import Foundation
@_spi(Internals) import LocationEngine
import LocationEngineTestKit
import LocationSources
import LocationSourcesGeoClue
import LocbenchModel
import Logging
import SyntheticGPS

/// One run of one design over the workload, on the virtual or the wall clock, and writing its files.
extension LocBench {
    static func run(
        design: String, label: String, runner: Runner, clockKind: ClockKind, source sourceKind: SourceKind, scenario: Scenario, linger: Duration,
        authorization: AuthorizationScript?, persona: ReceiverPersona, powerDown: PowerDownRule, fault: ReceiverFault? = nil
    ) async -> RunMeasurements {
        // The synthetic receiver loses its fix now and then (a transient error the engine logs at notice): not news here.
        var logger = Logger(label: "LocationEngine")
        logger.logLevel = .warning
        /// The engine's configuration: with a script, a simulated user whose changes the ledger follows.
        func configuration(_ recording: RecordingSource) -> LocationEngineConfiguration {
            var configuration = LocationEngineConfiguration(linger: linger)
            if let authorization {
                let ledger = recording.ledger
                configuration = .init(
                    linger: linger, authorizationProvider: SimulatedAuthorizationProvider(authorization.script),
                    usage: UsageDeclarations(whenInUse: "locbench"),
                    onAuthorizationChange: { ledger.authorizationChanged($0) })
            }
            configuration.powerDown = powerDown
            return configuration
        }
        switch clockKind {
        case .virtual:
            let clock = ManualClock()
            let source = SyntheticLocationSource(scenario: scenario, drive: .manual, persona: persona, fault: fault)
            let offset: @Sendable (ManualClock.Instant) -> Int64 = { $0.offset.saturatingNanoseconds }
            return await runner.runVirtual(
                design: design, label: label,
                makeService: { clock, recording -> any LocationService in
                    if design == "engine" {
                        EngineService(
                            running: LocationEngine(source: recording, clock: clock, configuration: configuration(recording), logger: logger),
                            offset: offset)
                    } else {
                        NaiveLocationManager(source: recording, clock: clock)
                    }
                },
                source: source, clock: clock)
        case .wall:
            let start = ContinuousClock.now
            let source: any LocationSource =
                switch sourceKind {
                case .synthetic: SyntheticLocationSource(scenario: scenario, drive: .realTime, persona: persona, fault: fault)
                case .nmea(let path): NMEAStreamSource(.file(path: path, pacing: .recorded()))
                case .gpsd(let host, let port): GPSDLocationSource(configuration: GPSDConfiguration(host: host, port: port))
                case .geoclue(let desktopId): GeoClueLocationSource(GeoClueConfiguration(desktopId: desktopId))
                }
            defer { if let geoclue = source as? GeoClueLocationSource { GeoClueFigures.print(geoclue.statistics, label: label) } }
            let offset: @Sendable (ContinuousClock.Instant) -> Int64 = { start.duration(to: $0).saturatingNanoseconds }
            return await runner.runWall(
                design: design, label: label,
                makeService: { recording -> any LocationService in
                    if design == "engine" {
                        EngineService(running: LocationEngine(source: recording, configuration: configuration(recording), logger: logger), offset: offset)
                    } else {
                        NaiveLocationManager(source: recording, clock: ContinuousClock())
                    }
                },
                source: source, start: start)
        }
    }

    func write(_ data: Data, to path: String) throws {
        do {
            try data.write(to: URL(fileURLWithPath: path))
        } catch {
            throw LocbenchError.io("cannot write \(path): \(error.localizedDescription)")
        }
    }
}

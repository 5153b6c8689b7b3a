import CoreMetrics
import LocationEngine
import LocationSources
import Logging
import SyntheticGPS

/// Where fixes come from: the synthetic receiver (default), gpsd, or an NMEA log replayed at its
/// recorded pace.
enum SourceChoice: Equatable {
    case synthetic(scenario: String, fixRate: Double, seed: UInt64)
    case gpsd(ListenAddress)
    case nmea(path: String)

    /// The source, logging to `logger` and reporting its metrics (`locationsource_…` for gpsd and
    /// NMEA) to `metricsFactory`.
    func makeSource(logger: Logger, metricsFactory: any MetricsFactory) throws -> any LocationSource {
        switch self {
        case .synthetic(let name, let fixRate, let seed):
            var scenario = try Scenario.named(name, seed: seed)
            scenario.fixInterval = 1 / fixRate
            return SyntheticLocationSource(scenario: scenario, drive: .realTime)
        case .gpsd(let address):
            return GPSDLocationSource(
                configuration: GPSDConfiguration(host: address.host, port: address.port), logger: logger, metricsFactory: metricsFactory)
        case .nmea(let path):
            return NMEAStreamSource(
                configuration: NMEAStreamConfiguration(endpoint: .file(path: path, pacing: .recorded())), logger: logger,
                metricsFactory: metricsFactory)
        }
    }
}

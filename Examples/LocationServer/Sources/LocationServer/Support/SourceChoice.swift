import CoreMetrics
import LocationEngine
import LocationSources
import LocationSourcesGeoClue
import Logging
import SyntheticGPS

/// Where fixes come from: the synthetic receiver (default), gpsd, or an NMEA log replayed at its
/// recorded pace.
enum SourceChoice: Equatable {
    case synthetic(scenario: String, fixRate: Double, seed: UInt64)
    case gpsd(ListenAddress)
    case nmea(path: String)
    /// A position that does not move (`--static LAT,LON,ACC`).
    case fixed(FixedLocation)
    /// GeoClue2 on the system bus, as the application `desktopId` (`--geoclue`).
    case geoclue(desktopId: String)

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
        case .fixed(let location):
            return FixedLocationSource(location)
        case .geoclue(let desktopId):
            return GeoClueLocationSource(GeoClueConfiguration(desktopId: desktopId), logger: logger)
        }
    }

    /// Reads `LAT,LON,ACC` (degrees, degrees, metres), checked as a ``FixedLocation``.
    static func fixed(parsing text: String) throws -> SourceChoice {
        let parts = text.split(separator: ",", omittingEmptySubsequences: false).map { Double($0.filter { $0 != " " }) }
        guard parts.count == 3, let latitude = parts[0], let longitude = parts[1], let accuracy = parts[2] else {
            throw SourceChoiceError(description: "expected LAT,LON,ACC in degrees, degrees and metres, e.g. 52.52,13.405,25 (got '\(text)')")
        }
        return .fixed(try FixedLocation(latitude: latitude, longitude: longitude, accuracy: accuracy))
    }
}

/// A source option that does not say a source.
struct SourceChoiceError: Error, CustomStringConvertible {
    let description: String
}

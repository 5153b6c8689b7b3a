import Foundation
import Logging
import Prometheus
import SyntheticGPS
import Testing

@testable import LocationServer

@Suite("Sources the server builds")
struct SourceChoiceTests {
    @Test("gpsd and NMEA sources report their locationsource_ metrics to the server's registry")
    func sourcesReportTheirMetrics() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("empty-\(UUID().uuidString).nmea").path
        for choice in [SourceChoice.gpsd(try ListenAddress(parsing: "127.0.0.1:2947")), .nmea(path: path)] {
            let registry = PrometheusCollectorRegistry()
            // Made, not started: no connection, no file read.
            _ = try choice.makeSource(logger: Logger(label: "test"), metricsFactory: PrometheusMetricsFactory(registry: registry))
            var buffer: [UInt8] = []
            registry.emit(into: &buffer)
            let text = String(decoding: buffer, as: UTF8.self)
            let name = if case .gpsd = choice { "gpsd" } else { "nmea" }
            #expect(text.contains(#"locationsource_fixes{source="\#(name)",result="delivered"} 0"#), "\(text)")
            #expect(text.contains(#"locationsource_fixes{source="\#(name)",result="stale"} 0"#))
        }
    }
}

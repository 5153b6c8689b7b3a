import Foundation
import LocationEngine
@testable import LocationSources
import Testing
import TestSupport

/// A receiver that reports positions and nothing about their error: gpsd's own decoding of a real
/// device's log (firefly-II: 2D fixes, no `eph`, no DOP), served as gpsd serves it. By default every
/// request it can serve succeeds with an estimated radius (skipping such fixes, a choice, is the
/// interpreter's tests').
struct UnmeasuredAccuracyTests {
    /// gpsd's reports for the corpus log `name` (its `.chk`), one JSON line each.
    static func reports(_ name: String) throws -> [String] {
        let text = String(decoding: try Corpus.bytes(name + ".chk"), as: UTF8.self)
        return text.split(whereSeparator: \.isNewline).map(String.init).filter { $0.hasPrefix("{") }
    }

    @Test(.enabled(if: Corpus.isAvailable, "NMEA corpus not found at ../shared/nmea or $LOCATIONENGINE_NMEA_CORPUS"))
    func aDeviceThatReportsNoErrorServesACityRequestWithAnEstimatedFix() async throws {
        let reports = try Self.reports("firefly-II.log")
        let positions = reports.filter { $0.contains(#""class":"TPV""#) && $0.contains(#""lat""#) }
        #expect(!positions.isEmpty && positions.allSatisfy { !$0.contains(#""eph""#) && !$0.contains(#""epx""#) }, "the device reports no error")
        let fake = try await TestTCPServer.start { client in
            client.send(#"{"class":"VERSION","release":"3.22","proto_major":3,"proto_minor":14}"# + "\n")
            for report in reports { client.send(report + "\n") }
        }
        let source = GPSDLocationSource(configuration: GPSDConfiguration(port: fake.port), logger: quietLogger())
        let engine = LocationEngine(source: source)
        let lifetime = Task { try await engine.run() }
        let result = try await withDeadline(seconds: 30) { try await engine.location(accuracy: .city, timeout: .seconds(600)) }
        #expect(result.status == .success)
        let fix = try #require(result.location)
        #expect(fix.horizontalAccuracyIsEstimated, "the radius is the source's assumption, and says so")
        #expect(abs(fix.horizontalAccuracy - 4 * 19 * AccuracyConversion.twoDRMSToRadius68) < 1e-9, "a 2D fix: as if HDOP were 4")
        #expect(source.statistics.fixesWithAssumedAccuracy >= 1 && source.statistics.fixesWithoutAccuracy == 0)
        await engine.shutdown()
        lifetime.cancel()
        await fake.close()
    }
}

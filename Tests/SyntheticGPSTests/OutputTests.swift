import Foundation
import NMEA
import Testing
@testable import SyntheticGPS

@Suite struct OutputTests {
    private func text(_ format: OutputFormat, _ scenario: Scenario, seconds: Double) -> String {
        var writer = format.makeWriter(for: scenario)
        var output = writer.header()
        for epoch in epochs(scenario, until: seconds) { writer.write(epoch, to: &output) }
        return output + writer.footer()
    }

    @Test func nmeaDecodesBackToTheEpochs() {
        let scenario = Scenario.tunnel(seed: 4)
        let source = epochs(scenario, until: 200)
        var decoder = NMEAStreamDecoder()
        var decoded: [NMEAEpoch] = []
        decoder.feed(Array(text(.nmea, scenario, seconds: 200).utf8)) { decoded.append($0) }
        decoder.finish { decoded.append($0) }
        #expect(decoder.statistics.totalErrors == 0)
        #expect(decoded.count == source.count)
        for (epoch, nmea) in zip(source, decoded) {
            #expect(abs(nmea.unixTime! - epoch.unixTime) < 0.001)
            guard let fix = epoch.fix else {
                #expect(nmea.mode == .noFix)
                continue
            }
            #expect(nmea.mode == .threeD)
            #expect(abs(nmea.latitude! - fix.latitude) < 1e-7 && abs(nmea.longitude! - fix.longitude) < 1e-7)
            #expect(abs(nmea.altitudeMSL! - fix.altitude!) <= 0.005 + 1e-9)
            #expect(abs(nmea.speed! - fix.speed!) < 0.001)
            #expect(angleDifference(nmea.track!, fix.course!) < 0.006)
            #expect(abs(nmea.hdop! - epoch.dop!.horizontal) <= 0.005 + 1e-9)
            #expect(abs(nmea.gstLatitudeError! - fix.axisSigma) <= 0.0005 + 1e-9)
            #expect(nmea.usedSatellites.map(\.number) == epoch.satellites.filter(\.used).map(\.prn))
            #expect(nmea.satellites.count == epoch.satellites.count)
        }
    }

    @Test func geoJSONIsValidAndCarriesTheTruth() throws {
        let scenario = Scenario.walk(seed: 2)
        let data = Data(text(.geojson, scenario, seconds: 120).utf8)
        let root = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(root["type"] as? String == "FeatureCollection")
        let features = try #require(root["features"] as? [[String: Any]])
        let fixes = epochs(scenario, until: 120).filter { $0.fix != nil }
        #expect(features.count == fixes.count)
        let first = try #require(features.first)
        let geometry = try #require(first["geometry"] as? [String: Any])
        let coordinates = try #require(geometry["coordinates"] as? [Double])
        #expect(abs(coordinates[0] - fixes[0].fix!.longitude) < 1e-8 && abs(coordinates[1] - fixes[0].fix!.latitude) < 1e-8)
        let properties = try #require(first["properties"] as? [String: Any])
        #expect(properties["time"] as? String == UTCDate(unixTime: fixes[0].unixTime).iso8601)
        #expect((properties["truth"] as? [Double])?.count == 2)
    }

    @Test func gpxHasOneTrackPointPerFix() throws {
        let scenario = Scenario.drive(seed: 2)
        let gpx = text(.gpx, scenario, seconds: 90)
        #expect(gpx.hasPrefix("<?xml version=\"1.0\""))
        #expect(gpx.hasSuffix("</gpx>\n"))
        let points = gpx.components(separatedBy: "<trkpt ").count - 1
        #expect(points == epochs(scenario, until: 90).filter { $0.fix != nil }.count)
        #expect(gpx.contains("<time>2026-01-01T00:00:05.000Z</time>"))
        #expect(GPXWriter.escaped("a<b & \"c\"") == "a&lt;b &amp; &quot;c&quot;")
    }

    @Test func tpvReportsUseGpsdsVocabulary() {
        let scenario = Scenario.drive(seed: 6)
        var decoder = NMEALogDecoder()
        var reports: [TPVReport] = []
        let bytes = Array(text(.nmea, scenario, seconds: 20).utf8) + Array("$GPGGA,garbage*00\r\n".utf8)
        bytes.withUnsafeBytes { decoder.feed($0) { reports.append($0) } }
        decoder.finish { reports.append($0) }
        let fix = epochs(scenario, until: 20).last!
        let last = reports.last!
        #expect(last.mode == 3)
        #expect(last.time == UTCDate(unixTime: fix.unixTime).iso8601)
        #expect(abs(last.altitudeHAE! - (fix.fix!.altitude! + fix.geoidSeparation)) < 0.01)
        let json = last.json
        #expect(json.hasPrefix("{\"class\":\"TPV\",\"mode\":3,\"time\":\"2026-01-01T00:00:19.000Z\",\"lat\":"))
        for key in ["lon", "altHAE", "altMSL", "speed", "track", "eph"] { #expect(json.contains("\"\(key)\":")) }
        let object = try? JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any]
        #expect(object?["class"] as? String == "TPV")
        #expect(reports.first!.mode == 1 && !reports.first!.json.contains("\"lat\""))
        #expect(decoder.statistics.totalErrors == 1)
        #expect(decoder.summary.contains("1 errors: "))
    }

    @Test func utcDatesAreCivil() {
        #expect(UTCDate(unixTime: 0).iso8601 == "1970-01-01T00:00:00.000Z")
        #expect(UTCDate(unixTime: 1_767_225_600).iso8601 == "2026-01-01T00:00:00.000Z")
        #expect(UTCDate(unixTime: 951_825_600.25).iso8601 == "2000-02-29T12:00:00.250Z")
        #expect(UTCDate(unixTime: -86_400).iso8601 == "1969-12-31T00:00:00.000Z")
    }

    @Test func decimalTextRounds() {
        #expect(DecimalText.fixed(52.123456789, decimals: 6) == "52.123457")
        #expect(DecimalText.fixed(-0.0000001, decimals: 3) == "0.000")
        #expect(DecimalText.fixed(-13.5, decimals: 2) == "-13.50")
        #expect(DecimalText.fixed(7, decimals: 0) == "7")
        #expect(DecimalText.fixed(.nan, decimals: 2) == "0")
    }
}

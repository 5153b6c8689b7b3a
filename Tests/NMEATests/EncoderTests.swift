import NMEA
import LocationEngineTestKit
import Testing

@Suite("Encoding epochs back to sentences")
struct EncoderTests {
    static func sampleEpoch() -> NMEAEpoch {
        var epoch = NMEAEpoch()
        epoch.talker = "GN"
        (epoch.year, epoch.month, epoch.day) = (2024, 2, 29)
        epoch.secondsOfDay = 23 * 3600 + 59 * 60 + 59.125
        epoch.mode = .threeD
        epoch.ggaQuality = 2
        epoch.latitude = -37.784788333
        epoch.longitude = 175.314896667
        epoch.altitudeMSL = 59.93
        epoch.geoidSeparation = 23.7
        epoch.speed = 12.345
        epoch.track = 181.39
        epoch.satellitesUsed = 14
        epoch.usedSatellites = (1...14).map { NMEASatelliteID(constellation: .gps, number: $0) }
        epoch.satellites = (1...14).map { NMEASatellite(prn: $0, elevation: Double($0 * 5), azimuth: Double($0 * 20), snr: $0 == 3 ? nil : 40, used: true) }
        (epoch.hdop, epoch.vdop, epoch.pdop) = (0.87, 1.25, 1.52)
        (epoch.gstLatitudeError, epoch.gstLongitudeError, epoch.gstAltitudeError) = (1.234, 0.987, 2.5)
        return epoch
    }

    @Test func roundTripsThroughTheDecoder() throws {
        let original = Self.sampleEpoch()
        let text = NMEAEncoder.encode(original, sentences: [.gga, .rmc, .gsa, .gsv, .vtg, .gst])
        let (epochs, decoder) = Sentences.decode(text)
        #expect(decoder.statistics.totalErrors == 0)
        #expect(decoder.statistics[sentence: .gsa] == 2, "14 used PRNs need two GSA sentences")
        #expect(decoder.statistics[sentence: .gsv] == 4)
        let decoded = try #require(epochs.first)
        #expect(epochs.count == 1)
        #expect(decoded.talker == "GN")
        #expect(decoded.year == 2024 && decoded.month == 2 && decoded.day == 29)
        #expect(decoded.secondsOfDay == original.secondsOfDay)
        #expect(decoded.mode == .threeD && decoded.ggaQuality == 2)
        #expect(abs(decoded.latitude! - original.latitude!) < 1e-7)
        #expect(abs(decoded.longitude! - original.longitude!) < 1e-7)
        #expect(decoded.altitudeMSL == 59.93 && decoded.geoidSeparation == 23.7)
        #expect(abs(decoded.speed! - original.speed!) < 1e-3)
        #expect(decoded.track == 181.39)
        #expect(decoded.usedSatellites == original.usedSatellites && decoded.satellitesUsed == 14)
        #expect(decoded.satellites == original.satellites)
        #expect(decoded.hdop == 0.87 && decoded.vdop == 1.25 && decoded.pdop == 1.52)
        #expect(decoded.gstLatitudeError == 1.234 && decoded.gstAltitudeError == 2.5)
    }

    @Test(arguments: [NMEAFixMode.noFix, .twoD, .threeD])
    func roundTripsTheFixMode(mode: NMEAFixMode) {
        var epoch = Self.sampleEpoch()
        epoch.mode = mode
        epoch.ggaQuality = nil
        let (epochs, _) = Sentences.decode(NMEAEncoder.encode(epoch, sentences: [.gga, .rmc, .gsa]))
        #expect(epochs.first?.mode == mode)
    }

    @Test func writesValidChecksumsAndNMEAShapes() throws {
        let text = NMEAEncoder.encode(Self.sampleEpoch(), sentences: [.gga, .rmc, .gll, .zda])
        let lines = text.split(separator: "\r\n")
        #expect(lines.count == 4)
        #expect(lines[0].hasPrefix("$GNGGA,235959.125,3747.087300,S,17518.893800,E,2,14,0.87,59.93,M,23.70,M,,*"))
        #expect(lines[1].hasPrefix("$GNRMC,235959.125,A,3747.087300,S,17518.893800,E,23.997,181.39,290224,,,A*"))
        for line in lines {
            #expect(line.utf8.count <= 82, "NMEA limit: \(line)")
            #expect(try NMEASentenceParser.parse(String(line)).checksum == .valid)
        }
    }

    @Test func roundTripsEveryEncodedPositionToTheMicrodegree() {
        var generator = SplitMix64(seed: 0xE0C0_DE)  // seeded: a failure replays
        for _ in 0..<2000 {
            var epoch = NMEAEpoch()
            epoch.mode = .twoD
            epoch.secondsOfDay = Double(Int.random(in: 0..<86_400_000, using: &generator)) / 1000
            epoch.latitude = Double.random(in: -90...90, using: &generator)
            epoch.longitude = Double.random(in: -180...180, using: &generator)
            let (epochs, decoder) = Sentences.decode(NMEAEncoder.encode(epoch, sentences: [.rmc]))
            #expect(decoder.statistics.totalErrors == 0)
            #expect(abs((epochs.first?.latitude ?? .nan) - epoch.latitude!) < 1e-7)
            #expect(abs((epochs.first?.longitude ?? .nan) - epoch.longitude!) < 1e-7)
            #expect(epochs.first?.secondsOfDay == epoch.secondsOfDay)
        }
    }

    /// NMEA's bearings run 0–359: a track or an azimuth just short of north that rounds up to 360 is printed 0.
    @Test func aBearingThatRoundsToThreeHundredSixtyIsPrintedNorth() throws {
        var epoch = Self.sampleEpoch()
        epoch.track = 359.996
        epoch.satellites = [NMEASatellite(prn: 3, elevation: 40, azimuth: 359.6, snr: 40, used: true)]
        let text = NMEAEncoder.encode(epoch, sentences: [.gga, .rmc, .gsv, .vtg])
        let decoded = try #require(Sentences.decode(text).0.first)
        #expect(decoded.track == 0 && decoded.satellites.first?.azimuth == 0)
        epoch.track = 359.994
        #expect(try #require(Sentences.decode(NMEAEncoder.encode(epoch, sentences: [.gga, .rmc])).0.first).track == 359.99)
    }

    @Test func valuesTooLargeForAFieldAreWrittenEmptyNotTrapped() throws {
        var epoch = NMEAEpoch()
        epoch.mode = .threeD
        epoch.secondsOfDay = 1e16
        epoch.latitude = 1e300
        epoch.longitude = 10
        epoch.altitudeMSL = 1e19
        epoch.hdop = 1
        epoch.satellites = [NMEASatellite(prn: 3, elevation: 1e300, azimuth: 10, snr: 40)]
        let text = NMEAEncoder.encode(epoch, sentences: [.gga, .rmc, .gsv])
        let lines = text.split(separator: "\r\n")
        #expect(lines.count == 3)
        #expect(lines[0].hasPrefix("$GPGGA,235959.999,,,"))
        for line in lines { #expect(try NMEASentenceParser.parse(String(line)).checksum == .valid) }
    }
}

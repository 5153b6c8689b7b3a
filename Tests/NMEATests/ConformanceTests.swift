import Foundation
import NMEA
import TestSupport
import Testing

/// Decodes the real receiver logs of the shared corpus and compares every epoch with gpsd 3.22's TPV reports.
@Suite("Conformance with gpsd 3.22 on real receiver logs")
struct ConformanceTests {
    /// How many epochs of each log must match a gpsd TPV by time of day: every timed TPV gpsd printed.
    static let expectedMatches: [String: Int] = [
        "bu353s4.log": 25,
        "com-1289.log": 14,
        "haicom-305N.log": 67,
        "quectel.log": 34,
        "triton400.log": 4,
    ]

    /// Logs where gpsd's `eph` for epoch N is 19 × the HDOP of epoch N−1: the Fastrax chip prints RMC
    /// before GGA, gpsd reports the fix at RMC, and so uses the previous cycle's HDOP. We report each
    /// epoch's own HDOP (its GGA's), so there we compare with our previous epoch.
    static let ephLagsOneEpoch: Set<String> = ["com-1289.log"]

    // The corpus lives outside the repository; a fresh clone without it skips (CI always has it).
    @Test(
        .enabled(if: Corpus.isAvailable, "NMEA corpus not found at ../shared/nmea or $LOCATIONENGINE_NMEA_CORPUS"),
        arguments: Corpus.logNames
    )
    func matchesGpsd(log: String) throws {
        let reports = GpsdTPV.byTimeOfDay(try GpsdTPV.parse(try Corpus.bytes(log + ".chk")))
        var decoder = NMEAStreamDecoder()
        var epochs: [NMEAEpoch] = []
        let bytes = try Corpus.bytes(log)
        decoder.feed(bytes) { epochs.append($0) }
        decoder.finish { epochs.append($0) }

        var matched = 0
        var previous: NMEAEpoch?
        for epoch in epochs {
            defer { previous = epoch }
            guard let seconds = epoch.secondsOfDay, let gpsd = reports[Int((seconds * 1000).rounded())] else { continue }
            matched += 1
            let at = "\(log) at \(seconds) s of day"
            #expect(epoch.mode.rawValue == gpsd.mode, "mode \(at)")
            if let latitude = gpsd.latitude {
                #expect(abs((epoch.latitude ?? .nan) - latitude) <= 1e-6, "latitude \(at): \(String(describing: epoch.latitude)) vs \(latitude)")
            }
            if let longitude = gpsd.longitude {
                #expect(abs((epoch.longitude ?? .nan) - longitude) <= 1e-6, "longitude \(at): \(String(describing: epoch.longitude)) vs \(longitude)")
            }
            if let altitude = gpsd.altitudeMSL {
                #expect(abs((epoch.altitudeMSL ?? .nan) - altitude) <= 1e-3, "altitude MSL \(at)")
            }
            if let altitude = gpsd.altitudeHAE {
                #expect(abs((epoch.altitudeHAE ?? .nan) - altitude) <= 1e-3, "altitude HAE \(at)")
            }
            if let speed = gpsd.speed {
                #expect(abs((epoch.speed ?? .nan) - speed) <= 6e-4, "speed \(at): \(String(describing: epoch.speed)) vs \(speed)")
            }
            if let track = gpsd.track {
                #expect(abs((epoch.track ?? .nan) - track) <= 1e-4, "track \(at): \(String(describing: epoch.track)) vs \(track)")
            }
            let modelled = Self.ephLagsOneEpoch.contains(log) ? previous?.horizontalAccuracy : epoch.horizontalAccuracy
            if let eph = gpsd.eph, previous != nil || !Self.ephLagsOneEpoch.contains(log) {
                #expect(abs((modelled ?? .nan) - eph) <= 0.01, "eph \(at): \(String(describing: modelled)) vs \(eph)")
            }
        }
        // Every time gpsd reported must be one of our epochs, and the count is pinned so that a
        // broken .chk reader cannot make the comparison vacuous.
        #expect(matched == reports.count, "\(log): matched \(matched) of gpsd's \(reports.count) timed epochs")
        #expect(matched == Self.expectedMatches[log], "\(log): matched \(matched) epochs")
        #expect(decoder.statistics.sentences > 0)
    }

    @Test(.enabled(if: Corpus.isAvailable, "NMEA corpus not found at ../shared/nmea or $LOCATIONENGINE_NMEA_CORPUS"))
    func countsTheCorpusDefects() throws {
        var comDecoder = NMEAStreamDecoder()
        comDecoder.feed(try Corpus.bytes("com-1289.log")) { _ in }
        #expect(comDecoder.statistics[error: .badChecksum] == 1, "com-1289 has one GSV with checksum *4B instead of *48")

        var tritonDecoder = NMEAStreamDecoder()
        var tritonEpochs: [NMEAEpoch] = []
        tritonDecoder.feed(try Corpus.bytes("triton400.log")) { tritonEpochs.append($0) }
        tritonDecoder.finish { tritonEpochs.append($0) }
        #expect(tritonDecoder.statistics[error: .truncated] == 1, "triton400 has $GPGGA,030130 run into the next $GPGLL")
        #expect(tritonEpochs.contains { $0.secondsOfDay == 3 * 3600 + 60 + 31 && $0.latitude != nil })
    }
}

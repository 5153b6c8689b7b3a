import Foundation
import NMEA
import TestSupport
import Testing

/// Decodes every real receiver log of the shared corpus and compares every epoch with gpsd 3.22's TPV reports.
///
/// The comparison is strict: each time of day gpsd reported must be one of our epochs, with the same mode,
/// position (1e-6°), altitudes, speed, track and `eph`. Where the decoder deliberately answers differently,
/// the log lists the ``GpsdDeviation`` that explains it; any other difference fails the test.
@Suite("Conformance with gpsd 3.22 on real receiver logs")
struct ConformanceTests {
    // The corpus lives outside the repository; a fresh clone without it skips (CI always has it).
    @Test(
        .enabled(if: Corpus.isAvailable, "NMEA corpus not found at ../shared/nmea or $LOCATIONENGINE_NMEA_CORPUS"),
        arguments: Corpus.logNames
    )
    func matchesGpsd(log: String) throws {
        let reports = try GpsdTPV.parse(try Corpus.bytes(log + ".chk"))
        let decoded = GpsdComparison.decode(try Corpus.bytes(log))
        let deviations = GpsdDeviation.applying(to: log)
        let comparison = GpsdComparison(log: log, decoded: decoded, reports: reports, deviations: deviations)
        #expect(comparison.differences.isEmpty, "\(log): \(comparison.differences.count) differences\n\(comparison.differences.prefix(12).joined(separator: "\n"))")
        // Every rule listed for the log explains at least one difference, so the table cannot go stale.
        for deviation in deviations {
            #expect(comparison.explained[deviation, default: 0] > 0, "\(log): \(deviation) listed but not needed")
        }
        // A broken .chk reader must not make the comparison vacuous: every log has timed or positioned TPVs.
        #expect(comparison.compared > 0, "\(log): nothing compared")
        #expect(decoded.statistics.sentences > 0)
    }

    /// The fuzzing invariant on the real logs: the same epochs whatever the chunking (seeded, reproducible).
    @Test(
        .enabled(if: Corpus.isAvailable, "NMEA corpus not found at ../shared/nmea or $LOCATIONENGINE_NMEA_CORPUS"),
        arguments: Corpus.logNames
    )
    func chunkingDoesNotChangeTheEpochs(log: String) throws {
        let bytes = try Corpus.bytes(log)
        var whole = NMEAStreamDecoder()
        var wholeEpochs: [NMEAEpoch] = []
        whole.feed(bytes) { wholeEpochs.append($0) }
        whole.finish { wholeEpochs.append($0) }

        var chunked = NMEAStreamDecoder()
        var chunkedEpochs: [NMEAEpoch] = []
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        var offset = 0
        while offset < bytes.count {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let length = min(bytes.count - offset, Int(state >> 59))  // 0…31 bytes
            chunked.feed(bytes[offset..<(offset + length)]) { chunkedEpochs.append($0) }
            offset += length
        }
        chunked.finish { chunkedEpochs.append($0) }
        #expect(chunkedEpochs == wholeEpochs)
        #expect(chunked.statistics == whole.statistics)
    }

    @Test(.enabled(if: Corpus.isAvailable, "NMEA corpus not found at ../shared/nmea or $LOCATIONENGINE_NMEA_CORPUS"))
    func discoversTheWholeCorpus() {
        #expect(Corpus.logNames.count >= 44)
        #expect(Corpus.logNames.contains("bu353s4.log"))
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

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
        let (epochs, positions, decoder) = GpsdComparison.decode(try Corpus.bytes(log))
        let deviations = ProcessInfo.processInfo.environment["CONFORMANCE_ALL"] != nil ? Set(GpsdDeviation.allCases) : GpsdDeviation.applying(to: log)  // TEMP
        let comparison = GpsdComparison(log: log, epochs: epochs, positions: positions, reports: reports, deviations: deviations)
        if let dump = ProcessInfo.processInfo.environment["CONFORMANCE_DUMP"] { try? (comparison.differences + comparison.explained.map { "EXPLAINED \($0.key) \($0.value)" }).joined(separator: "\n").write(toFile: dump + "/" + log + ".txt", atomically: true, encoding: .utf8) }  // TEMP
        #expect(comparison.differences.isEmpty, "\(log): \(comparison.differences.count) differences\n\(comparison.differences.prefix(12).joined(separator: "\n"))")
        // A broken .chk reader must not make the comparison vacuous: every log has timed or positioned TPVs.
        #expect(comparison.compared > 0, "\(log): nothing compared")
        #expect(decoder.statistics.sentences > 0)
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

import NMEA
import Testing

@Suite("Epoch assembly")
struct EpochAssemblyTests {
    @Test func assemblesEveryFieldOfAnEpoch() throws {
        let (epochs, _) = Sentences.decode(Sentences.movingReceiver)
        let epoch = try #require(epochs.first)
        #expect(epoch.talker == "GP")
        #expect(epoch.year == 1994 && epoch.month == 3 && epoch.day == 23)
        #expect(epoch.secondsOfDay == 45_290)  // 12:34:50
        #expect(epoch.unixTime == 764_426_090)
        #expect(epoch.mode == .threeD && epoch.ggaQuality == 1)
        #expect(abs(epoch.latitude! - (48 + 7.038 / 60)) < 1e-9)
        #expect(epoch.altitudeMSL == 545.4 && epoch.geoidSeparation == 46.9)
        #expect(abs(epoch.altitudeHAE! - 592.3) < 1e-9)
        #expect(abs(epoch.speed! - 22.4 * 1852 / 3600) < 1e-9)
        #expect(epoch.track == 84.4)
        #expect(epoch.satellitesUsed == 8)
        #expect(epoch.usedPRNs == [4, 5, 9, 12, 24])
        #expect(epoch.satellites.map(\.prn) == [4, 5, 9, 12, 24])
        #expect(epoch.satellites.allSatisfy { $0.used })
        #expect(epoch.hdop == 0.9 && epoch.vdop == 2.1 && epoch.pdop == 2.5)
        #expect(epoch.gstLatitudeError == 1.5 && epoch.gstLongitudeError == 1.1 && epoch.gstAltitudeError == 2.6)
        // GST present: 2DRMS = 2 × √(1.5² + 1.1²).
        #expect(abs(epoch.horizontalAccuracy! - 2 * (1.5 * 1.5 + 1.1 * 1.1).squareRoot()) < 1e-12)
        #expect(epoch.verticalAccuracy == 5.2)
    }

    @Test func horizontalAccuracyFallsBackToHDOPTimesNineteen() {
        var epoch = NMEAEpoch()
        epoch.hdop = 1.1
        #expect(abs(epoch.horizontalAccuracy! - 20.9) < 1e-12)
        epoch.hdop = nil
        #expect(epoch.horizontalAccuracy == nil)
    }

    @Test func newTimeOfDayStartsANewEpochAndFinishFlushesTheLast() {
        let text = Sentences.nmea("GPGGA,000001.00,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,")
            + Sentences.nmea("GPGSA,A,3,04,05,,09,12,,,24,,,,,2.5,1.3,2.1")
            + Sentences.nmea("GPGGA,000002.00,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,")
        var decoder = NMEAStreamDecoder()
        var epochs: [NMEAEpoch] = []
        decoder.feed(Array(text.utf8)) { epochs.append($0) }
        #expect(epochs.count == 1 && epochs[0].usedPRNs.count == 5)
        decoder.finish { epochs.append($0) }
        #expect(epochs.count == 2 && epochs[1].secondsOfDay == 2 && epochs[1].usedPRNs.isEmpty)
    }

    @Test(arguments: [
        (Sentences.nmea("GPGGA,000001.00,4807.038,N,01131.000,E,1,08,0.9,,M,46.9,M,,"), NMEAFixMode.twoD),
        (Sentences.nmea("GPGGA,000001.00,4807.038,N,01131.000,E,0,00,,545.4,M,46.9,M,,"), .noFix),
        (Sentences.nmea("GPRMC,000001.00,A,4807.038,N,01131.000,E,022.4,084.4,230394,,"), .twoD),
        (Sentences.nmea("GPRMC,000001.00,V,4807.038,N,01131.000,E,022.4,084.4,230394,,"), .noFix),
        (Sentences.nmea("GPGLL,4807.038,N,01131.000,E,000001.00,A,A") + Sentences.nmea("GPGSA,A,3,04,05,,09,12,,,24,,,,,2.5,1.3,2.1"), .threeD),
        (Sentences.nmea("GPGSA,A,2,04,05,,09,12,,,24,,,,,2.5,1.3,2.1"), .twoD),
        (Sentences.nmea("GPZDA,201530.00,04,07,2002,00,00"), .noFix),  // a time and nothing about a fix
    ].map { (EscapedText($0.0), $0.1) })
    func fixModeFollowsGpsdSemantics(input: EscapedText, mode: NMEAFixMode) {
        let (epochs, _) = Sentences.decode(input.text)
        #expect(epochs.count == 1)
        #expect(epochs.first?.mode == mode)
    }

    @Test func noFixEpochCarriesNoPosition() {
        let (epochs, _) = Sentences.decode(Sentences.nmea("GPGGA,095303.808,2712.6404,S,15303.1201,E,0,00,17.0,4.0,M,42.2,M,,"))
        #expect(epochs.first?.mode == .noFix)
        #expect(epochs.first?.latitude == nil && epochs.first?.altitudeMSL == nil)
        #expect(epochs.first?.hdop == 17.0)
    }

    @Test func emptyTimedSentencesEachMakeTheirOwnEpoch() {
        let lost = Sentences.nmea("GPVTG,,T,,M,,N,,K,N") + Sentences.nmea("GPGSA,A,1,,,,,,,,,,,,,,,,")
            + Sentences.nmea("GPGGA,,,,,,0,,,,,,,,") + Sentences.nmea("GPRMC,,V,,,,,,,,,,N")
        let text = Sentences.nmea("GPGGA,022038.00,3644.762563,S,17444.069733,E,1,06,1.1,53.0,M,37.0,M,,") + lost + lost
        let (epochs, _) = Sentences.decode(text)
        #expect(epochs.map(\.mode) == [.threeD, .noFix, .noFix])
        #expect(epochs.dropFirst().allSatisfy { $0.secondsOfDay == nil })
    }

    @Test func dateCarriesOverAndRollsAtMidnight() {
        let text = Sentences.nmea("GPRMC,235959.00,A,4807.038,N,01131.000,E,0.0,0.0,311299,,")
            + Sentences.nmea("GPGGA,000000.00,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,")
        let (epochs, _) = Sentences.decode(text)
        #expect(epochs.count == 2)
        #expect(epochs[1].year == 2000 && epochs[1].month == 1 && epochs[1].day == 1)
        #expect(epochs[1].unixTime == 946_684_800)
    }

    @Test func multiConstellationGSAAndGSVAccumulate() {
        let text = Sentences.nmea("GNGGA,120000.00,4807.038,N,01131.000,E,1,12,0.9,545.4,M,46.9,M,,")
            + Sentences.nmea("GNGSA,A,3,04,05,09,,,,,,,,,,1.5,0.9,1.2,1")
            + Sentences.nmea("GNGSA,A,3,65,66,,,,,,,,,,,1.5,0.9,1.2,2")
            + Sentences.nmea("GPGSV,1,1,03,04,45,120,42,05,30,200,38,09,10,310,")
            + Sentences.nmea("GLGSV,1,1,03,65,45,120,42,66,30,200,38,67,10,310,")
        let (epochs, _) = Sentences.decode(text)
        #expect(epochs.first?.talker == "GN")
        #expect(epochs.first?.usedPRNs == [4, 5, 9, 65, 66])
        #expect(epochs.first?.satellites.filter(\.used).map(\.prn) == [4, 5, 9, 65, 66])
        #expect(epochs.first?.satellites.count == 6)
    }
}

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
        #expect(epoch.usedSatellites == [4, 5, 9, 12, 24].map { NMEASatelliteID(constellation: .gps, number: $0) })
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
            + Sentences.nmea("GPGSA,A,3,04,05,,09,12,,,24,,,,,2.5,1.3,2.1")
        var decoder = NMEAStreamDecoder()
        var epochs: [NMEAEpoch] = []
        decoder.feed(Array(text.utf8)) { epochs.append($0) }
        #expect(epochs.isEmpty, "where a cycle ends is not known yet")
        decoder.feed(Array(Sentences.nmea("GPGGA,000002.00,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,").utf8)) {
            epochs.append($0)
        }
        #expect(epochs.count == 2 && epochs[0].usedSatellites.count == 5)
        #expect(epochs[1].secondsOfDay == 2, "the GGA ended the first cycle: it ends the second at once")
        decoder.feed(Array(Sentences.nmea("GPGSA,A,3,04,05,,09,12,,,24,,,,,2.5,1.3,2.1").utf8)) { epochs.append($0) }
        decoder.finish { epochs.append($0) }
        #expect(epochs.count == 3 && epochs[2].secondsOfDay == nil && epochs[2].usedSatellites.count == 5)
    }

    @Test("a leap second is an epoch of its own between 23:59:59 and midnight; cycles still join across midnight")
    func aLeapSecondIsItsOwnEpoch() {
        let times = [("235959.00", "311216"), ("235960.00", "311216"), ("000000.00", "010117"), ("000001.00", "010117")]
        let text = times.map { Sentences.nmea("GPRMC,\($0.0),A,4807.038,N,01131.000,E,022.4,084.4,\($0.1),003.1,W") }.joined()
        let (epochs, _) = Sentences.decode(text)
        #expect(epochs.map(\.secondsOfDay) == [86_399, 86_400, 0, 1])
        // Unix time has no leap second: it is the last millisecond of its day, between the two it lies between.
        let unix = epochs.compactMap(\.unixTime)
        #expect(unix.count == 4 && unix == unix.sorted() && Set(unix).count == 4, "\(unix)")
        #expect(unix.count == 4 && unix[1] == 1_483_228_799.999 && unix[2] == 1_483_228_800)
        let second = { (text: String) in NMEATimeOfDay(microseconds: Int64(Double(text)! * 1_000_000)) }
        #expect(second("86400.995").isSameCycle(as: second("0")), "5 ms apart, across the leap second's midnight")
        #expect(second("86399.995").isSameCycle(as: second("86400")))
        #expect(second("86399.995").isSameCycle(as: second("0.001")), "across an ordinary midnight")
        #expect(!second("86400").isSameCycle(as: second("0")))
    }

    /// A live receiver prints a cycle, then nothing until the next: the epoch goes out at the sentence that
    /// ended the cycles before, not a cycle later (at 1 Hz a second; in a power-save mode, a minute).
    @Test func anEpochGoesOutAtTheSentenceThatEndsItsCycle() {
        func cycle(_ second: Int) -> String {
            let time = "00000\(second).00"
            return Sentences.nmea("GPGGA,\(time),4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,")
                + Sentences.nmea("GPGSA,A,3,04,05,,09,12,,,24,,,,,2.5,1.3,2.1")
                + Sentences.nmea("GPGSV,1,1,02,04,45,120,40,05,30,200,38")
                + Sentences.nmea("GPRMC,\(time),A,4807.038,N,01131.000,E,022.4,084.4,230394,003.1,W")
                + Sentences.nmea("GPGSV,1,1,01,09,10,010,30")
        }
        var decoder = NMEAStreamDecoder()
        var epochs: [NMEAEpoch] = []
        var afterEachCycle: [Int] = []
        for second in 1...4 {
            decoder.feed(Array(cycle(second).utf8)) { epochs.append($0) }
            afterEachCycle.append(epochs.count)
        }
        // The first cycle goes out when the second starts; from the second on, each at its RMC.
        #expect(afterEachCycle == [0, 2, 3, 4])
        #expect(epochs.map(\.secondsOfDay) == [1, 2, 3, 4])
        #expect(epochs.allSatisfy { $0.speed != nil && $0.track != nil && $0.mode == .threeD })
        // The GSV printed after the RMC joins the next epoch, as gpsd reports it (the first cycle's was still
        // its own: that cycle went out when the next began).
        #expect(epochs.map(\.satellites.count) == [3, 2, 3, 3])
        #expect(decoder.statistics.sentencesAfterTheirEpoch == 0)
    }

    /// A receiver printing GGA at 10 Hz and RMC after each whole second's GGA: the GGA learned as the end
    /// sends the whole second's epoch out before its RMC once; the RMC is left out, counted, and the GGA ends
    /// no cycle again, so the next whole second has its RMC.
    @Test func aTimedSentenceAfterItsEpochIsLeftOutOnceAndItsTypeEndsNoCycleAgain() {
        var text = ""
        for tenth in 7...21 {
            let time = "00000\(tenth / 10).\(tenth % 10)0"
            text += Sentences.nmea("GPGGA,\(time),4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,")
            if tenth % 10 == 0 {
                text += Sentences.nmea("GPRMC,\(time),A,4807.038,N,01131.000,E,022.4,084.4,230394,003.1,W")
            }
        }
        var decoder = NMEAStreamDecoder()
        var epochs: [NMEAEpoch] = []
        decoder.feed(Array(text.utf8)) { epochs.append($0) }
        decoder.finish { epochs.append($0) }
        let seconds = epochs.compactMap(\.secondsOfDay)
        #expect(seconds == (7...21).map { Double($0) / 10 }, "every cycle once, in order")
        let whole = epochs.filter { $0.secondsOfDay == 1 || $0.secondsOfDay == 2 }
        #expect(whole.count == 2)
        #expect(whole[0].derived.contains(.speed), "the first whole second's RMC came after its epoch")
        #expect(whole[1].speed.map { abs($0 - 22.4 * NMEAUnits.metresPerSecondPerKnot) < 1e-9 } == true)
        #expect(whole[1].year == 1994)
        #expect(decoder.statistics.sentencesAfterTheirEpoch == 1)
        // The RMC left out was the whole second's last sentence, in its place: it ends the cycles from the next
        // whole second on, so that second goes out at its RMC, not a tenth later with the next GGA.
        var prompt = NMEAStreamDecoder()
        var emitted: [Double] = []
        // Everything up to the second whole second's RMC, that sentence included.
        let rmc = text.range(of: "GPRMC,000002.00")!
        let next = text[rmc.upperBound...].firstIndex(of: "$") ?? text.endIndex
        prompt.feed(Array(text[..<next].utf8)) { emitted.append($0.secondsOfDay ?? -1) }
        #expect(emitted.last == 2, "the whole second went out at its RMC")
    }

    /// A receiver that loses its fix prints GGAs with an empty time between fixed cycles: those cycles have no
    /// position, so they never teach where a cycle ends (the empty GGA learned as the end would send each fixed
    /// epoch out before its RMC, and leave the RMC out).
    @Test func cyclesWithoutATimeTeachNoEnd() {
        func fixed(_ second: Int) -> String {
            let time = "0000\(second < 10 ? "0" : "")\(second).00"
            return Sentences.nmea("GPGGA,\(time),4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,")
                + Sentences.nmea("GPRMC,\(time),A,4807.038,N,01131.000,E,022.4,084.4,230394,003.1,W")
        }
        let lost = Sentences.nmea("GPGGA,,,,,,0,00,,,,,,,")
        let text = (1...3).map(fixed).joined() + lost + fixed(5) + lost + (7...10).map(fixed).joined()
        var decoder = NMEAStreamDecoder()
        var epochs: [NMEAEpoch] = []
        decoder.feed(Array(text.utf8)) { epochs.append($0) }
        decoder.finish { epochs.append($0) }
        let fixedEpochs = epochs.filter { $0.secondsOfDay != nil }
        #expect(fixedEpochs.map(\.secondsOfDay) == [1, 2, 3, 5, 7, 8, 9, 10])
        #expect(fixedEpochs.allSatisfy { $0.year == 1994 && $0.speed != nil }, "every fixed epoch has its RMC")
        #expect(decoder.statistics.sentencesAfterTheirEpoch == 0)
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
        #expect(epochs.first?.usedSatellites.map(\.extendedNumber) == [4, 5, 9, 65, 66])
        #expect(epochs.first?.usedSatellites.map(\.constellation) == [.gps, .gps, .gps, .glonass, .glonass])
        #expect(epochs.first?.satellites.filter(\.used).map(\.prn) == [4, 5, 9, 65, 66])
        #expect(epochs.first?.satellites.count == 6)
    }

    /// A multi-constellation receiver prints GPS 13, Galileo 13 and BeiDou 13 in one cycle: three satellites,
    /// each used only when the GSA of its own system lists it (a u-blox F9P's cycle, shortened).
    @Test func oneNumberInSeveralSystemsIsSeveralSatellites() throws {
        let text = Sentences.nmea("GNGGA,120000.00,4807.038,N,01131.000,E,1,05,0.9,545.4,M,46.9,M,,")
            + Sentences.nmea("GNGSA,A,3,13,16,,,,,,,,,,,1.05,0.64,0.83,1")
            + Sentences.nmea("GNGSA,A,3,82,,,,,,,,,,,,1.05,0.64,0.83,2")
            + Sentences.nmea("GNGSA,A,3,12,33,,,,,,,,,,,1.05,0.64,0.83,3")
            + Sentences.nmea("GNGSA,A,3,13,,,,,,,,,,,,1.05,0.64,0.83,4")
            + Sentences.nmea("GPGSV,1,1,03,12,24,284,34,13,37,124,29,16,11,248,10,1")
            + Sentences.nmea("GPGSV,1,1,02,13,37,124,,16,11,248,,6")
            + Sentences.nmea("GLGSV,1,1,01,82,13,214,33,1")
            + Sentences.nmea("GAGSV,1,1,03,12,61,237,31,13,20,100,,33,62,034,08,7")
            + Sentences.nmea("GBGSV,1,1,02,12,66,330,23,13,23,233,17,1")
        let (epochs, _) = Sentences.decode(text)
        let epoch = try #require(epochs.first)
        let gps = { NMEASatelliteID(constellation: .gps, number: $0) }
        let galileo = { NMEASatelliteID(constellation: .galileo, number: $0) }
        let beidou = { NMEASatelliteID(constellation: .beidou, number: $0) }
        #expect(epoch.usedSatellites == [gps(13), gps(16), NMEASatelliteID(constellation: .glonass, number: 18), galileo(12), galileo(33), beidou(13)])
        // Nine satellites, eleven satellite-signals (GPS 13 and 16 on L1 and L2).
        #expect(Set(epoch.satellites.map(\.id)).count == 9 && epoch.satellites.count == 11)
        #expect(epoch.satellites.filter(\.used).map(\.id) == [gps(13), gps(16), gps(13), gps(16), NMEASatelliteID(constellation: .glonass, number: 18), galileo(12), galileo(33), beidou(13)])
        #expect(epoch.satellites.filter { $0.id == gps(13) }.map(\.signalID) == [1, 6])
        #expect(epoch.satellitesUsed == 5, "the GGA's count stays")
    }

    /// Without a system ID, the talker tells the system for numbers up to 64; beyond, NMEA's ranges do,
    /// whatever the talker (a SiRF's `$BDGSA` prints BeiDou 14 as 214, a `$GPGSV` SBAS 120 as 33).
    @Test(arguments: [
        ("GP", 13, NMEAConstellation.gps, 13), ("GN", 13, .gps, 13), ("GP", 33, .sbas, 120), ("GP", 138, .sbas, 138),
        ("GL", 5, .glonass, 5), ("GN", 70, .glonass, 6), ("GL", 70, .glonass, 6), ("GA", 36, .galileo, 36),
        ("GN", 305, .galileo, 5), ("GB", 40, .beidou, 40), ("BD", 214, .beidou, 14), ("PQ", 7, .beidou, 7),
        ("GN", 412, .beidou, 12), ("QZ", 193, .qzss, 1), ("GQ", 2, .qzss, 2), ("GI", 3, .navic, 3), ("IM", 174, .imes, 2), ("GA", 103, .galileo, 3), ("GQ", 8, .qzss, 8), ("GN", 200, .qzss, 8),
        ("BD", 201, .beidou, 1), ("GN", 201, .beidou, 1), ("GB", 63, .beidou, 63), ("QZ", 202, .qzss, 10),
    ])
    func satelliteNumbersFollowTalkerAndRanges(talker: String, prn: Int, constellation: NMEAConstellation, number: Int) throws {
        let id = NMEASatelliteID(prn: prn, talker: try #require(NMEATalker(talker)))
        #expect(id == NMEASatelliteID(constellation: constellation, number: number))
        if constellation != .navic, !(constellation == .qzss && number > 8) {
            // The extended number reads back as the same satellite under GN.
            #expect(NMEASatelliteID(prn: id.extendedNumber, talker: .gnss) == id)
        }
        if talker != "GN", talker != "GP" {
            // And under the satellite's own talker, whatever its system.
            #expect(NMEASatelliteID(prn: id.extendedNumber, talker: try #require(NMEATalker(talker))) == id)
        }
    }

    @Test func aNumberNoSystemPlacesKeepsNoConstellation() {
        #expect(NMEASatelliteID(prn: 100, talker: .gps) == NMEASatelliteID(constellation: nil, number: 100))
        #expect(NMEASatelliteID(prn: 100, talker: .gps).extendedNumber == 100)
        // A system ID decides over the talker and the ranges.
        #expect(NMEASatelliteID(prn: 12, talker: .gnss, systemID: 4) == NMEASatelliteID(constellation: .beidou, number: 12))
        #expect(NMEASatelliteID(prn: 82, talker: .gnss, systemID: 2) == NMEASatelliteID(constellation: .glonass, number: 18))
        #expect(NMEASatelliteID(prn: 194, talker: .gnss, systemID: 1) == NMEASatelliteID(constellation: .qzss, number: 2))
    }
}

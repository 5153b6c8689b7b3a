import NMEA
import Testing

@Suite("Single-sentence parsing")
struct SentenceParserTests {
    @Test(arguments: ["GP", "GN", "GL", "GA", "GB", "BD", "GQ", "QZ", "GI"])
    func acceptsEveryTalker(talker: String) throws {
        let sentence = try NMEASentenceParser.parse(Sentences.nmea("\(talker)GGA,123519.00,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,"))
        #expect(sentence.talker.string == talker)
        #expect(sentence.kind == .gga)
        let (epochs, _) = Sentences.decode(Sentences.nmea("\(talker)RMC,123519.00,A,4807.038,N,01131.000,E,022.4,084.4,230394,003.1,W"))
        #expect(epochs.first?.talker == talker)
    }

    @Test func decodesGGA() throws {
        let sentence = try NMEASentenceParser.parse(Sentences.nmea("GPGGA,123519.50,4807.038,S,01131.000,W,2,08,0.9,-5.4,M,-46.9,M,3.2,0120"))
        guard case .gga(let gga) = sentence.body else { Issue.record("not a GGA"); return }
        #expect(gga.time == NMEATimeOfDay(microseconds: (12 * 3600 + 35 * 60 + 19) * 1_000_000 + 500_000))
        #expect(abs(gga.latitude! + (48 + 7.038 / 60)) < 1e-12)
        #expect(abs(gga.longitude! + (11 + 31.0 / 60)) < 1e-12)
        #expect(gga.quality == 2)
        #expect(gga.satellitesUsed == 8)
        #expect(gga.hdop == 0.9)
        #expect(gga.altitudeMSL == -5.4)
        #expect(gga.geoidSeparation == -46.9)
        #expect(gga.differentialAge == 3.2)
        #expect(gga.differentialStation == 120)
        #expect(sentence.checksum == .valid)
    }

    @Test func decodesGNSLikeTheGGAOfTheSameFix() throws {
        let gnsLine = Sentences.nmea("GNGNS,123519.50,4807.038,S,01131.000,W,ADN,120,0.9,-5.4,-46.9,,0000")
        let ggaLine = Sentences.nmea("GPGGA,123519.50,4807.038,S,01131.000,W,2,08,0.9,-5.4,M,-46.9,M,3.2,0120")
        guard case .gns(let gns) = try NMEASentenceParser.parse(gnsLine).body,
              case .gga(let gga) = try NMEASentenceParser.parse(ggaLine).body
        else { Issue.record("wrong sentence types"); return }
        #expect(gns.time == gga.time && gns.latitude == gga.latitude && gns.longitude == gga.longitude)
        #expect(gns.hdop == gga.hdop && gns.altitudeMSL == gga.altitudeMSL && gns.geoidSeparation == gga.geoidSeparation)
        #expect(gns.modes == "ADN" && gns.hasFix && gns.satellitesUsed == 120)
    }

    /// GGA and GNS share most of their layout but not all of it: GGA's satellite count has two digits
    /// and a unit letter follows each of its heights, so the same value is a different field number.
    @Test(arguments: [
        ("GPGGA,120000,4807.0,N,01131.0,X,1,08,0.9,545.4,M,46.9,M,,", NMEAError(.invalidField, sentence: .gga, field: 5)),
        ("GNGNS,120000,4807.0,N,01131.0,X,AA,08,0.9,545.4,46.9,,", NMEAError(.invalidField, sentence: .gns, field: 5)),
        ("GPGGA,120000,4807.0,N,01131.0,E,1,100,0.9,545.4,M,46.9,M,,", NMEAError(.outOfRange, sentence: .gga, field: 7)),
        ("GNGNS,120000,4807.0,N,01131.0,E,AA,1000,0.9,545.4,46.9,,", NMEAError(.outOfRange, sentence: .gns, field: 7)),
        ("GPGGA,120000,4807.0,N,01131.0,E,1,08,0.9,545.4,M,246.9,M,,", NMEAError(.outOfRange, sentence: .gga, field: 11)),
        ("GNGNS,120000,4807.0,N,01131.0,E,AA,08,0.9,545.4,246.9,,", NMEAError(.outOfRange, sentence: .gns, field: 10)),
        ("GPGGA,120000,4807.0,N,01131.0,E,1,08,0.9,545.4", NMEAError(.truncated, sentence: .gga)),
        ("GNGNS,120000,4807.0,N,01131.0,E,AA,08,0.9", NMEAError(.truncated, sentence: .gns)),
    ])
    func ggaAndGNSReportTheirOwnFieldNumbers(body: String, error: NMEAError) {
        #expect(throws: error) { try NMEASentenceParser.parse(Sentences.nmea(body)) }
    }

    /// A time of day is six digits and an optional fraction; a ZDA year is one GPS can have given.
    @Test(arguments: [
        ("GPGGA,1.2345,4807.0,N,01131.0,E,1,08,0.9,545.4,M,46.9,M,,", NMEAError(.invalidField, sentence: .gga, field: 1)),
        ("GPGGA,12345.6,4807.0,N,01131.0,E,1,08,0.9,545.4,M,46.9,M,,", NMEAError(.invalidField, sentence: .gga, field: 1)),
        ("GPGGA,1200000,4807.0,N,01131.0,E,1,08,0.9,545.4,M,46.9,M,,", NMEAError(.invalidField, sentence: .gga, field: 1)),
        ("GPZDA,120000.00,01,01,0000,00,00", NMEAError(.outOfRange, sentence: .zda, field: 4)),
        ("GPZDA,120000.00,01,01,9999,00,00", NMEAError(.outOfRange, sentence: .zda, field: 4)),
    ])
    func aTimeOfDayOrYearNoReceiverCanGiveIsRefused(body: String, error: NMEAError) {
        #expect(throws: error) { try NMEASentenceParser.parse(Sentences.nmea(body)) }
    }

    @Test func emptyFieldsAreNil() throws {
        let sentence = try NMEASentenceParser.parse(Sentences.nmea("GPGGA,,,,,,0,,,,,,,,"))
        guard case .gga(let gga) = sentence.body else { Issue.record("not a GGA"); return }
        #expect(gga.time == nil && gga.latitude == nil && gga.longitude == nil && gga.altitudeMSL == nil)
        #expect(gga.quality == 0)
        let rmc = try NMEASentenceParser.parse(Sentences.nmea("GPRMC,,V,,,,,,,,,,N"))
        guard case .rmc(let fields) = rmc.body else { Issue.record("not an RMC"); return }
        #expect(fields.isValid == false && fields.date == nil && fields.speedKnots == nil && fields.faaMode == 0x4E)
    }

    @Test func decodesGSVWithSignalIDAndBlankBlocks() throws {
        let sentence = try NMEASentenceParser.parse(Sentences.nmea("GPGSV,4,3,13,13,21,278,,15,06,246,,24,,,,39,,,34,1"))
        guard case .gsv(let gsv) = sentence.body else { Issue.record("not a GSV"); return }
        #expect(gsv.satellites.map(\.prn) == [13, 15, 24, 39])
        #expect(gsv.satellites[2].elevation == nil && gsv.satellites[3].snr == 34)
        #expect(gsv.signalID == 1)
        let short = try NMEASentenceParser.parse(Sentences.nmea("GPGSV,3,3,11,20,09,138,36,13,04,183,51,32,03,113,44,,,,"))
        guard case .gsv(let shortGSV) = short.body else { Issue.record("not a GSV"); return }
        #expect(shortGSV.satellites.count == 3)
    }

    @Test func decodesGSAGLLVTGGSTZDA() throws {
        guard case .gsa(let gsa) = try NMEASentenceParser.parse(Sentences.nmea("GNGSA,A,3,05,07,12,24,30,,,,,,,,11.7,7.5,9.0,1")).body,
              case .gll(let gll) = try NMEASentenceParser.parse(Sentences.nmea("GPGLL,4916.45,N,12311.12,W,225444,A,A")).body,
              case .vtg(let vtg) = try NMEASentenceParser.parse(Sentences.nmea("GPVTG,,T,,M,,N,3.6,K,A")).body,
              case .gst(let gst) = try NMEASentenceParser.parse(Sentences.nmea("GPGST,172814.0,0.006,0.023,0.020,273.6,0.023,0.020,0.031")).body,
              case .zda(let zda) = try NMEASentenceParser.parse(Sentences.nmea("GPZDA,201530.00,04,07,2002,00,00")).body
        else { Issue.record("wrong sentence types"); return }
        #expect(Array(gsa.usedPRNs) == [5, 7, 12, 24, 30] && gsa.fixType == 3 && gsa.pdop == 11.7 && gsa.systemID == 1)
        #expect(gll.isValid == true && gll.time?.seconds == 22 * 3600 + 54 * 60 + 44)
        #expect(vtg.trackTrue == nil && abs(vtg.speed! - 1.0) < 1e-12)
        #expect(gst.latitudeError == 0.023 && gst.longitudeError == 0.020 && gst.altitudeError == 0.031)
        #expect(zda.date == NMEADate(year: 2002, month: 7, day: 4))
    }

    @Test func checksumLessSentencesFollowThePolicy() throws {
        let gga = try NMEASentenceParser.parse("$GPGGA,123519,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,\r\n")
        #expect(gga.checksum == .absent)
        let rmc = "$GPRMC,123519,A,4807.038,N,01131.000,E,022.4,084.4,230394,003.1,W"
        #expect(throws: NMEAError(.missingChecksum, sentence: .rmc)) { try NMEASentenceParser.parse(rmc) }
        #expect(try NMEASentenceParser.parse(rmc, checksumPolicy: .optional).checksum == .absent)
        #expect(throws: NMEAError(.missingChecksum, sentence: .gga)) {
            try NMEASentenceParser.parse("$GPGGA,123519,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,", checksumPolicy: .required)
        }
        let (_, decoder) = Sentences.decode("$GPGLL,4916.45,N,12311.12,W,225444,A\r\n" + rmc + "\r\n")
        #expect(decoder.statistics.sentencesWithoutChecksum == 1)
        #expect(decoder.statistics[error: .missingChecksum] == 1)
    }

    @Test(arguments: [
        ("$GPGGA,123519,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,*4", NMEAErrorKind.malformedChecksum),
        ("$GPGGA,123519,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,*ZZ", .malformedChecksum),
        (Sentences.corrupted("GPGGA,123519,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,"), .badChecksum),
        (Sentences.nmea("GPGGA,123519,4807.038,N,01131.000,E"), .truncated),
        (Sentences.nmea("GPGGA,126119,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,"), .outOfRange),
        (Sentences.nmea("GPGGA,123519,4861.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,"), .outOfRange),
        (Sentences.nmea("GPGGA,123519,4807.038,N,18131.000,E,1,08,0.9,545.4,M,46.9,M,,"), .outOfRange),
        (Sentences.nmea("GPGGA,123519,4807.038,X,01131.000,E,1,08,0.9,545.4,M,46.9,M,,"), .invalidField),
        (Sentences.nmea("GPGGA,123519,48O7.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,"), .invalidField),
        (Sentences.nmea("GPRMC,123519,A,4807.038,N,01131.000,E,022.4,084.4,320394,003.1,W"), .outOfRange),
        (Sentences.nmea("GPGSA,A,4,04,05,,09,12,,,24,,,,,2.5,1.3,2.1"), .outOfRange),
        (Sentences.nmea("GPTXT,01,01,02,ANTSTATUS=OK"), .unsupportedSentence),
        (Sentences.nmea("gpGGA,123519"), .malformedAddress),
        ("", .malformedAddress),
        ("$", .malformedAddress),
    ].map { (EscapedText($0.0), $0.1) })
    func rejectsBadInputWithATypedError(line: EscapedText, kind: NMEAErrorKind) {
        #expect { try NMEASentenceParser.parse(line.text) } throws: { error in (error as? NMEAError)?.kind == kind }
    }

    @Test func errorsExplainThemselves() {
        let error = NMEAError(.outOfRange, sentence: .gga, field: 2)
        #expect(error.description.contains("GGA field 2"))
        for kind in NMEAErrorKind.allCases { #expect(!NMEAError(kind).description.isEmpty) }
    }

    @Test func pqIsATalkerBesideTheProprietaryPrefix() throws {
        let sentence = try NMEASentenceParser.parse(Sentences.nmea("PQGSV,1,1,01,13,66,330,23"))
        #expect(sentence.talker == NMEATalker("PQ"))
        guard case .gsv(let gsv) = sentence.body else { Issue.record("not a GSV: \(sentence.body)"); return }
        #expect(gsv.satellites.first?.prn == 13)
        // Quectel's modems print BeiDou under it, as gpsd reads it.
        let (epochs, _) = Sentences.decode(Sentences.nmea("PQGSV,1,1,01,13,66,330,23"))
        #expect(epochs.first?.satellites.first?.id == NMEASatelliteID(constellation: .beidou, number: 13))
        #expect(throws: NMEAError.self) { try NMEASentenceParser.parse(Sentences.nmea("PQXYZ,1,2")) }
        // A bare `$P` (a line cut after it) is refused, not read past its end (the fuzzer found it).
        for line in ["$P", "$P\r\n", "$PQ", "$PQGS"] {
            #expect(throws: NMEAError.self) { try NMEASentenceParser.parse(line) }
        }
    }

    @Test func aHexadecimalSignalIDIsRead() throws {
        // NMEA 4.11 signal IDs run to F (u-blox prints BeiDou B2I as `B`).
        let sentence = try NMEASentenceParser.parse(Sentences.nmea("GBGSV,1,1,01,12,66,330,23,B"))
        guard case .gsv(let gsv) = sentence.body else { Issue.record("not a GSV"); return }
        #expect(gsv.signalID == 11)
        #expect(throws: NMEAError.self) { try NMEASentenceParser.parse(Sentences.nmea("GBGSV,1,1,01,12,66,330,23,G")) }
    }
}

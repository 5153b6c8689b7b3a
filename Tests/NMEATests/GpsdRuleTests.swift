import NMEA
import Testing

/// The rules the decoder shares with gpsd (and the few where it deliberately differs), each on hand-made sentences.
@Suite("gpsd's decoding rules")
struct GpsdRuleTests {
    private func epochs(_ lines: [String], rolloverPivot: NMEADate? = nil) -> [NMEAEpoch] {
        var decoder = NMEAStreamDecoder(rolloverPivot: rolloverPivot)
        var result: [NMEAEpoch] = []
        decoder.feed(Array(lines.map(Sentences.nmea).joined().utf8)) { result.append($0) }
        decoder.finish { result.append($0) }
        return result
    }

    @Test("a GSA printed after the sentence a cycle ends at joins the next epoch: it tells 3D from 2D, but the next cycle's own RMC status decides whether there is a fix")
    func aGSAAfterTheCycleEndDoesNotDecideTheNextCyclesFix() throws {
        let fix3 = "GPGSA,A,3,04,05,09,12,,,,,,,,,2.5,1.3,2.1"
        let none = "GPGSA,A,1,,,,,,,,,,,,,,,,"
        let result = epochs([
            "GPRMC,120000,A,4807.000,N,01131.000,E,1.0,90.0,010124,,", fix3,
            "GPRMC,120001,A,4807.001,N,01131.000,E,1.0,90.0,010124,,", fix3,
            "GPRMC,120002,V,4807.001,N,01131.000,E,2.5,244.6,010124,,", none,
            "GPRMC,120003,A,4807.003,N,01131.000,E,1.0,90.0,010124,,", fix3,
            "GPRMC,120004,A,4807.004,N,01131.000,E,1.0,90.0,010124,,", fix3,
        ])
        let lost = try #require(result.first { $0.secondsOfDay == 43_202 })
        let back = try #require(result.first { $0.secondsOfDay == 43_203 })
        // Before: 3D from the cycle before's GSA, with the invalid RMC's speed and track; then the fix back lost to
        // the lost cycle's GSA.
        #expect(lost.mode == .noFix && lost.speed == nil && lost.track == nil)
        #expect(back.mode == .twoD && back.latitude != nil, "a fix, and not 3D: its GSA says no fix")
        let steady = try #require(result.first { $0.secondsOfDay == 43_204 })
        #expect(steady.mode == .threeD, "the GSA before still tells 3D from 2D of a fix the RMC confirms")
    }

    @Test func derivesSpeedTrackAndClimbFromSuccessiveFixesAndSaysSo() throws {
        // GGA only: no speed or track reported. 0.01′ of latitude north (≈ 18.5 m) and 2 m up in 2 s.
        let result = epochs([
            "GPGGA,120000.00,4807.000,N,01131.000,E,1,08,0.9,500.0,M,46.9,M,,",
            "GPGGA,120002.00,4807.010,N,01131.000,E,1,08,0.9,502.0,M,46.9,M,,",
        ])
        #expect(result.count == 2)
        #expect(result[0].speed == nil && result[0].derived.isEmpty)
        let second = result[1]
        #expect(second.derived == [.speed, .track, .climb])
        #expect(abs(second.speed! - 18.53 / 2) < 0.01)
        #expect(abs(second.track! - 0) < 1e-6)
        #expect(second.climb == 1.0)
    }

    @Test func noMotionIsDerivedFasterThanAReceiverGivesFixes() throws {
        // 0.001′ of latitude (≈ 1.85 m) of jitter between epochs 10 ms apart would be 185 m/s: kept.
        // 0.01′ (≈ 18.5 m) in 10 ms would be 1,853 m/s, beyond the 1,000 knots a civil receiver
        // gives fixes at: nothing is derived. Over a second, the same 18.5 m is 18.5 m/s again.
        let result = epochs([
            "GPGGA,120000.00,4807.000,N,01131.000,E,1,08,0.9,500.0,M,46.9,M,,",
            "GPGGA,120000.01,4807.001,N,01131.000,E,1,08,0.9,500.0,M,46.9,M,,",
            "GPGGA,120000.02,4807.011,N,01131.000,E,1,08,0.9,500.0,M,46.9,M,,",
            "GPGGA,120001.02,4807.021,N,01131.000,E,1,08,0.9,500.0,M,46.9,M,,",
        ])
        #expect(result.count == 4)
        #expect(abs(try #require(result[1].speed) - 185.3) < 0.1)
        #expect(result[2].speed == nil && result[2].track == nil && result[2].climb == nil && result[2].derived.isEmpty)
        #expect(abs(try #require(result[3].speed) - 18.53) < 0.01)
    }

    @Test func reportedMotionIsNotDerived() {
        let result = epochs([
            "GPRMC,120000.00,A,4807.000,N,01131.000,E,10.0,90.0,010124,,,A",
            "GPRMC,120001.00,A,4807.010,N,01131.000,E,10.0,90.0,010124,,,A",
        ])
        #expect(result[1].derived.isEmpty)
        #expect(result[1].track == 90)
    }

    @Test func timesWithinTenMillisecondsAreOneCycle() {
        // A Magellan prints GLL's time to the millisecond and GGA's and RMC's to the centisecond (magellan315.log).
        let result = epochs([
            "GPGLL,3908.8199,N,00023.0832,W,120824.758,A",
            "GPGGA,120824.76,3908.8199,N,00023.0832,W,1,06,2.1,00176,M,,,,",
            "GPRMC,120824.76,A,3908.8199,N,00023.0832,W,00.0,000.0,130305,01.,W",
            "GPGLL,3908.8199,N,00023.0832,W,120825.758,A",
        ])
        #expect(result.count == 2)
        #expect(result[0].mode == .threeD)
        #expect(result[0].hdop == 2.1)
        #expect(result[1].mode == .twoD)
    }

    @Test func aCourseLeftEmptyBesideAReportedSpeedIsNotDerived() {
        // A u-blox standing still prints its speed and leaves the course empty (ublox-zed-f9p-nmea.log):
        // a bearing between fixes 2 cm apart would be jitter.
        let result = epochs([
            "GNRMC,003957.00,A,4807.00000,N,01131.00000,E,0.061,,120419,,,A",
            "GNRMC,003958.00,A,4807.00001,N,01131.00001,E,0.061,,120419,,,A",
        ])
        #expect(result.count == 2)
        #expect(result[1].track == nil)
        #expect(!result[1].derived.contains(.track) && !result[1].derived.contains(.speed))
        #expect(abs((result[1].speed ?? 0) - 0.061 * 1852 / 3600) < 1e-9)
    }

    @Test func aZeroDilutionIsNoEstimate() {
        // Receivers print 0.0 for a DOP they do not know: the accuracy is unknown, not 0 m.
        let result = epochs([
            "GPGGA,120000.00,4807.038,N,01131.000,E,1,08,0.0,545.4,M,46.9,M,,",
            "GPGSA,A,3,04,05,09,12,,,,,,,,,0.0,0.0,0.0",
        ])
        #expect(result.count == 1)
        #expect(result[0].horizontalAccuracy == nil)
        #expect(result[0].verticalAccuracy == nil)
        var epoch = result[0]
        epoch.estimatedHorizontalError = 0
        epoch.gstLatitudeError = 0
        epoch.gstLongitudeError = 0
        epoch.hdop = 1.0
        #expect(epoch.horizontalAccuracy == 19)
    }

    @Test func aDifferentialFixScalesTheVerticalDilutionAsGpsdDoes() {
        // skytraq-dgps.log: VDOP 2.2 with GGA quality 2 is gpsd's epv 12.65 (5.75 m per unit), not 50.6.
        let result = epochs([
            "GPGGA,120000.00,4807.038,N,01131.000,E,2,08,1.2,545.4,M,46.9,M,,",
            "GPGSA,A,3,09,23,08,11,27,28,,,,,,,2.5,1.2,2.2",
        ])
        #expect(abs((result[0].verticalAccuracy ?? 0) - 12.65) < 1e-9)
    }

    @Test func anInvalidRMCGivesNoPositionBesideAValidGGA() {
        let result = epochs([
            "GPGGA,120000.00,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,",
            "GPRMC,120000.00,V,4000.000,N,00100.000,E,0.0,,010124,,,N",
        ])
        #expect(result.count == 1)
        #expect(result[0].mode == .threeD)
        #expect(abs((result[0].latitude ?? 0) - 48.1173) < 1e-4)
        #expect(abs((result[0].longitude ?? 0) - 11.516_667) < 1e-4)
    }

    @Test func aFixWithZeroSatellitesUsedIsKeptWithItsCount() {
        // Some receivers print 00 satellites with a valid quality (dead reckoning, a count they do not track).
        let result = epochs(["GPGGA,120000.00,4807.000,N,01131.000,E,1,00,0.9,500.0,M,46.9,M,,"])
        #expect(result[0].mode == .threeD)
        #expect(result[0].satellitesUsed == 0)
    }

    @Test func theLatestPositionOfTheCycleWins() {
        let result = epochs([
            "GPGLL,4807.000,N,01131.000,E,120000.00,A,A",
            "GPRMC,120000.00,A,4807.001,N,01131.001,E,1.0,90.0,010124,,,A",
            "GPGGA,120000.00,4807.002,N,01131.002,E,1,08,0.9,500.0,M,46.9,M,,",
        ])
        #expect(result.count == 1)
        #expect(abs(result[0].latitude! - (48 + 7.002 / 60)) < 1e-12)
        #expect(abs(result[0].longitude! - (11 + 31.002 / 60)) < 1e-12)
    }

    @Test func modeFromGGAThenGNSThenGSAThenStatus() {
        let gsaOnly = epochs(["GPGSA,A,3,04,05,09,,,,,,,,,,2.5,1.3,2.1", "GPRMC,120000.00,A,4807.000,N,01131.000,E,1.0,90.0,010124,,,A"])
        #expect(gsaOnly.last?.mode == .threeD, "GSA's fix type wins over RMC's status")
        let qualityZero = epochs(["GPGSA,A,3,04,05,09,,,,,,,,,,2.5,1.3,2.1", "GPGGA,120000.00,4807.000,N,01131.000,E,0,08,0.9,500.0,M,46.9,M,,"])
        #expect(qualityZero.last?.mode == .noFix && qualityZero.last?.latitude == nil, "GGA quality 0 wins over GSA")
        let noAltitude = epochs(["GPGGA,120000.00,4807.000,N,01131.000,E,1,08,0.9,,M,,M,,"])
        #expect(noAltitude[0].mode == .twoD)
        let statusOnly = epochs(["GPRMC,120000.00,A,4807.000,N,01131.000,E,1.0,90.0,010124,,,A"])
        #expect(statusOnly[0].mode == .twoD)
        let faaNotValid = epochs(["GPRMC,120000.00,A,4807.000,N,01131.000,E,1.0,90.0,010124,,,N"])
        #expect(faaNotValid[0].mode == .noFix, "FAA mode N overrides status A")
        let gllVoid = epochs(["GPGLL,0000.0000,N,00000.0000,E,000429.00,V,N"])
        #expect(gllVoid[0].mode == .noFix)
        let timeOnly = epochs(["GPZDA,030807.00,10,08,2006,00,00"])
        #expect(timeOnly[0].mode == .noFix, "a cycle with a time and nothing about a fix has none")
    }

    @Test func simulatedDataIsNeverAFix() {
        let quality8 = epochs(["GPGGA,125106,3854.5087,N,07726.4523,W,8,10,2.0,268.8,M,-33.9,M,,"])
        #expect(quality8[0].mode == .noFix && quality8[0].latitude == nil)
        let faaSimulator = epochs(["GPRMC,125106,A,3854.5087,N,07726.4523,W,0.0,0.0,241011,10.5,W,S"])
        #expect(faaSimulator[0].mode == .noFix)
    }

    @Test func gnsGivesPositionAltitudeAndMode() {
        let fix = epochs(["GNGNS,120000.00,4807.000,N,01131.000,E,AAN,12,0.8,500.0,46.9,,"])
        #expect(fix[0].mode == .threeD && fix[0].talker == "GN")
        #expect(fix[0].satellitesUsed == 12 && fix[0].hdop == 0.8)
        #expect(fix[0].altitudeMSL == 500 && fix[0].geoidSeparation == 46.9)
        let noFix = epochs(["GNGNS,120000.00,,,,,NNN,00,,,,,"])
        #expect(noFix[0].mode == .noFix)
    }

    @Test func trueHeadingIsKeptApartFromCourseOverGround() {
        let result = epochs(["GPRMC,120000.00,A,4807.000,N,01131.000,E,3.0,75.0,010124,,,A", "HEHDT,81.5,T"])
        #expect(result[0].heading == 81.5)
        #expect(result[0].track == 75)
    }

    @Test func garminErrorEstimatesAndAltitudeInFeet() {
        let result = epochs([
            "GPRMC,200004,A,5504.4343,N,01025.5386,E,0.0,0.0,260810,1.0,E,D",
            "PGRME,19.9,M,50.0,M,53.8,M",
            "PGRMZ,-30,f,2",
        ])
        #expect(result[0].estimatedHorizontalError == 19.9 && result[0].estimatedVerticalError == 50)
        #expect(result[0].horizontalAccuracy == 19.9 && result[0].verticalAccuracy == 50)
        #expect(abs(result[0].altitudeMSL! - -9.144) < 1e-9)
        // GGA's altitude, in decimetres, wins over PGRMZ's whole feet.
        let withGGA = epochs(["GPGGA,200004,5504.4343,N,01025.5386,E,2,03,2.5,-9.1,M,43.9,M,,", "PGRMZ,-30,f,3"])
        #expect(withGGA[0].altitudeMSL == -9.1)
        // PGRMZ's dimension sets the mode when nothing else does.
        let alone = epochs(["PGRMZ,2282,f,3", "GPGLL,4023.8600,N,00339.1630,W,214350,,"])
        #expect(alone[0].mode == .threeD)
    }

    @Test func sirfErrorEstimatesSetTheAccuracy() {
        let result = epochs([
            "GPGGA,053233.438,3114.8821,N,12135.2428,E,1,05,1.2,167.2,M,8.3,M,,0000",
            "PSRFEPE,053233.438,A,1.2,25.61,66.06,0.3,180.0",
        ])
        #expect(result.count == 1)
        #expect(result[0].horizontalAccuracy == 25.61 && result[0].verticalAccuracy == 66.06)
        let invalid = epochs(["GPGGA,053229.438,3114.8821,N,12135.2428,E,1,05,1.2,167.2,M,8.3,M,,0000", "PSRFEPE,053229.438,V,,,,,"])
        #expect(invalid[0].estimatedHorizontalError == nil)
    }

    @Test func differentialFixesUseTheSmallerRangeError() {
        let result = epochs(["GPGGA,194104,4426.1138,N,07140.5536,W,2,10,0.9,267.9,M,,,,"])
        #expect(abs(result[0].horizontalAccuracy! - 0.9 * 4.75) < 1e-12)
    }

    @Test func weekRolloverMovesDatesBeforeThePivotBy1024Weeks() {
        let lines = ["GPGGA,000429.00,4807.000,N,01131.000,E,1,08,0.9,500.0,M,46.9,M,,", "GPRMC,000430.00,A,4807.000,N,01131.000,E,0.0,,220899,,,A"]
        let corrected = epochs(lines, rolloverPivot: NMEADate(year: 2017, month: 1, day: 1))
        // The first epoch comes before any date-bearing sentence: it has a time of day but no date.
        #expect(corrected[0].year == nil && corrected[0].secondsOfDay == 269)
        #expect(corrected[1].year == 2019 && corrected[1].month == 4 && corrected[1].day == 7)
        let asPrinted = epochs(lines)
        #expect(asPrinted[1].year == 1999 && asPrinted[1].month == 8 && asPrinted[1].day == 22)
        #expect(NMEAWeekRollover.corrected(NMEADate(year: 2024, month: 5, day: 1), pivot: NMEADate(year: 2017, month: 1, day: 1)).year == 2024)
    }

    @Test(arguments: ["IN", "II", "EC", "GA", "GB", "BD", "GQ", "QZ", "GP", "GN"])
    func talkersBeyondGPSAreDecoded(talker: String) {
        let result = epochs(["\(talker)GGA,120000.00,4807.000,N,01131.000,E,1,08,0.9,500.0,M,46.9,M,,"])
        #expect(result.count == 1)
        #expect(result[0].talker == talker && result[0].mode == .threeD)
    }
}

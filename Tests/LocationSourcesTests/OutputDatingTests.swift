import LocationEngine
@testable import LocationSources
import SyntheticGPS
import Testing

/// The receiver's output dated by its own clock (``OutputDating``), and the driver judging a receiver whose
/// output a held-up reader reads late, all at once.
struct OutputDatingTests {
    typealias Generation = ReceiverFaultMatrixTests.Generation

    typealias Stamp = OutputDating.Stamp

    /// The stamp of `sentence` (talker and type, `GPGGA`) at `time`.
    static func stamp(_ sentence: String, _ time: Double?) -> Stamp {
        Stamp(timeOfDay: time, sentence: sentence.utf8.reduce(0) { $0 << 8 | UInt64($1) })
    }
    static func gga(_ time: Double?) -> Stamp { stamp("GPGGA", time) }
    static func rmc(_ time: Double?) -> Stamp { stamp("GPRMC", time) }

    @Test("the time of day of GGA, RMC, GNS, ZDA (first field) and GLL (fifth), with the sentence; no time when it is empty or malformed; nothing for other lines")
    func stampsOfTimedSentences() {
        // Each line as the receiver sends it: its checksum made right.
        func stamp(_ line: String) -> Stamp? { OutputDating.stamp(of: Self.checksummed(line)) }
        func time(_ line: String) -> Double? { stamp(line)?.timeOfDay }
        #expect(stamp("$GPGGA,123519.50,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,*47\r\n") == Self.stamp("GPGGA", 45_319.5))
        #expect(stamp("$GNRMC,000001,A,4807.038,N,01131.000,E,022.4,084.4,230394,003.1,W*6A\r\n") == Self.stamp("GNRMC", 1))
        #expect(time("$GNGNS,235959.99,4807.038,N,01131.000,E,AN,08,0.9,545.4,46.9,,*47\r\n") == 86_399.99)
        #expect(time("$GPZDA,201530.00,04,07,2002,00,00*60\r\n") == 72_930)
        #expect(stamp("$GPGLL,4916.45,N,12311.12,W,225444,A*1D\r\n") == Self.stamp("GPGLL", 82_484))
        #expect(stamp("$GPGSV,3,1,11,03,03,111,00,04,15,270,00*74\r\n") == nil, "no time")
        #expect(stamp("$GPGGA,,,,,,0,00,,,M,,M,,*66\r\n") == Self.gga(nil), "empty time: a receiver that has not set its clock")
        #expect(stamp("$GPGGA,240000,4807.038,N*47\r\n") == Self.gga(nil), "hour 24")
        #expect(stamp("$GPGGA,12351,4807.038,N*47\r\n") == Self.gga(nil), "five digits")
        #expect(stamp("$GPGGA,12a519,4807.038,N*47\r\n") == Self.gga(nil))
        #expect(stamp("$GPGGA,123519.5.5,4807.038,N*47\r\n") == Self.gga(nil))
        #expect(stamp("$GPGLL,4916.45,N*1D\r\n") == Self.stamp("GPGLL", nil), "cut before its time")
        #expect(stamp("$PMTK001,225,3*35\r\n") == nil, "a reply is no output")
        #expect(stamp("GPGGA,123519,4807.038,N*47\r\n") == nil, "no $")
        #expect(stamp("$PGRMC,123519,A*47\r\n") == nil, "proprietary")
        #expect(time("$GPGGA,123519*47\r\n") == 45_319, "the checksum right after the time")
        #expect(OutputDating.stamp(of: Array("$GPGGA,123519,4807.038,N\r\n".utf8)) == Self.stamp("GPGGA", 45_319), "no checksum")
    }

    @Test("a line whose checksum is wrong carries no time: one garbled digit would date it, and the reckoning after it, wrongly")
    func aGarbledTimeIsNoTime() {
        let sent = Self.checksummed("$GPGGA,120011.00,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,*00\r\n")
        #expect(OutputDating.stamp(of: sent) == Self.stamp("GPGGA", 43_211))
        var garbled = sent
        garbled[11] = UInt8(ascii: "5")  // 120011 read as 120051
        #expect(OutputDating.stamp(of: garbled) == nil)
        #expect(OutputDating.stamp(of: Array(sent.dropLast(4)) + Array("*G0\r\n".utf8)) == nil, "a checksum that is no hex")
        #expect(OutputDating.stamp(of: Array(sent.dropLast(4)) + Array("*".utf8)) == nil, "cut in its checksum")
        // In a burst, the garbled line is a line of its epoch: the burst is dated as it would have been.
        var dating = OutputDating()
        Self.readAsItComes(&dating, epochs: 4, from: 43_206)
        let burst = Duration.seconds(1007) + .milliseconds(200)
        #expect(dating.date(readAt: burst, stamp: Self.gga(43_210)) == .seconds(1004) + .milliseconds(50))
        #expect(dating.date(readAt: burst, stamp: OutputDating.stamp(of: garbled)) == .seconds(1004) + .milliseconds(50))
        #expect(dating.date(readAt: burst, stamp: Self.gga(43_212)) == .seconds(1006) + .milliseconds(50))
    }

    /// `epochs` GGAs from the time `from` on, one a second, each read 50 ms after it was sent (from 1000.05): each
    /// dated at its read time.
    static func readAsItComes(_ dating: inout OutputDating, epochs: Int, from: Double) {
        for second in 0..<epochs {
            let read = Duration.seconds(1000 + second) + .milliseconds(50)
            #expect(dating.date(readAt: read, stamp: gga(from + Double(second))) == read)
        }
    }

    /// `line` with its checksum (the two digits after `*`) made right.
    static func checksummed(_ line: String) -> [UInt8] {
        var bytes = Array(line.utf8)
        guard let star = bytes.firstIndex(of: UInt8(ascii: "*")) else { return bytes }
        let sum = bytes[1..<star].reduce(0, ^)
        let hex = String(sum, radix: 16, uppercase: true)
        bytes.replaceSubrange(star + 1..<star + 3, with: Array((hex.count == 1 ? "0" + hex : hex).utf8))
        return bytes
    }

    @Test("read as it comes, output is dated at its read time; read late all at once, at when it would have been read")
    func lateReadsAreDatedByTheReceiversClock() {
        var dating = OutputDating()
        // 1 Hz, read 50 ms after each epoch (the host's clock 900 s ahead of the receiver's).
        Self.readAsItComes(&dating, epochs: 10, from: 100)
        // Held up for three seconds: the epochs of 110, 111 and 112 are read together at 1013.2, with their satellites.
        let burst = Duration.seconds(1013) + .milliseconds(200)
        #expect(dating.date(readAt: burst, stamp: Self.gga(110)) == .seconds(1010) + .milliseconds(50))
        #expect(dating.date(readAt: burst, stamp: nil) == .seconds(1010) + .milliseconds(50), "a GSV line: the lag of its epoch")
        #expect(dating.date(readAt: burst, stamp: Self.gga(111)) == .seconds(1011) + .milliseconds(50))
        #expect(dating.date(readAt: burst, stamp: Self.gga(112)) == .seconds(1012) + .milliseconds(50))
        #expect(dating.date(readAt: burst, stamp: Self.gga(110)) == burst, "an older time again dates nothing")
        // Free again: read as it comes.
        #expect(dating.date(readAt: .seconds(1014) + .milliseconds(50), stamp: Self.gga(114)) == .seconds(1014) + .milliseconds(50))
    }

    @Test("held up in the middle of an epoch, the rest of it is dated within an epoch's sending of its first line, not when it was read")
    func anEpochSplitByAHeldUpReader() {
        var dating = OutputDating()
        for second in 0..<5 {
            let read = Duration.seconds(1000 + second) + .milliseconds(50)
            #expect(dating.date(readAt: read, stamp: Self.gga(Double(100 + second))) == read)
            #expect(dating.date(readAt: read + .milliseconds(350), stamp: Self.rmc(Double(100 + second))) == read + .milliseconds(350))
        }
        // The GGA of 105 read at once, then the reader held up for a second and a half: the RMC of 105 and its
        // satellites were on the line by 1005.55; the epoch of 106, read with them, was sent at 1006.05.
        #expect(dating.date(readAt: .seconds(1005) + .milliseconds(50), stamp: Self.gga(105)) == .seconds(1005) + .milliseconds(50))
        let burst = Duration.seconds(1006) + .milliseconds(600)
        #expect(dating.date(readAt: burst, stamp: Self.rmc(105)) == .seconds(1005) + .milliseconds(550))
        #expect(dating.date(readAt: burst, stamp: nil) == .seconds(1005) + .milliseconds(550))
        #expect(dating.date(readAt: burst, stamp: Self.gga(106)) == .seconds(1006) + .milliseconds(50))
        #expect(dating.date(readAt: burst, stamp: Self.rmc(106)) == .seconds(1006) + .milliseconds(50))
        // An epoch whose time is empty (the receiver lost its clock): its output and what follows, at read time.
        #expect(dating.date(readAt: .seconds(1007) + .milliseconds(50), stamp: Self.gga(nil)) == .seconds(1007) + .milliseconds(50))
        #expect(dating.date(readAt: .seconds(1009), stamp: nil) == .seconds(1009))
    }

    @Test("a ZDA that carries the next second (a receiver stamping it with the coming pulse) starts the epoch its GGA joins a second later: the GGA is dated early, by less than a second, never late")
    func aZDAAheadOfItsEpoch() {
        var dating = OutputDating()
        func ms(_ milliseconds: Int) -> Duration { .milliseconds(milliseconds) }
        // GGA of t, then ZDA of t + 1 (as some receivers send them), read as they come.
        #expect(dating.date(readAt: ms(1_000_050), stamp: Self.gga(100)) == ms(1_000_050))
        #expect(dating.date(readAt: ms(1_000_100), stamp: Self.stamp("GPZDA", 101)) == ms(1_000_100))
        for second in 1..<10 {
            let read = ms(1_000_050 + second * 1000)
            #expect(dating.date(readAt: read, stamp: Self.gga(Double(100 + second))) == read - ms(450), "within an epoch's sending of its ZDA")
            #expect(dating.date(readAt: read + ms(50), stamp: Self.stamp("GPZDA", Double(101 + second))) == read + ms(50))
        }
        // Held up from 1010 to 1011.5: what was sent at 1010.05, 1010.10, 1011.05 and 1011.10 read at once.
        let burst = ms(1_011_500)
        let dates = [Self.gga(110), Self.stamp("GPZDA", 111), Self.gga(111), Self.stamp("GPZDA", 112)].map {
            dating.date(readAt: burst, stamp: $0)
        }
        #expect(dates == [ms(1_009_600), ms(1_010_100), ms(1_010_100), ms(1_011_100)])
    }

    @Test("at a fix a minute, an epoch read late is measured against the one before: the window outlasts the slowest interval")
    func aSlowSettingsEpochReadLate() {
        var dating = OutputDating()
        #expect(dating.date(readAt: .milliseconds(1_000_050), stamp: Self.gga(100)) == .milliseconds(1_000_050))
        #expect(dating.date(readAt: .milliseconds(1_060_050), stamp: Self.gga(160)) == .milliseconds(1_060_050))
        // Sent at 1120.05, read at 1121.5: more than a minute after the epoch before was read.
        #expect(dating.date(readAt: .milliseconds(1_121_500), stamp: Self.gga(220)) == .milliseconds(1_120_050))
    }

    @Test("at 10 Hz, a burst of 50 epochs read at once is dated epoch by epoch: the prompt epoch they are measured against stays")
    func aLongBurstAtTenHertz() {
        var dating = OutputDating()
        // Epoch k is sent at 1000.05 + k/10 and carries the time 100 + k/10.
        func time(_ k: Int) -> Double { Double(1000 + k) / 10 }
        func sent(_ k: Int) -> Duration { .milliseconds(1_000_050 + k * 100) }
        for k in 0..<50 { #expect(dating.date(readAt: sent(k), stamp: Self.gga(time(k))) == sent(k)) }
        // Held up from 1005 to 1010: epochs 50 to 99 read at once.
        let dates = (50..<100).map { dating.date(readAt: .seconds(1010), stamp: Self.gga(time($0))) }
        #expect(dates == (50..<100).map(sent))
    }

    @Test("midnight goes on counting; a receiver clock set back by an hour starts the reckoning again; no time is read time")
    func midnightJumpsAndUntimedOutput() {
        var dating = OutputDating()
        #expect(dating.date(readAt: .seconds(500), stamp: Self.gga(86_399)) == .seconds(500))
        #expect(dating.date(readAt: .seconds(501), stamp: Self.gga(0)) == .seconds(501), "past midnight, a second later")
        #expect(dating.date(readAt: .seconds(502), stamp: Self.gga(1)) == .seconds(502))
        // Set back an hour (a receiver correcting its clock): taken as a jump, not as output an hour late.
        #expect(dating.date(readAt: .seconds(503), stamp: Self.gga(86_400 - 3600 + 2)) == .seconds(503))
        #expect(dating.date(readAt: .seconds(504), stamp: Self.gga(86_400 - 3600 + 3)) == .seconds(504))
        var untimed = OutputDating()
        #expect(untimed.date(readAt: .seconds(7), stamp: nil) == .seconds(7))
        #expect(untimed.date(readAt: .seconds(9), stamp: nil) == .seconds(9))
    }

    @Test("times half a day apart by turns (a clock not set in one sentence) date every line at read time, for as long as they come")
    func timesHalfADayApartByTurns() {
        var dating = OutputDating()
        var read = Duration.seconds(100)
        var allAtReadTime = true
        // More than 2^47 days' worth of midnights if each fall of half a day counted one for good.
        for _ in 0..<120_000 {
            allAtReadTime = allAtReadTime && dating.date(readAt: read, stamp: Self.gga(0)) == read
            read += .milliseconds(500)
            allAtReadTime = allAtReadTime && dating.date(readAt: read, stamp: Self.rmc(50_400)) == read
            read += .milliseconds(500)
        }
        #expect(allAtReadTime)
    }

    @Test("after a long sleep the host's clock drifted from the receiver's: the drift is not taken for lag")
    func driftOverALongSleep() {
        var dating = OutputDating()
        Self.readAsItComes(&dating, epochs: 10, from: 100)
        // Eight hours asleep, the host's clock 1.4 s (50 ppm) ahead of the receiver's since.
        let woken = Duration.seconds(1010 + 28_800) + .milliseconds(1450)
        #expect(dating.date(readAt: woken, stamp: Self.gga(Double(110 + 28_800))) == woken)
        #expect(dating.date(readAt: woken + .seconds(1), stamp: Self.gga(Double(111 + 28_800))) == woken + .seconds(1))
    }

    @Test("one epoch's sentences share its lag; a sentence that carries its time again, or a time that goes back, dates nothing")
    func epochsAndTimesThatStandStill() {
        var dating = OutputDating()
        // GGA and RMC of each epoch, the RMC read 0.45 s after (a 9600-baud line).
        func epoch(_ time: Double, readAt: Duration) -> [Duration] {
            [dating.date(readAt: readAt, stamp: Self.gga(time)), dating.date(readAt: readAt + .milliseconds(450), stamp: Self.rmc(time))]
        }
        for second in 0..<5 {
            let read = Duration.seconds(1000 + second)
            #expect(epoch(Double(100 + second), readAt: read) == [read, read + .milliseconds(450)])
        }
        // The receiver repeats its last time (it lost its fix): dated as read.
        #expect(epoch(104, readAt: .seconds(1005)) == [.seconds(1005), .seconds(1005) + .milliseconds(450)])
        #expect(epoch(104, readAt: .seconds(1006)) == [.seconds(1006), .seconds(1006) + .milliseconds(450)])
        #expect(dating.date(readAt: .seconds(1007), stamp: nil) == .seconds(1007), "and its satellites")
        // Its time runs again, and the reader is held up: the burst dated by the receiver's clock, an epoch's
        // lines together.
        let burst = Duration.seconds(1010) + .milliseconds(200)
        #expect(dating.date(readAt: burst, stamp: Self.gga(108)) == .seconds(1008))
        #expect(dating.date(readAt: burst, stamp: Self.rmc(108)) == .seconds(1008))
        #expect(dating.date(readAt: burst, stamp: nil) == .seconds(1008), "its satellites")
        #expect(dating.date(readAt: burst, stamp: Self.gga(109)) == .seconds(1009))
        #expect(dating.date(readAt: .seconds(1011), stamp: Self.gga(111)) == .seconds(1011))
        // An earlier time read later: it dates nothing, and reckoning starts again from it.
        #expect(dating.date(readAt: .seconds(1012), stamp: Self.gga(105)) == .seconds(1012))
        #expect(dating.date(readAt: .seconds(1013), stamp: Self.gga(106)) == .seconds(1013))
        #expect(dating.date(readAt: .seconds(1016), stamp: Self.gga(107)) == .seconds(1014), "late by 2 s against the new reckoning")
    }

    @Test(
        "a reader held up across a backup reads the epoch sent before it late: the silence still confirms the backup, not a receiver left running",
        arguments: [Generation.all[1], Generation.all[2]])
    func aBackupIsConfirmedThoughTheReaderWasHeldUp(generation: Generation) {
        var line = VirtualReceiverLine(receiver: generation.receiver(.none), configuration: generation.configuration)
        line.start(.high)
        line.advance(by: ReceiverFaultMatrixTests.confirmationWindow)
        #expect(line.believed == .tracking(.seconds(1)))
        // Held up for a whole interval before the command and a second after it: the epoch sent before the
        // command is read a second after it.
        line.holdReader(for: .seconds(2))
        line.advance(by: .seconds(1))
        line.stop(into: .off)
        line.advance(by: ReceiverFaultMatrixTests.confirmationWindow)
        #expect(line.actual == .off)
        #expect(line.believed == .off, "the driver did \(line.trace.suffix(8))")
    }

    @Test(
        "a reader held up while a lost mode command's output is weighed reads a gap longer than the receiver's interval: the receiver's clock says it kept tracking",
        arguments: Generation.all)
    func aHeldUpReaderDoesNotReadAsAPowerSaveCycle(generation: Generation) {
        var receiver = generation.receiver(.none)
        receiver.commandBehaviors = [.powerSave: .ignore]
        var line = VirtualReceiverLine(receiver: receiver, configuration: generation.configuration)
        line.start(.high)
        line.advance(by: ReceiverFaultMatrixTests.confirmationWindow)
        line.setMode(.medium)
        // The command goes unanswered; meanwhile the reader is held up for 3 s, twice.
        line.advance(by: .seconds(2))
        line.holdReader(for: .seconds(3))
        line.advance(by: .seconds(5))
        line.holdReader(for: .seconds(3))
        line.advance(by: ReceiverFaultMatrixTests.confirmationWindow)
        #expect(line.actual == .tracking(.seconds(1)))
        #expect(line.believed == .tracking(.seconds(1)) || line.believed == .unknown, "the driver did \(line.trace.suffix(8))")
        #expect(line.believed != .powerSave(.seconds(5)))
    }
}

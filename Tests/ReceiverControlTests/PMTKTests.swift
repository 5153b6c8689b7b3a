import ReceiverControl
import Testing

/// PMTK packets byte for byte against the examples printed in the vendors' manuals (checksums included).
struct PMTKTests {
    @Test(arguments: [
        // Quectel L80 GPS Protocol Specification §3.8, §3.13, §3.25; GlobalTop PMTK command packet Rev. A08 (225);
        // LOCOSYS LS20031 data sheet §5.3 (225 periodic standby); Linx RXM-GPS-FM manual (220).
        (PMTKCommand.standby, "$PMTK161,0*28"),
        (.periodic(.periodicStandby(PMTKDutyCycle(run: 3000, sleep: 12000, secondRun: 18000, secondSleep: 72000))),
            "$PMTK225,2,3000,12000,18000,72000*15"),
        (.periodic(.periodicBackup(PMTKDutyCycle(run: 3000, sleep: 12000, secondRun: 18000, secondSleep: 72000))),
            "$PMTK225,1,3000,12000,18000,72000*16"),
        (.periodic(.normal), "$PMTK225,0*2B"),
        (.periodic(.alwaysLocateStandby), "$PMTK225,8*23"),
        (.periodic(.alwaysLocateBackup), "$PMTK225,9*22"),
        (.fixInterval(milliseconds: 1000), "$PMTK220,1000*1F"),
        (.hotRestart, "$PMTK101*32"),
        (.warmRestart, "$PMTK102*31"),
        (.coldRestart, "$PMTK103*30"),
        (.queryRelease, "$PMTK605*31"),
        (.test, "$PMTK000*32"),
    ] as [(PMTKCommand, String)])
    func commandsAreWrittenAsTheManualsPrintThem(command: PMTKCommand, sentence: String) throws {
        // Each ends in CR LF, added here so that a test case's line in the run's output stays one line.
        let expected = sentence + "\r\n"
        #expect(command.bytes == Array(expected.utf8))
        // And read back (the synthetic receiver's side).
        #expect(try PMTKCommand(PMTKPacket.parse(Array(expected.utf8))) == command)
    }

    @Test func acknowledgementsAreParsedWithTheirFlag() throws {
        // LOCOSYS LS20031 data sheet §5.3 and the Fastrax MTK NMEA manual §2.11.
        #expect(try PMTKReply(PMTKPacket.parse(Array("$PMTK001,225,3*35\r\n".utf8))) == .acknowledgement(command: 225, flag: .succeeded))
        #expect(try PMTKReply(PMTKPacket.parse(Array("$PMTK001,161,3*36".utf8))) == .acknowledgement(command: 161, flag: .succeeded))
        #expect(try PMTKReply(PMTKPacket.parse(Array("$PMTK001,183,3*3A".utf8))) == .acknowledgement(command: 183, flag: .succeeded))
        let failed = PMTKReply.acknowledgement(command: 161, flag: .unsupported).packet
        #expect(failed.sentence == "$PMTK001,161,1*34\r\n")
        #expect(try PMTKReply(PMTKPacket.parse(failed.bytes)) == .acknowledgement(command: 161, flag: .unsupported))
    }

    @Test func theFirmwareReleaseIsParsed() throws {
        // The L80 specification (§3.30) prints this example with `*18`, which does not match its own text (the
        // XOR is 0x11): the parser treats the printed line as garbled, and reads the corrected one.
        let printed = "$PMTK705,AXN_3.10_3333_12102201,0000,QUECTEL-L80,*18"
        #expect(throws: ReceiverReplyError.badChecksum) { try PMTKPacket.parse(Array(printed.utf8)) }
        let reply = try PMTKReply(PMTKPacket.parse(Array("$PMTK705,AXN_3.10_3333_12102201,0000,QUECTEL-L80,*11".utf8)))
        #expect(reply == .release(PMTKRelease(release: "AXN_3.10_3333_12102201", buildID: "0000", model: "QUECTEL-L80")))
        #expect(reply.packet.sentence == "$PMTK705,AXN_3.10_3333_12102201,0000,QUECTEL-L80,*11\r\n")
        #expect(try PMTKReply(PMTKPacket.parse(Array("$PMTK011,MTKGPS*08".utf8))) == .text("MTKGPS"))
        #expect(try PMTKReply(PMTKPacket.parse(Array("$PMTK010,001*2E".utf8))) == .systemMessage(1))
    }

    @Test(arguments: [
        ("$PMTK161,0*29", ReceiverReplyError.badChecksum),
        ("$GPGGA,1*00", .notPMTK),
        ("$PMTK161,0*2", .malformed),
        ("$PMTK16,0*19", .malformed),
        ("$PMTK161,0*ZZ", .malformed),
        ("$PMTK1x1*7A", .malformed),
    ] as [(String, ReceiverReplyError)])
    func badLinesGetATypedError(line: String, error: ReceiverReplyError) {
        #expect(throws: error) { try PMTKPacket.parse(Array(line.utf8)) }
    }

    @Test func outOfRangeValuesAreRejected() throws {
        #expect(throws: ReceiverReplyError.invalidField("fix interval")) {
            try PMTKCommand(PMTKPacket(type: 220, fields: ["50"]))
        }
        #expect(throws: ReceiverReplyError.invalidField("periodic times")) {
            try PMTKCommand(PMTKPacket(type: 225, fields: ["2", "10", "12000", "0", "0"]))
        }
        #expect(throws: ReceiverReplyError.invalidField("acknowledgement")) {
            try PMTKReply(PMTKPacket(type: 1, fields: ["161", "7"]))
        }
        #expect(throws: ReceiverReplyError.tooLong) {
            try PMTKPacket.parse(Array(("$PMTK001," + String(repeating: "1", count: 300) + "*00").utf8))
        }
    }
}

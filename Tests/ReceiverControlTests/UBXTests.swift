import ReceiverControl
import Testing

/// UBX frames byte for byte against published examples (checksums included).
struct UBXTests {
    private func bytes(_ hex: String) -> [UInt8] { hex.split(separator: " ").map { UInt8($0, radix: 16)! } }

    @Test func commandsAreFramedAsPublished() throws {
        // MON-VER poll, as u-center and gpsd's ubxtool send it.
        #expect(UBXCommand.pollVersion.bytes == bytes("B5 62 0A 04 00 00 0E 34"))
        // CFG-RATE 1000 ms, 1 cycle, GPS time: the common 1 Hz example (u-blox M8 protocol specification layout).
        #expect(UBXCommand.rate(UBXRate(measurementMilliseconds: 1000)).bytes == bytes("B5 62 06 08 06 00 E8 03 01 00 01 00 01 39"))
        // CFG-RXM power save / continuous, as logged from u-center.
        #expect(UBXCommand.receiverManagement(powerSave: true).bytes == bytes("B5 62 06 11 02 00 08 01 22 92"))
        #expect(UBXCommand.receiverManagement(powerSave: false).bytes == bytes("B5 62 06 11 02 00 08 00 21 91"))
        // RXM-PMREQ version 0 (16 bytes): infinite backup, backup|force, wake on UART RX.
        #expect(
            UBXCommand.powerManagementRequest(.backupUntilWoken).bytes
                == bytes("B5 62 02 41 10 00 00 00 00 00 00 00 00 00 06 00 00 00 08 00 00 00 61 6B"))
        // CFG-VALSET, RAM layer, CFG-RATE-MEAS (0x30210001, U2) = 1000 ms: the key goes little-endian.
        #expect(
            UBXCommand.setValues(layers: UBXCommand.ramLayer, [UBXConfigValue(key: UBXConfigValue.rateMeasurementKey, value: 1000)]).bytes
                == bytes("B5 62 06 8A 0A 00 00 01 00 00 01 00 21 30 E8 03 D8 C4"))
    }

    @Test func theFletcherChecksumMatchesAUCenterCapture() throws {
        // CFG-PM2 as u-center writes it (update period 1000 ms, then 5000 ms), captured byte for byte with its checksum.
        let captured1s = bytes(
            "B5 62 06 3B 2C 00 01 06 00 00 00 98 02 00 E8 03 00 00 10 27 00 00 00 00 00 00 00 00 00 00 2C 01 00 00 4F C1 03 00 86 02 00 00 FE 00 00 00 64 40 01 00 9B CD")
        let captured5s = bytes(
            "B5 62 06 3B 2C 00 01 06 00 00 00 98 02 00 88 13 00 00 10 27 00 00 00 00 00 00 00 00 00 00 2C 01 00 00 4F C1 03 00 86 02 00 00 FE 00 00 00 64 40 01 00 4B 7D")
        for capture in [captured1s, captured5s] {
            let frame = try UBXFrame.decode(capture)
            #expect(frame.bytes == capture)
            guard case .powerManagement(let settings) = try UBXCommand(frame) else {
                Issue.record("not CFG-PM2")
                continue
            }
            #expect(settings.cyclicTracking)
            #expect(settings.searchPeriodMilliseconds == 10_000)
        }
        if case .powerManagement(let settings) = try UBXCommand(UBXFrame.decode(captured5s)) {
            #expect(settings.updatePeriodMilliseconds == 5000)
        }
    }

    @Test func builtPowerSettingsReadBack() throws {
        let settings = UBXPowerManagement(updatePeriodMilliseconds: 20_000, cyclicTracking: false)
        let command = UBXCommand.powerManagement(settings)
        #expect(command.bytes.count == 52)
        #expect(try UBXCommand(UBXFrame.decode(command.bytes)) == command)
        // Version 2, for protocol 18 and later: 48 bytes, version byte 2, extintInactivityMs zero at the end.
        let version2 = UBXCommand.powerManagement(UBXPowerManagement(updatePeriodMilliseconds: 20_000, cyclicTracking: false, version2: true))
        #expect(version2.bytes.count == 56 && version2.bytes[4] == 48 && version2.bytes[6] == 0x02)
        #expect(version2.bytes[50..<54].allSatisfy { $0 == 0 })
        #expect(try UBXCommand(UBXFrame.decode(version2.bytes)) == version2)
        #expect(Array(version2.bytes[6..<50].dropFirst()) == Array(command.bytes[6..<50].dropFirst()), "the same fields, then four more bytes")
        for other in [
            UBXCommand.powerSetup(UBXPowerSetup(value: 2, periodSeconds: 60, onTimeSeconds: 10)),
            .setValues(layers: 1, [UBXConfigValue(key: UBXConfigValue.powerModeKey, value: 2),
                                   UBXConfigValue(key: UBXConfigValue.positionUpdatePeriodKey, value: 60)]),
            .rate(UBXRate(measurementMilliseconds: 200)),
        ] {
            #expect(try UBXCommand(UBXFrame.decode(other.bytes)) == other)
        }
    }

    @Test func acknowledgementsAndVersionsAreParsed() throws {
        // ACK-ACK / ACK-NAK of CFG-RATE.
        #expect(try UBXReply(UBXFrame.decode(bytes("B5 62 05 01 02 00 06 08 16 3F"))) == .acknowledged(messageClass: 6, messageID: 8))
        #expect(try UBXReply(UBXFrame.decode(bytes("B5 62 05 00 02 00 06 08 15 3A"))) == .notAcknowledged(messageClass: 6, messageID: 8))
        let version = UBXVersion(software: "ROM CORE 3.01 (107888)", hardware: "00080000",
                                 extensions: ["FWVER=SPG 3.01", "PROTVER=18.00", "MOD=SAM-M8Q"])
        let frame = UBXReply.version(version).frame
        #expect(frame.payload.count == 40 + 3 * 30)
        #expect(try UBXReply(UBXFrame.decode(frame.bytes)) == .version(version))
        #expect(version.protocolVersion == 18)
        #expect(!version.usesConfigurationKeys)
        #expect(UBXVersion(software: "EXT CORE 1.00", hardware: "00190000", extensions: ["PROTVER=27.12"]).usesConfigurationKeys)
        // Without PROTVER (protocol 14 and earlier), the protocol from the hardware and software versions.
        #expect(UBXVersion(software: "1.00 (59842)", hardware: "00070000", extensions: []).inferredProtocolVersion == 14)
        #expect(UBXVersion(software: "7.03 (45969)", hardware: "00040007", extensions: []).inferredProtocolVersion == 13)
        #expect(UBXVersion(software: "6.02 (36023)", hardware: "00040007", extensions: []).inferredProtocolVersion == 12)
        #expect(UBXVersion(software: "5.00 (34410)", hardware: "00040005", extensions: []).inferredProtocolVersion == 10)
        #expect(UBXVersion(software: "9.99", hardware: "00990000", extensions: []).inferredProtocolVersion == nil)
        #expect(UBXVersion(software: "ROM CORE 3.01", hardware: "00080000", extensions: ["PROTVER 18.00"]).inferredProtocolVersion == 18)
    }

    @Test func badFramesGetATypedError() {
        #expect(throws: ReceiverReplyError.badChecksum) { try UBXFrame.decode(self.bytes("B5 62 05 01 02 00 06 08 16 3E")) }
        #expect(throws: ReceiverReplyError.malformed) { try UBXFrame.decode(self.bytes("B5 62 05 01 02 00 06")) }
        #expect(throws: ReceiverReplyError.wrongPayloadLength(expected: "2", actual: 1)) {
            try UBXReply(UBXFrame(messageClass: 5, messageID: 1, payload: [6]))
        }
        #expect(throws: ReceiverReplyError.unknownMessage) { try UBXReply(UBXFrame(messageClass: 1, messageID: 7)) }
    }
}

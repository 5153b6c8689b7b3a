import ReceiverControl
import SyntheticGPS
import Testing

/// The synthetic receiver's personas on virtual time: they obey the vendors' commands, answer as the parts do,
/// and meter their own current.
struct PersonaTests {
    private let scenario = Scenario.stationary(seed: 7)

    private func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }
    private func fixes(_ bytes: [UInt8]) -> Int { text(bytes).components(separatedBy: "$GPRMC").count - 1 }

    @Test func aMediaTekStandsByOnCommandAndWakesHotOnAnyByte() throws {
        var receiver = CommandedReceiver(scenario: scenario, persona: .mediatek)
        #expect(fixes(receiver.output(through: 10)) >= 7, "tracking at 1 Hz after a hot start")
        #expect(receiver.phase == .tracking)
        #expect(receiver.meter.current == 20)

        let reply = receiver.receive(PMTKCommand.standby.bytes, at: 10.2)
        #expect(text(reply) == "$PMTK001,161,3*36\r\n")
        #expect(receiver.output(through: 100).isEmpty, "no output in standby")
        #expect(receiver.phase == .standby)
        #expect(receiver.meter.current == 2)
        #expect(abs(receiver.meter.charge[.standby, default: 0] - 2 * 89.8) < 1e-6)

        _ = receiver.receive(Array("\r\n".utf8), at: 100)
        #expect(receiver.receiver.lastStart == .hot)
        #expect(receiver.phase == .acquisition)
        #expect(fixes(receiver.output(through: 110)) >= 6, "fixes again after a hot start of 1–3 s")
    }

    @Test func aStandbyLongerThanTheEphemeridesWakesWarm() {
        var receiver = CommandedReceiver(scenario: scenario, persona: .mediatek)
        _ = receiver.output(through: 5)
        _ = receiver.receive(PMTKCommand.standby.bytes, at: 5)
        _ = receiver.receive(Array("\r\n".utf8), at: 5 + 3 * 3600)
        #expect(receiver.receiver.lastStart == .warm)
    }

    @Test func rateAndPeriodicCommandsChangeTheFixScheduleAndTheCurrent() throws {
        var receiver = CommandedReceiver(scenario: scenario, persona: .mediatek)
        _ = receiver.output(through: 5)
        #expect(text(receiver.receive(PMTKCommand.fixInterval(milliseconds: 5000).bytes, at: 5)) == "$PMTK001,220,3*30\r\n")
        #expect((4...5).contains(fixes(receiver.output(through: 30))), "one fix per 5 s")
        let periodic = PMTKCommand.periodic(.periodicStandby(PMTKDutyCycle(run: 2000, sleep: 18000)))
        _ = receiver.receive(periodic.bytes, at: 30)
        #expect((2...3).contains(fixes(receiver.output(through: 90))), "one fix per 20 s")
        #expect(receiver.phase == .powerSave)
        #expect(abs(receiver.meter.current - (20 * 2 + 2 * 18) / 20.0) < 1e-9)
    }

    @Test func aRateFasterThanTheReceiverKeepsIsRefusedNotAcknowledgedAndLeftUnmet() throws {
        // The scenario's receiver makes a fix a second: 5 Hz was acknowledged, and a fix a second still came.
        var mediatek = CommandedReceiver(scenario: scenario, persona: .mediatek)
        #expect(text(mediatek.receive(PMTKCommand.fixInterval(milliseconds: 200).bytes, at: 1)) == "$PMTK001,220,2*31\r\n")
        #expect(text(mediatek.receive(PMTKCommand.fixInterval(milliseconds: 1000).bytes, at: 1)) == "$PMTK001,220,3*30\r\n")
        var ublox = CommandedReceiver(scenario: scenario, persona: .ublox)
        let refused = ublox.receive(UBXCommand.rate(UBXRate(measurementMilliseconds: 200)).bytes, at: 1)
        #expect(refused == UBXReply.notAcknowledged(messageClass: 0x06, messageID: 0x08).frame.bytes)
        var fast = scenario
        fast.fixInterval = 0.2
        var fastUblox = CommandedReceiver(scenario: fast, persona: .ublox)
        let accepted = fastUblox.receive(UBXCommand.rate(UBXRate(measurementMilliseconds: 200)).bytes, at: 1)
        #expect(accepted == UBXReply.acknowledged(messageClass: 0x06, messageID: 0x08).frame.bytes)
    }

    /// The configuration items the driver sends an M10 for power save every `seconds` (cyclic tracking up to
    /// 10 s, ON/OFF beyond), or the items of the earlier, wrong choice.
    private func valset(_ items: [(UInt32, UInt64)]) -> [UInt8] {
        UBXCommand.setValues(layers: 1, items.map { UBXConfigValue(key: $0.0, value: $0.1) }).bytes
    }

    @Test(arguments: [5, 20, 60])
    func aUbloxM10GivesFixesAtTheIntervalItsKeysAskFor(seconds: Int) throws {
        let interval = Double(seconds)
        let items: [(UInt32, UInt64)] =
            seconds <= 10
            ? [(UBXConfigValue.powerModeKey, UInt64(2)), (UBXConfigValue.rateMeasurementKey, UInt64(seconds * 1000))]
            : [(UBXConfigValue.positionUpdatePeriodKey, UInt64(seconds)), (UBXConfigValue.powerModeKey, UInt64(1))]
        var receiver = CommandedReceiver(scenario: scenario, persona: .ublox)
        receiver.ubloxGeneration = .m10
        _ = receiver.output(through: 5)
        let version = try UBXReply(UBXFrame.decode(receiver.receive(UBXCommand.pollVersion.bytes, at: 5)))
        #expect(version == .version(CommandedReceiver.maxM10SVersion))
        #expect(receiver.receive(valset(items), at: 5) == UBXReply.acknowledged(messageClass: 0x06, messageID: 0x8A).frame.bytes)
        #expect(receiver.phase == .powerSave)
        let span = 10 * interval
        #expect((9...11).contains(fixes(receiver.output(through: 5 + span))), "one fix per \(interval) s")
    }

    @Test func aUbloxM10InCyclicTrackingFollowsRateMeasNotThePositionUpdatePeriod() throws {
        var receiver = CommandedReceiver(scenario: scenario, persona: .ublox)
        receiver.ubloxGeneration = .m10
        _ = receiver.output(through: 5)
        // POSUPDATEPERIOD applies to ON/OFF operation only: in cyclic tracking the fixes stay at RATE-MEAS (1 s).
        _ = receiver.receive(valset([(UBXConfigValue.positionUpdatePeriodKey, 20), (UBXConfigValue.powerModeKey, 2)]), at: 5)
        #expect(fixes(receiver.output(through: 65)) >= 55)
        // A key it does not know refuses the whole message, and nothing of it applies.
        let refused = receiver.receive(valset([(UBXConfigValue.rateMeasurementKey, 5000), (0x1091_0001, 1)]), at: 65)
        #expect(refused == UBXReply.notAcknowledged(messageClass: 0x06, messageID: 0x8A).frame.bytes)
        #expect(fixes(receiver.output(through: 125)) >= 55)
        // The M8's CFG messages are refused, as a real u-blox 10 refuses them: a driver that fell back to them
        // would be told so here too, not believed.
        let legacy: [UBXCommand] = [
            .rate(UBXRate(measurementMilliseconds: 5000)), .receiverManagement(powerSave: true),
            .powerManagement(UBXPowerManagement(updatePeriodMilliseconds: 5000, cyclicTracking: true)),
        ]
        for command in legacy {
            let frame = try UBXFrame.decode(command.bytes)
            #expect(receiver.receive(command.bytes, at: 125) == UBXReply.notAcknowledged(messageClass: frame.messageClass, messageID: frame.messageID).frame.bytes)
        }
        #expect(fixes(receiver.output(through: 185)) >= 55, "nothing of them applied")
    }

    @Test func aUbloxAnswersItsVersionObeysCFGAndGoesToBackupWithoutAnswering() throws {
        var receiver = CommandedReceiver(scenario: scenario, persona: .ublox)
        _ = receiver.output(through: 5)
        #expect(receiver.meter.current == 29)
        let version = try UBXReply(UBXFrame.decode(receiver.receive(UBXCommand.pollVersion.bytes, at: 5)))
        #expect(version == .version(CommandedReceiver.samM8QVersion))
        let pm2 = UBXCommand.powerManagement(UBXPowerManagement(updatePeriodMilliseconds: 5000, cyclicTracking: true))
        #expect(receiver.receive(pm2.bytes, at: 5) == UBXReply.acknowledged(messageClass: 0x06, messageID: 0x3B).frame.bytes)
        _ = receiver.receive(UBXCommand.receiverManagement(powerSave: true).bytes, at: 5)
        #expect(receiver.phase == .powerSave)
        #expect((4...5).contains(fixes(receiver.output(through: 30))))
        #expect(receiver.meter.current == 9.5)
        // A u-blox 9 message is refused by the M8.
        let valset = UBXCommand.setValues(layers: 1, [UBXConfigValue(key: UBXConfigValue.rateMeasurementKey, value: 1000)])
        #expect(receiver.receive(valset.bytes, at: 30) == UBXReply.notAcknowledged(messageClass: 0x06, messageID: 0x8A).frame.bytes)

        #expect(receiver.receive(UBXCommand.powerManagementRequest(.backupUntilWoken).bytes, at: 30).isEmpty, "RXM-PMREQ is not acknowledged")
        #expect(receiver.output(through: 60).isEmpty)
        #expect(receiver.phase == .backup)
        #expect(receiver.meter.current == 0.020)
        _ = receiver.receive([0xFF], at: 60)
        #expect(receiver.phase == .acquisition)
    }

    @Test func acknowledgementsCanBeRefusedDroppedGarbledOrIgnored() throws {
        var refusing = CommandedReceiver(scenario: scenario, persona: .mediatek, acknowledgements: .refuse)
        #expect(text(refusing.receive(PMTKCommand.standby.bytes, at: 1)) == "$PMTK001,161,1*34\r\n")
        #expect(refusing.phase != .standby)
        // Version queries are answered whatever the behaviour.
        #expect(text(refusing.receive(PMTKCommand.queryRelease.bytes, at: 1)).hasPrefix("$PMTK705,"))

        var dropping = CommandedReceiver(scenario: scenario, persona: .mediatek, acknowledgements: .drop)
        #expect(dropping.receive(PMTKCommand.standby.bytes, at: 1).isEmpty)
        #expect(dropping.phase == .standby)

        var garbling = CommandedReceiver(scenario: scenario, persona: .ublox, acknowledgements: .garble)
        let garbled = garbling.receive(UBXCommand.rate(UBXRate(measurementMilliseconds: 1000)).bytes, at: 1)
        #expect(throws: ReceiverReplyError.badChecksum) { try UBXFrame.decode(garbled) }

        var ignoring = CommandedReceiver(scenario: scenario, persona: .mediatek, acknowledgements: .ignore)
        #expect(ignoring.receive(PMTKCommand.standby.bytes, at: 1).isEmpty)
        #expect(ignoring.phase != .standby)
    }

    @Test func aPlainReceiverIgnoresEverything() {
        var receiver = CommandedReceiver(scenario: scenario, persona: .plain)
        #expect(receiver.receive(PMTKCommand.standby.bytes + UBXCommand.pollVersion.bytes, at: 1).isEmpty)
        #expect(fixes(receiver.output(through: 10)) >= 7)
        #expect(receiver.meter.current == 20)
    }
}

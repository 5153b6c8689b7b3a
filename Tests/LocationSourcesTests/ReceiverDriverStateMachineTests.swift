import LocationEngine
@testable import LocationSources
import NIOPosix
import ReceiverControl
import Testing
import TestSupport

/// The receiver driver as a pure state machine, on a manual clock: events in, actions out.
struct ReceiverDriverStateMachineTests {
    typealias Machine = ReceiverDriverStateMachine
    typealias Action = Machine.Action

    private static let mtkRelease = PMTKReply.release(PMTKRelease(release: "AXN_2.10_3339", buildID: "5223", model: "PA6H"))
    private static let m8 = UBXReply.version(UBXVersion(software: "ROM CORE 3.01 (107888)", hardware: "00080000", extensions: ["PROTVER=18.00"]))

    private func ack(_ type: Int, _ flag: PMTKAcknowledgementFlag = .succeeded) -> Machine.Input { .pmtk(.acknowledgement(command: type, flag: flag)) }
    private func written(_ actions: [Action]) -> [[UInt8]] { actions.compactMap { if case .write(let bytes) = $0 { bytes } else { nil } } }
    private func token(_ actions: [Action]) -> UInt64? {
        actions.compactMap { if case .armDeadline(let token, _) = $0 { token } else { nil } }.last
    }

    /// A machine for `model`, started in `mode`, its link open and the receiver identified by `answer`.
    private func running(_ model: ReceiverModel, answer: Machine.Input, mode: PowerMode = .high) -> (Machine, [Action]) {
        var machine = Machine(configuration: ReceiverControlConfiguration(model: model))
        #expect(machine.start(mode: mode, now: .zero) == [.openLink])
        let opened = machine.linkOpened(now: .zero)
        #expect(written(opened).count == 1)
        let actions = machine.received(answer, now: .milliseconds(100))
        return (machine, actions)
    }

    @Test func aMediaTekReceiverIsSetUpPutInPowerSaveAndStoodByWithTheVendorsBytes() throws {
        var (machine, actions) = running(.mediatek, answer: .pmtk(Self.mtkRelease))
        #expect(actions.contains(.identified(.mediatek(release: "AXN_2.10_3339"))))
        #expect(written(actions) == [Array("$PMTK225,0*2B\r\n".utf8)])
        // The setup is two commands, one at a time: the second waits while the first is in flight.
        #expect(machine.commandsWaiting == 2)
        actions = machine.received(ack(225), now: .milliseconds(200))
        #expect(actions.contains(.resolved(.tracking, .acknowledged, fallback: nil)))
        #expect(written(actions) == [Array("$PMTK220,1000*1F\r\n".utf8)])
        #expect(machine.commandsWaiting == 1)
        actions = machine.received(ack(220), now: .milliseconds(300))
        #expect(machine.state == .tracking)
        #expect(written(actions).isEmpty)
        #expect(machine.commandsWaiting == 0)

        actions = machine.setMode(.low, now: .seconds(1))
        #expect(written(actions) == [Array("$PMTK225,2,2000,18000,0,0*12\r\n".utf8)])
        _ = machine.received(ack(225), now: .seconds(1) + .milliseconds(50))
        #expect(machine.state == .powerSave)
        // The same profile again sends nothing.
        #expect(written(machine.setMode(.low, now: .seconds(2))).isEmpty)

        actions = machine.stop(now: .seconds(3))
        #expect(written(actions) == [Array("$PMTK161,0*28\r\n".utf8)])
        actions = machine.received(ack(161), now: .seconds(3) + .milliseconds(40))
        #expect(actions == [.resolved(.standby, .acknowledged, fallback: nil), .closeLink])
        #expect(machine.state == .standby)
    }

    @Test func aStandbyWithoutAcknowledgementIsConfirmedByTheOutputStopping() throws {
        var (machine, _) = running(.mediatek, answer: .pmtk(Self.mtkRelease))
        _ = machine.received(ack(225), now: .milliseconds(200))
        _ = machine.received(ack(220), now: .milliseconds(300))
        _ = machine.received(.output(fromUBX: false), now: .seconds(2))
        let sent = machine.stop(now: .seconds(2) + .milliseconds(500))
        let deadline = try #require(token(sent))
        // Silent since 2 s; the deadline falls at 4 s.
        #expect(machine.deadline(deadline, now: .seconds(4)) == [.resolved(.standby, .confirmedBySilence, fallback: nil), .closeLink])
    }

    @Test(arguments: [
        (Machine.Input.pmtk(.acknowledgement(command: 161, flag: .unsupported)), Machine.Outcome.refused),
        (.garbled, .garbled),
        (.output(fromUBX: false), .unanswered),
    ])
    func aStandbyThatFailsClosesThePortOnce(reply: Machine.Input, outcome: Machine.Outcome) throws {
        var (machine, _) = running(.mediatek, answer: .pmtk(Self.mtkRelease))
        _ = machine.received(ack(225), now: .milliseconds(200))
        _ = machine.received(ack(220), now: .milliseconds(300))
        let sent = machine.stop(now: .seconds(2))
        var actions = machine.received(reply, now: .seconds(2) + .milliseconds(900))
        if outcome != .refused {
            #expect(actions.isEmpty)
            actions = machine.deadline(try #require(token(sent)), now: .seconds(3) + .milliseconds(500))
        }
        #expect(actions == [.resolved(.standby, outcome, fallback: .closePort), .closeLink])
        #expect(machine.state == .released)
        // Nothing further: no retry.
        #expect(machine.deadline(try #require(token(sent)), now: .seconds(10)).isEmpty)
    }

    @Test func aStartDuringTheStandbyCommandWinsAndWakesTheReceiver() throws {
        var (machine, _) = running(.mediatek, answer: .pmtk(Self.mtkRelease))
        _ = machine.received(ack(225), now: .milliseconds(200))
        _ = machine.received(ack(220), now: .milliseconds(300))
        _ = machine.stop(now: .seconds(2))
        #expect(machine.start(mode: .high, now: .seconds(2) + .milliseconds(10)).isEmpty, "the link stays open")
        let actions = machine.received(ack(161), now: .seconds(2) + .milliseconds(50))
        #expect(!actions.contains(.closeLink))
        #expect(actions.first == .resolved(.standby, .acknowledged, fallback: nil))
        // The wake-up: the version query (any byte wakes a MediaTek), then the tracking setup again.
        #expect(written(actions) == [Array("\r\n$PMTK605*31\r\n".utf8)])
        let setup = machine.received(.pmtk(Self.mtkRelease), now: .seconds(2) + .milliseconds(900))
        #expect(written(setup) == [Array("$PMTK225,0*2B\r\n".utf8)])
    }

    @Test func aSecondStopWhileTheWakeWaitsBehindTheStandbyStillSleepsTheReceiver() throws {
        var (machine, _) = running(.mediatek, answer: .pmtk(Self.mtkRelease))
        _ = machine.received(ack(225), now: .milliseconds(200))
        _ = machine.received(ack(220), now: .milliseconds(300))
        #expect(written(machine.stop(now: .seconds(2))) == [Array("$PMTK161,0*28\r\n".utf8)])
        #expect(machine.start(mode: .high, now: .seconds(2) + .milliseconds(10)).isEmpty, "the wake waits behind the standby")
        // Stopped again before the standby's answer: before, the port was closed at once and the receiver released.
        #expect(machine.stop(now: .seconds(2) + .milliseconds(20)).isEmpty, "the standby in flight finishes the stop")
        let answered = machine.received(ack(161), now: .seconds(2) + .milliseconds(50))
        #expect(answered == [.resolved(.standby, .acknowledged, fallback: nil), .closeLink], "no second standby, no wake")
        #expect(machine.state == .standby)
    }

    @Test func aSecondStopWhileTheWakeWaitsBehindAModeCommandSleepsTheReceiverAfterIt() throws {
        var (machine, _) = running(.mediatek, answer: .pmtk(Self.mtkRelease))
        _ = machine.received(ack(225), now: .milliseconds(200))
        _ = machine.received(ack(220), now: .milliseconds(300))
        // A power-save command in flight when the engine stops, starts and stops again.
        #expect(written(machine.setMode(.low, now: .seconds(1))).count == 1)
        #expect(machine.stop(now: .seconds(1) + .milliseconds(10)).isEmpty)
        #expect(machine.start(mode: .high, now: .seconds(1) + .milliseconds(20)).isEmpty)
        #expect(!machine.stop(now: .seconds(1) + .milliseconds(30)).contains(.closeLink), "not released tracking")
        let standby = machine.received(ack(225), now: .seconds(1) + .milliseconds(60))
        #expect(written(standby) == [Array("$PMTK161,0*28\r\n".utf8)])
        #expect(machine.received(ack(161), now: .seconds(1) + .milliseconds(90)).contains(.closeLink))
        #expect(machine.state == .standby)
    }

    @Test func aModeChangeToOneOfTheSameSettingWhileItIsSentLetsItFinish() throws {
        var machine = Machine(configuration: ReceiverControlConfiguration(model: .mediatek, fixInterval: .milliseconds(200)))
        #expect(machine.start(mode: .best, now: .zero) == [.openLink])
        _ = machine.linkOpened(now: .zero)
        let setup = machine.received(.pmtk(Self.mtkRelease), now: .milliseconds(100))
        #expect(written(setup) == [Array("$PMTK225,0*2B\r\n".utf8)], "the fix rate waits behind it")
        // Best and high are the same setting: before, the change dropped the fix rate not yet sent, and planned nothing.
        #expect(written(machine.setMode(.high, now: .milliseconds(150))).isEmpty)
        let rate = machine.received(ack(225), now: .milliseconds(200))
        #expect(written(rate) == [Array("$PMTK220,200*2C\r\n".utf8)])
        _ = machine.received(ack(220), now: .milliseconds(300))
        #expect(machine.confirmedMode == .high)
    }

    @Test func aSleepLostWithTheLinkIsSentAgainOnceTheLinkIsBack() {
        var (machine, _) = running(.mediatek, answer: .pmtk(Self.mtkRelease))
        _ = machine.received(ack(225), now: .milliseconds(200))
        _ = machine.received(ack(220), now: .milliseconds(300))
        _ = machine.stop(now: .seconds(2))
        // The fallback, once; the link stays requested (no closeLink), and the receiver is not known asleep.
        #expect(machine.linkClosed(now: .seconds(2) + .milliseconds(100)) == [.resolved(.standby, .linkLost, fallback: .sleepOnReconnect)])
        #expect(machine.linkClosed(now: .seconds(3)).isEmpty)
        #expect(machine.state == .unknown && !machine.sleepConfirmed)
        // Back: identified (the query wakes it), then sent to sleep, then the port closes.
        #expect(written(machine.linkOpened(now: .seconds(4))) == [Array("\r\n$PMTK605*31\r\n".utf8)])
        #expect(written(machine.received(.pmtk(Self.mtkRelease), now: .seconds(4) + .milliseconds(100))) == [Array("$PMTK161,0*28\r\n".utf8)])
        #expect(machine.received(ack(161), now: .seconds(4) + .milliseconds(200)) == [.resolved(.standby, .acknowledged, fallback: nil), .closeLink])
        #expect(machine.state == .standby && machine.sleepConfirmed)
    }

    @Test func aSleepWhoseWriteFailsIsSentAgainOnceTheLinkIsBackOrReleasedWhenTheLinkGivesUp() {
        for givesUp in [false, true] {
            var (machine, _) = running(.ublox, answer: .ubx(Self.m8))
            _ = machine.received(.ubx(.acknowledged(messageClass: 0x06, messageID: 0x11)), now: .milliseconds(200))
            _ = machine.received(.ubx(.acknowledged(messageClass: 0x06, messageID: 0x08)), now: .milliseconds(300))
            #expect(written(machine.stop(now: .seconds(2))) == [UBXCommand.powerManagementRequest(.backupUntilWoken).bytes])
            #expect(machine.writeFailed(now: .seconds(2)) == [.resolved(.backup, .linkLost, fallback: .sleepOnReconnect)])
            #expect(machine.linkClosed(now: .seconds(2)).isEmpty, "the link reopens on its own")
            #expect(machine.state == .unknown, "costed as tracking until the sleep is confirmed")
            // A stop again while down changes nothing.
            #expect(machine.stop(into: .off, now: .seconds(3)).isEmpty)
            if givesUp {
                #expect(machine.linkGaveUp(now: .seconds(40)) == [.closeLink])
                #expect(machine.state == .released)
                // A start opens the link again.
                #expect(machine.start(mode: .high, now: .seconds(50)) == [.openLink])
                continue
            }
            let query = machine.linkOpened(now: .seconds(5))
            #expect(written(query) == [ReceiverDialect.identify(.ublox).bytes])
            #expect(written(machine.received(.ubx(Self.m8), now: .seconds(5) + .milliseconds(100))) == [UBXCommand.powerManagementRequest(.backupUntilWoken).bytes])
        }
    }

    @Test func aLinkThatGaveUpWhileRunningIsOpenedAgainByTheNextStart() {
        var machine = Machine(configuration: ReceiverControlConfiguration(model: .mediatek))
        #expect(machine.start(mode: .high, now: .zero) == [.openLink])
        // The device never opens; the link gives up, then the engine stops the source and starts it again.
        #expect(machine.linkGaveUp(now: .seconds(30)) == [.closeLink])
        #expect(machine.stop(into: .standby, now: .seconds(31)).isEmpty)
        #expect(machine.start(mode: .high, now: .seconds(40)) == [.openLink])
    }

    @Test func aStopWhileTheLinkIsDownSendsTheReceiverToSleepOnceItIsBack() {
        var (machine, _) = running(.mediatek, answer: .pmtk(Self.mtkRelease))
        _ = machine.received(ack(225), now: .milliseconds(200))
        _ = machine.received(ack(220), now: .milliseconds(300))
        #expect(machine.linkClosed(now: .seconds(1)).isEmpty)
        #expect(machine.stop(into: .standby, now: .seconds(2)).isEmpty, "the link stays requested")
        _ = machine.linkOpened(now: .seconds(3))
        #expect(written(machine.received(.pmtk(Self.mtkRelease), now: .seconds(3) + .milliseconds(100))) == [Array("$PMTK161,0*28\r\n".utf8)])
    }

    @Test func aSleepSentOnAReopenedPortIsJudgedOverThePeriodTheReceiverKept() throws {
        var (machine, _) = running(.mediatek, answer: .pmtk(Self.mtkRelease))
        tracking(&machine, .mediatek)
        // Periodic standby confirmed, one fix per 20 s; then the connection drops and the engine stops into standby.
        _ = machine.setMode(.low, now: .seconds(1))
        _ = machine.received(ack(225), now: .seconds(1) + .milliseconds(50))
        #expect(machine.state == .powerSave)
        _ = machine.linkClosed(now: .seconds(2))
        _ = machine.stop(into: .standby, now: .seconds(3))
        _ = machine.linkOpened(now: .seconds(4))
        // The standby command gets no answer (MediaTek's standby may go unacknowledged): the receiver kept its
        // 20 s period across the reopened port, so a silence of two seconds is no confirmation.
        let sent = machine.received(.pmtk(Self.mtkRelease), now: .seconds(4) + .milliseconds(100))
        #expect(written(sent) == [Array("$PMTK161,0*28\r\n".utf8)])
        let armed = sent.compactMap { if case .armDeadline(_, let delay) = $0 { delay } else { nil } }
        #expect(armed.count == 1 && armed[0] >= .seconds(20), "armed for \(armed)")
    }

    @Test func aNavigationFrameAheadOfTheSecondVersionAnswerDoesNotSettleTheGeneration() throws {
        let f9 = UBXReply.version(UBXVersion(software: "EXT CORE 1.00 (61b2dd)", hardware: "00190000", extensions: ["PROTVER=27.12"]))
        var machine = Machine(configuration: ReceiverControlConfiguration(model: .autodetect))
        _ = machine.start(mode: .high, now: .zero)
        let first = machine.linkOpened(now: .zero)
        // The first query is lost while the receiver wakes; a NAV frame queued on the line comes before the
        // second query's answer.
        _ = machine.deadline(try #require(token(first)), now: .seconds(2))
        let nav = machine.received(.output(fromUBX: true), now: .seconds(2) + .milliseconds(50))
        #expect(written(nav).isEmpty, "still waiting for the version: \(nav)")
        let answered = machine.received(.ubx(f9), now: .seconds(2) + .milliseconds(100))
        let keys = UBXCommand.setValues(
            layers: 1, [UBXConfigValue(key: UBXConfigValue.powerModeKey, value: 0), UBXConfigValue(key: UBXConfigValue.rateMeasurementKey, value: 1000)])
        #expect(written(answered) == [keys.bytes], "configured by keys, as its version says")
    }

    @Test func aLateAnswerThatCouldBeTheNextCommandsIsBelievedForNeither() throws {
        var (machine, _) = running(.mediatek, answer: .pmtk(Self.mtkRelease))
        tracking(&machine, .mediatek)
        // Power save (PMTK225) goes unanswered for its 1.5 s; the engine asks for the best mode, whose tracking
        // command is PMTK225 too.
        let powerSave = machine.setMode(.low, now: .seconds(1))
        let lost = machine.deadline(try #require(token(powerSave)), now: .seconds(2) + .milliseconds(500))
        #expect(lost.contains(.resolved(.powerSave, .unanswered, fallback: .keepSetting)))
        #expect(written(machine.setMode(.best, now: .seconds(2) + .milliseconds(600))) == [Array("$PMTK225,0*2B\r\n".utf8)])
        // The power save's acknowledgement comes now, late: it cannot be told from the tracking command's.
        let ambiguous = machine.received(ack(225), now: .seconds(3))
        #expect(!ambiguous.contains(.resolved(.tracking, .acknowledged, fallback: nil)), "\(ambiguous)")
        #expect(machine.state != .tracking, "not believed tracking on an answer that may be the power save's")
        // The tracking command's own answer follows: now it is believed.
        let own = machine.received(ack(225), now: .seconds(3) + .milliseconds(100))
        #expect(own.contains(.resolved(.tracking, .acknowledgedLate, fallback: nil)), "\(own)")
        #expect(machine.state == .tracking)
    }

    @Test func aSettingWhoseAnswerWasAmbiguousIsNotGivenUpOnTheLink() throws {
        var (machine, _) = running(.mediatek, answer: .pmtk(Self.mtkRelease))
        tracking(&machine, .mediatek)
        _ = machine.setMode(.low, now: .seconds(1))
        _ = machine.received(ack(225), now: .seconds(1) + .milliseconds(50))
        // The return to tracking goes out; the engine asks for power save again before it is answered (its rate
        // command is dropped), and it goes unanswered.
        let back = machine.setMode(.best, now: .seconds(2))
        _ = machine.setMode(.low, now: .seconds(2) + .milliseconds(100))
        let powerSave = machine.deadline(try #require(token(back)), now: .seconds(3) + .milliseconds(500))
        #expect(written(powerSave) == [Array("$PMTK225,2,2000,18000,0,0*12\r\n".utf8)])
        // Acknowledged at once: an answer that may be the tracking command's, late. Neither is believed...
        _ = machine.received(ack(225), now: .seconds(3) + .milliseconds(550))
        #expect(machine.state != .powerSave && machine.state != .tracking)
        // ...and power save is not given up on the link: once tracking is confirmed, asked again, it is sent again.
        _ = machine.setMode(.best, now: .seconds(4))
        _ = machine.received(ack(225), now: .seconds(4) + .milliseconds(50))
        _ = machine.received(ack(220), now: .seconds(4) + .milliseconds(100))
        _ = machine.received(ack(225), now: .seconds(4) + .milliseconds(150))
        let again = machine.setMode(.low, now: .seconds(5))
        #expect(written(again) == [Array("$PMTK225,2,2000,18000,0,0*12\r\n".utf8)], "\(again)")
    }

    @Test func aMediaTekThatRestartsOnItsOwnIsBelievedUnknownAndSetUpAgain() throws {
        var (machine, _) = running(.mediatek, answer: .pmtk(Self.mtkRelease))
        tracking(&machine, .mediatek)
        _ = machine.setMode(.low, now: .seconds(1))
        _ = machine.received(ack(225), now: .seconds(1) + .milliseconds(50))
        #expect(machine.state == .powerSave)
        // A brown-out: the receiver starts again in its defaults and says so.
        let restarted = machine.received(.pmtk(.systemMessage(1)), now: .seconds(30))
        #expect(machine.state == .unknown, "its periodic standby is gone with the restart")
        #expect(written(restarted) == [Array("$PMTK225,2,2000,18000,0,0*12\r\n".utf8)], "the engine's mode is set up again")
        _ = machine.received(ack(225), now: .seconds(30) + .milliseconds(50))
        #expect(machine.state == .powerSave)
    }

    @Test("a start while a u-blox backup awaits the output stopping does not wait out its deadline (a minute in on/off power save): it wakes the receiver at once")
    func aStartDuringABackupConfirmedOnlyBySilenceWakesTheReceiverAtOnce() throws {
        var (machine, actions) = running(.ublox, answer: .ubx(Self.m8))
        tracking(&machine, .ublox)
        var now = Duration.milliseconds(300)
        /// Acknowledges every UBX command written, until nothing more is sent (a setting's steps).
        func acknowledgeAll(_ sent: [Action]) {
            var sent = sent
            while let bytes = written(sent).first, bytes.count > 3 {
                now += .milliseconds(50)
                sent = machine.received(.ubx(.acknowledged(messageClass: bytes[2], messageID: bytes[3])), now: now)
            }
        }
        now += .seconds(1)
        acknowledgeAll(machine.setMode(.lowest, now: now))
        now += .seconds(1)
        let sleep = machine.stop(now: now)
        #expect(written(sleep) == [UBXCommand.powerManagementRequest(.backupUntilWoken).bytes])
        let armed = sleep.compactMap { if case .armDeadline(_, let delay) = $0 { delay } else { nil } }
        #expect(armed.count == 1 && armed[0] >= .seconds(60), "the silence is judged over the on/off period: \(armed)")
        // A second later the engine starts the source again.
        now += .seconds(1)
        actions = machine.start(mode: .high, now: now)
        #expect(actions.first == .resolved(.backup, .superseded, fallback: nil))
        #expect(written(actions) == [ReceiverDialect.identify(.ublox).bytes], "the version query goes out at once")
        #expect(!actions.contains(.closeLink))
        #expect(machine.state != .backup)
        // The first query may come while the receiver is still entering backup, lost; and the one that wakes it may
        // be lost too: the query goes out a third time.
        let second = machine.deadline(try #require(token(actions)), now: now + .seconds(2))
        #expect(written(second) == [ReceiverDialect.identify(.ublox).bytes])
        let third = machine.deadline(try #require(token(second)), now: now + .seconds(4))
        #expect(written(third) == [ReceiverDialect.identify(.ublox).bytes])
        // The backup's deadline, when it comes, is moot; the receiver answers and is set up for tracking.
        #expect(machine.deadline(try #require(token(sleep)), now: now + .seconds(61)).isEmpty)
        let setup = machine.received(.ubx(Self.m8), now: now + .seconds(4) + .milliseconds(300))
        #expect(written(setup) == [UBXCommand.receiverManagement(powerSave: false).bytes])
    }

    @Test func aUbloxM8GetsLegacyMessagesAndBackup() throws {
        var (machine, actions) = running(.ublox, answer: .ubx(Self.m8))
        #expect(actions.contains(.identified(.ublox(software: "ROM CORE 3.01 (107888)", protocolVersion: 18))))
        #expect(written(actions) == [UBXCommand.receiverManagement(powerSave: false).bytes])
        actions = machine.received(.ubx(.acknowledged(messageClass: 0x06, messageID: 0x11)), now: .milliseconds(200))
        #expect(written(actions) == [UBXCommand.rate(UBXRate(measurementMilliseconds: 1000)).bytes])
        _ = machine.received(.ubx(.acknowledged(messageClass: 0x06, messageID: 0x08)), now: .milliseconds(300))
        #expect(machine.state == .tracking)

        actions = machine.setMode(.medium, now: .seconds(1))
        // PROTVER 18: CFG-PM2 version 2 (48 bytes); 5 s is cyclic tracking.
        #expect(written(actions) == [UBXCommand.powerManagement(UBXPowerManagement(updatePeriodMilliseconds: 5000, cyclicTracking: true, version2: true)).bytes])
        // Power save refused: the CFG-RXM that would enable it is not sent; the receiver keeps tracking.
        actions = machine.received(.ubx(.notAcknowledged(messageClass: 0x06, messageID: 0x3B)), now: .seconds(1) + .milliseconds(80))
        #expect(actions == [.resolved(.powerSave, .refused, fallback: .keepSetting)])
        #expect(machine.state == .tracking)

        let sent = machine.stop(now: .seconds(5))
        #expect(written(sent) == [UBXCommand.powerManagementRequest(.backupUntilWoken).bytes])
        #expect(machine.deadline(try #require(token(sent)), now: .seconds(7)) == [.resolved(.backup, .confirmedBySilence, fallback: nil), .closeLink])
        #expect(machine.state == .backup)
    }

    @Test func aPowerSaveStepAcknowledgedLateIsCarriedThrough() throws {
        var (machine, _) = running(.ublox, answer: .ubx(Self.m8))
        tracking(&machine, .ublox)
        let pm2 = UBXCommand.powerManagement(UBXPowerManagement(updatePeriodMilliseconds: 5000, cyclicTracking: true, version2: true)).bytes
        let sent = machine.setMode(.medium, now: .seconds(1))
        #expect(written(sent) == [pm2])
        // CFG-PM2's answer comes after its timeout: the CFG-RXM that would enable power save was dropped meanwhile.
        let lost = machine.deadline(try #require(token(sent)), now: .seconds(2) + .milliseconds(500))
        #expect(written(lost).isEmpty && machine.state == .tracking)
        let late = machine.received(.ubx(.acknowledged(messageClass: 0x06, messageID: 0x3B)), now: .seconds(3))
        #expect(late.contains(.resolved(.powerSave, .acknowledgedLate, fallback: nil)))
        // The rest of the setting follows; CFG-PM2 is not sent again (a receiver that answers it late each time
        // would have it sent for ever).
        #expect(written(late) == [UBXCommand.receiverManagement(powerSave: true).bytes])
        _ = machine.received(.ubx(.acknowledged(messageClass: 0x06, messageID: 0x11)), now: .seconds(3) + .milliseconds(100))
        #expect(machine.state == .powerSave)
    }

    @Test("a receiver that answers every step later than its timeout has each step sent once, not in a loop")
    func stepsAnsweredLateEachTimeAreNotSentInALoop() throws {
        var (machine, _) = running(.ublox, answer: .ubx(Self.m8))
        tracking(&machine, .ublox)
        var writes: [[UInt8]] = []
        var actions = machine.setMode(.medium, now: .seconds(1))
        var now = Duration.seconds(1)
        for _ in 0..<10 {
            writes += written(actions)
            guard let sent = token(actions), let (messageClass, messageID) = writes.last.map({ ($0[2], $0[3]) }) else { break }
            now += .milliseconds(1500)
            writes += written(machine.deadline(sent, now: now))
            now += .milliseconds(500)
            actions = machine.received(.ubx(.acknowledged(messageClass: messageClass, messageID: messageID)), now: now)
        }
        writes += written(actions)
        let pm2 = UBXCommand.powerManagement(UBXPowerManagement(updatePeriodMilliseconds: 5000, cyclicTracking: true, version2: true)).bytes
        #expect(writes == [pm2, UBXCommand.receiverManagement(powerSave: true).bytes], "\(writes.count) writes")
        #expect(machine.state == .powerSave)
    }

    @Test func aUblox9IsConfiguredByKeys() {
        let f9 = UBXReply.version(UBXVersion(software: "EXT CORE 1.00 (61b2dd)", hardware: "00190000", extensions: ["PROTVER=27.12"]))
        let (_, actions) = running(.autodetect, answer: .ubx(f9))
        let expected = UBXCommand.setValues(
            layers: 1, [UBXConfigValue(key: UBXConfigValue.powerModeKey, value: 0), UBXConfigValue(key: UBXConfigValue.rateMeasurementKey, value: 1000)])
        #expect(written(actions) == [expected.bytes])
    }

    @Test func aReceiverThatAnswersNothingIsPlainAfterOneRepeat() throws {
        var machine = Machine(configuration: ReceiverControlConfiguration(model: .autodetect))
        _ = machine.start(mode: .high, now: .zero)
        let first = machine.linkOpened(now: .zero)
        let second = machine.deadline(try #require(token(first)), now: .seconds(2))
        #expect(written(second) == written(first), "the query is repeated once")
        let given = machine.deadline(try #require(token(second)), now: .seconds(4))
        #expect(given == [.identified(nil), .resolved(.identify, .unanswered, fallback: .plain)])
        #expect(machine.stop(now: .seconds(5)) == [.closeLink])
    }

    @Test func aWronglyConfiguredModelIsAClearError() throws {
        let (_, mismatch) = running(.mediatek, answer: .ubx(Self.m8))
        #expect(mismatch.contains(.error(.mismatch(configured: .mediatek, observed: .ublox))))
        var machine = Machine(configuration: ReceiverControlConfiguration(model: .ublox))
        _ = machine.start(mode: .high, now: .zero)
        let first = machine.linkOpened(now: .zero)
        let second = machine.deadline(try #require(token(first)), now: .seconds(2))
        #expect(machine.deadline(try #require(token(second)), now: .seconds(4)).contains(.error(.noAnswer(.ublox))))
        #expect("\(ReceiverControlError.noAnswer(.ublox))".contains("autodetect"))
    }

    /// Sets a just-identified receiver up for tracking (the two acknowledgements of its dialect).
    private func tracking(_ machine: inout Machine, _ model: ReceiverModel) {
        if model == .mediatek {
            _ = machine.received(ack(225), now: .milliseconds(200))
            _ = machine.received(ack(220), now: .milliseconds(300))
        } else {
            _ = machine.received(.ubx(.acknowledged(messageClass: 0x06, messageID: 0x11)), now: .milliseconds(200))
            _ = machine.received(.ubx(.acknowledged(messageClass: 0x06, messageID: 0x08)), now: .milliseconds(300))
        }
        #expect(machine.state == .tracking)
    }

    @Test(arguments: [ReceiverPowerProfile.IdleState.standby, .off])
    func theIdleStateTheEngineChoseReachesTheReceiverAsItsOneSleepState(idle: ReceiverPowerProfile.IdleState) throws {
        var (mediatek, _) = running(.mediatek, answer: .pmtk(Self.mtkRelease))
        tracking(&mediatek, .mediatek)
        var sent = mediatek.stop(into: idle, now: .seconds(2))
        #expect(written(sent) == [Array("$PMTK161,0*28\r\n".utf8)], "a MediaTek stands by for either: its backup needs the FORCE_ON pin")
        #expect(mediatek.received(ack(161), now: .seconds(2) + .milliseconds(40)) == [.resolved(.standby, .acknowledged, fallback: nil), .closeLink])
        #expect(mediatek.state == .standby)
        // A step deeper while down changes nothing: the one sleep state serves both.
        #expect(mediatek.stop(into: .off, now: .seconds(30)).isEmpty)

        var (ublox, _) = running(.ublox, answer: .ubx(Self.m8))
        tracking(&ublox, .ublox)
        sent = ublox.stop(into: idle, now: .seconds(2))
        #expect(written(sent) == [UBXCommand.powerManagementRequest(.backupUntilWoken).bytes], "a u-blox backs up for either")
        #expect(ublox.deadline(try #require(token(sent)), now: .seconds(4)) == [.resolved(.backup, .confirmedBySilence, fallback: nil), .closeLink])
        #expect(ublox.state == .backup)
        #expect(ublox.stop(into: .off, now: .seconds(30)).isEmpty)
    }

    @Test func stoppedIntoOnTheReceiverIsLeftTrackingAndADeeperStepPutsItToSleep() throws {
        var (machine, _) = running(.mediatek, answer: .pmtk(Self.mtkRelease))
        tracking(&machine, .mediatek)
        #expect(machine.stop(into: .on, now: .seconds(2)) == [.closeLink], "no command: the port closes, the receiver keeps tracking")
        #expect(machine.state == .released)
        // Deeper while down: the port reopens, the receiver is identified again and stood by.
        #expect(machine.stop(into: .standby, now: .seconds(10)) == [.openLink])
        #expect(written(machine.linkOpened(now: .seconds(10))).count == 1, "the version query, with its wake-up bytes")
        let sent = machine.received(.pmtk(Self.mtkRelease), now: .seconds(10) + .milliseconds(100))
        #expect(written(sent) == [Array("$PMTK161,0*28\r\n".utf8)])
        #expect(machine.received(ack(161), now: .seconds(10) + .milliseconds(200)).contains(.closeLink))
        #expect(machine.state == .standby)
    }

    @Test(arguments: [Machine.Input.pmtk(.acknowledgement(command: 225, flag: .unsupported)), .garbled])
    func aFailedReturnToTrackingLeavesTheStateAsConfirmedAndIsTriedAgain(reply: Machine.Input) throws {
        var (machine, _) = running(.mediatek, answer: .pmtk(Self.mtkRelease))
        tracking(&machine, .mediatek)
        _ = machine.setMode(.low, now: .seconds(1))
        _ = machine.received(ack(225), now: .seconds(1) + .milliseconds(50))
        #expect(machine.state == .powerSave)

        // Back to tracking: the mode command fails, the rate is acknowledged.
        var sent = machine.setMode(.high, now: .seconds(2))
        #expect(written(sent) == [Array("$PMTK225,0*2B\r\n".utf8)])
        var actions = machine.received(reply, now: .seconds(2) + .milliseconds(50))
        if reply == .garbled { actions = machine.deadline(try #require(token(sent)), now: .seconds(4)) }
        #expect(written(actions) == [Array("$PMTK220,1000*1F\r\n".utf8)])
        _ = machine.received(ack(220), now: .seconds(4) + .milliseconds(50))
        // Refused, the receiver kept its setting; garbled, the command may have taken effect: not known.
        #expect(machine.state == (reply == .garbled ? .unknown : .powerSave), "the rate alone does not make it track")

        // The next plan asks for tracking again, and its acknowledgement is what makes it tracking.
        sent = machine.setMode(.best, now: .seconds(10))
        #expect(written(sent) == [Array("$PMTK225,0*2B\r\n".utf8)], "a failed return to tracking is not given up")
        _ = machine.received(ack(225), now: .seconds(10) + .milliseconds(50))
        #expect(machine.state == .tracking)
    }

    @Test func afterALostPeriodicAcknowledgementSilenceIsJudgedAgainstThePeriod() throws {
        var (machine, _) = running(.mediatek, answer: .pmtk(Self.mtkRelease))
        tracking(&machine, .mediatek)
        // Periodic standby, one fix per 20 s: the acknowledgement is lost.
        let periodic = machine.setMode(.low, now: .seconds(1))
        #expect(written(periodic) == [Array("$PMTK225,2,2000,18000,0,0*12\r\n".utf8)])
        let lost = machine.deadline(try #require(token(periodic)), now: .seconds(3))
        #expect(lost.contains(.resolved(.powerSave, .unanswered, fallback: .keepSetting)))
        // Stopping: the standby command goes unanswered while the receiver sleeps through its period. A
        // silence of a second or two is its periodic sleep, not a confirmation: the deadline is the period's.
        let stop = machine.stop(into: .standby, now: .seconds(4))
        let armed = stop.compactMap { if case .armDeadline(_, let delay) = $0 { delay } else { nil } }
        #expect(armed.count == 1 && armed[0] >= .seconds(20), "armed for \(armed)")
    }

    @Test func aStopDuringIdentificationPutsTheReceiverToSleepOnceItAnswers() throws {
        var machine = Machine(configuration: ReceiverControlConfiguration(model: .ublox))
        #expect(machine.start(mode: .high, now: .zero) == [.openLink])
        let query = machine.linkOpened(now: .zero)
        #expect(written(query).count == 1, "the wake-up bytes and the version query")
        // The engine stops before the receiver answered (its first bytes may have been lost while it woke).
        #expect(machine.stop(into: .off, now: .milliseconds(300)).isEmpty, "not released: the query woke it")
        // The repeat of the query is answered: the receiver is identified and backed up, then released.
        let repeated = machine.deadline(try #require(token(query)), now: .seconds(2))
        #expect(written(repeated).count == 1)
        let answered = machine.received(.ubx(Self.m8), now: .seconds(2) + .milliseconds(100))
        #expect(written(answered) == [UBXCommand.powerManagementRequest(.backupUntilWoken).bytes])
        #expect(machine.deadline(try #require(token(answered)), now: .seconds(4)) == [.resolved(.backup, .confirmedBySilence, fallback: nil), .closeLink])
        #expect(machine.state == .backup)
    }

    @Test func aStopDuringIdentificationOfAReceiverThatNeverAnswersReleasesItAsPlain() throws {
        var machine = Machine(configuration: ReceiverControlConfiguration(model: .autodetect))
        _ = machine.start(mode: .high, now: .zero)
        let query = machine.linkOpened(now: .zero)
        #expect(machine.stop(into: .off, now: .milliseconds(300)).isEmpty)
        let repeated = machine.deadline(try #require(token(query)), now: .seconds(2))
        let gaveUp = machine.deadline(try #require(token(repeated)), now: .seconds(4))
        #expect(gaveUp.contains(.identified(nil)) && gaveUp.last == .closeLink)
        #expect(machine.state == .released)
    }

    @Test(arguments: [(PowerMode.medium, 5_000, true), (.low, 20_000, false), (.lowest, 60_000, false)])
    func aUbloxM8GetsCyclicTrackingUpToTenSecondsAndOnOffBeyond(mode: PowerMode, milliseconds: UInt32, cyclic: Bool) throws {
        var (machine, _) = running(.ublox, answer: .ubx(Self.m8))
        tracking(&machine, .ublox)
        let sent = machine.setMode(mode, now: .seconds(1))
        #expect(written(sent) == [UBXCommand.powerManagement(UBXPowerManagement(updatePeriodMilliseconds: milliseconds, cyclicTracking: cyclic, version2: true)).bytes])
    }

    @Test(arguments: [
        UBXVersion(software: "ROM CORE 2.01 (75331)", hardware: "00080000", extensions: ["PROTVER=15.00"]),
        // No PROTVER: a u-blox 7 and a u-blox 6, known by their hardware versions, and one the table does not know.
        UBXVersion(software: "1.00 (59842)", hardware: "00070000", extensions: []),
        UBXVersion(software: "7.03 (45969)", hardware: "00040007", extensions: []),
        UBXVersion(software: "9.99 (1)", hardware: "00990000", extensions: ["MOD=UNKNOWN"]),
    ])
    func aUbloxBeforeProtocol18GetsTheFortyFourByteCFGPM2(version: UBXVersion) throws {
        var (machine, actions) = running(.ublox, answer: .ubx(.version(version)))
        #expect(written(actions) == [UBXCommand.receiverManagement(powerSave: false).bytes])
        _ = machine.received(.ubx(.acknowledged(messageClass: 0x06, messageID: 0x11)), now: .milliseconds(200))
        _ = machine.received(.ubx(.acknowledged(messageClass: 0x06, messageID: 0x08)), now: .milliseconds(300))
        let sent = machine.setMode(.medium, now: .seconds(1))
        let frame = try #require(written(sent).first)
        #expect(frame[4] == 44 && frame[6] == 1, "length 44, version 1")
    }

    @Test(arguments: [(PowerMode.medium, UInt64(5)), (.low, 20), (.lowest, 60)])
    func aUblox9InPowerSaveGetsTheKeysThatSetItsInterval(mode: PowerMode, seconds: UInt64) throws {
        let f9 = UBXReply.version(UBXVersion(software: "EXT CORE 1.00 (61b2dd)", hardware: "00190000", extensions: ["PROTVER=27.12"]))
        var (machine, _) = running(.autodetect, answer: .ubx(f9))
        _ = machine.received(.ubx(.acknowledged(messageClass: 0x06, messageID: 0x8A)), now: .milliseconds(200))
        let sent = machine.setMode(mode, now: .seconds(1))
        // Cyclic tracking follows RATE-MEAS (up to 10 s); ON/OFF operation follows POSUPDATEPERIOD.
        let values =
            seconds <= 10
            ? [UBXConfigValue(key: UBXConfigValue.powerModeKey, value: 2), UBXConfigValue(key: UBXConfigValue.rateMeasurementKey, value: seconds * 1000)]
            : [UBXConfigValue(key: UBXConfigValue.positionUpdatePeriodKey, value: seconds), UBXConfigValue(key: UBXConfigValue.powerModeKey, value: 1)]
        #expect(written(sent) == [UBXCommand.setValues(layers: 1, values).bytes])
    }

    @Test func aCommandWhoseBytesCannotBeWrittenIsLostWithTheLinkAtOnce() throws {
        var (machine, _) = running(.mediatek, answer: .pmtk(Self.mtkRelease))
        tracking(&machine, .mediatek)
        let sent = machine.setMode(.low, now: .seconds(1))
        #expect(written(sent).count == 1)
        // The write failed (the port closed under it): reported now, not after the acknowledgement timeout.
        #expect(machine.writeFailed(now: .seconds(1)) == [.resolved(.powerSave, .linkLost, fallback: .keepSetting)])
        #expect(machine.writeFailed(now: .seconds(1)).isEmpty, "nothing else was in flight")
        // The deadline of the lost command, when it comes, changes nothing.
        #expect(machine.deadline(try #require(token(sent)), now: .seconds(3)).isEmpty)
    }

    @Test func anAcknowledgementThatComesLateStillConfirmsTheCommand() throws {
        var (mediatek, _) = running(.mediatek, answer: .pmtk(Self.mtkRelease))
        tracking(&mediatek, .mediatek)
        let periodic = mediatek.setMode(.low, now: .seconds(1))
        #expect(mediatek.deadline(try #require(token(periodic)), now: .seconds(3)).contains(.resolved(.powerSave, .unanswered, fallback: .keepSetting)))
        #expect(mediatek.state == .unknown, "unanswered: it may have taken effect")
        // The answer, two seconds late: the receiver is in periodic standby after all.
        #expect(mediatek.received(ack(225), now: .seconds(4)) == [.resolved(.powerSave, .acknowledgedLate, fallback: nil)])
        #expect(mediatek.state == .powerSave)
        // Once only, and not for a refusal.
        #expect(mediatek.received(ack(225), now: .seconds(5)).isEmpty)

        var (ublox, _) = running(.ublox, answer: .ubx(Self.m8))
        tracking(&ublox, .ublox)
        let powerSave = ublox.setMode(.medium, now: .seconds(1))
        var actions = ublox.deadline(try #require(token(powerSave)), now: .seconds(3))
        #expect(actions.contains(.resolved(.powerSave, .unanswered, fallback: .keepSetting)))
        // A late CFG-PM2 answer confirms the settings, which change no mode by themselves: the state stays, and
        // the rest of the setting is sent (the CFG-RXM that enables it was dropped when CFG-PM2 counted as lost).
        actions = ublox.received(.ubx(.acknowledged(messageClass: 0x06, messageID: 0x3B)), now: .seconds(3) + .milliseconds(100))
        #expect(actions.first == .resolved(.powerSave, .acknowledgedLate, fallback: nil))
        #expect(written(actions) == [UBXCommand.receiverManagement(powerSave: true).bytes])
        #expect(ublox.state == .tracking)
    }

    @Test func theConnectionComesFromTheDevicePathUnlessConfigured() {
        #expect(ReceiverConnection.of(devicePath: "/dev/ttyACM0") == .nativeUSB)
        #expect(ReceiverConnection.of(devicePath: "/dev/ttyUSB0") == .uart)
        #expect(ReceiverConnection.of(devicePath: "/dev/serial0") == .uart)
        let usb = NMEAStreamConfiguration(endpoint: .serial(path: "/dev/ttyACM1", baudRate: 9600), receiver: ReceiverControlConfiguration(model: .ublox))
        #expect(usb.resolvedReceiver.connection == .nativeUSB)
        let told = NMEAStreamConfiguration(
            endpoint: .serial(path: "/dev/ttyACM1", baudRate: 9600), receiver: ReceiverControlConfiguration(model: .ublox, connection: .uart))
        #expect(told.resolvedReceiver.connection == .uart)
        #expect(NMEAStreamSource(configuration: usb).capabilities.powerProfile?.off == ReceiverPowerProfile.samM8Q.standby)
    }

    @Test func aSleepWhoseStepWasRefusedReleasesTheReceiverOnceTheCommandInFlightEnds() throws {
        var machine = Machine(configuration: ReceiverControlConfiguration(model: .ublox, connection: .nativeUSB))
        _ = machine.start(mode: .high, now: .zero)
        _ = machine.linkOpened(now: .zero)
        _ = machine.received(.ubx(Self.m8), now: .milliseconds(100))
        tracking(&machine, .ublox)
        // Power save refused on this link: over native USB the sleep is a power save, so it cannot be sent.
        _ = machine.setMode(.medium, now: .seconds(1))
        _ = machine.received(.ubx(.notAcknowledged(messageClass: 0x06, messageID: 0x3B)), now: .seconds(1) + .milliseconds(50))
        let back = machine.setMode(.high, now: .seconds(2))
        #expect(!written(back).isEmpty, "the return to tracking is in flight")
        #expect(machine.stop(into: .off, now: .seconds(2) + .milliseconds(10)).isEmpty, "it waits for the command in flight")
        let ended = machine.received(.ubx(.acknowledged(messageClass: 0x06, messageID: 0x11)), now: .seconds(2) + .milliseconds(60))
        #expect(ended.contains(.closeLink))
        #expect(machine.state == .released)
    }

    @Test func theEngineHearsStandbyWhenAPowerSaveSleepIsConfirmedEvenFromPowerSave() throws {
        func idle(_ before: (ReceiverPowerState, Bool), _ after: (ReceiverPowerState, Bool)) -> ReceiverPowerProfile.IdleState? {
            let events = NMEAStreamSession.confirmations(
                from: .init(state: before.0, sleepConfirmed: before.1), to: .init(state: after.0, sleepConfirmed: after.1), now: .seconds(1))
            return events.lazy.compactMap { if case .receiverState(let idle, _) = $0 { idle } else { nil } }.first
        }
        #expect(idle((.powerSave, false), (.powerSave, true)) == .standby)
        #expect(idle((.tracking, false), (.powerSave, false)) == .on)
        #expect(idle((.tracking, false), (.backup, true)) == .off)
        #expect(idle((.powerSave, true), (.powerSave, true)) == nil)
    }

    @Test func theEngineHearsTheSettingConfirmedAndHowLongAgoALateAnswerSaysItWasTaken() throws {
        var machine = ReceiverDriverStateMachine(configuration: ReceiverControlConfiguration(model: .mediatek))
        _ = machine.start(mode: .high, now: .zero)
        _ = machine.linkOpened(now: .zero)
        _ = machine.received(.pmtk(Self.mtkRelease), now: .milliseconds(50))
        _ = machine.received(.pmtk(.acknowledgement(command: 225, flag: .succeeded)), now: .milliseconds(100))
        #expect(machine.confirmedMode == .high)
        _ = machine.received(.pmtk(.acknowledgement(command: 220, flag: .succeeded)), now: .milliseconds(150))
        // Asked for power save; the answer comes after the deadline (unanswered), then late.
        let before = NMEAStreamSession.DriverBelief(machine)
        let sent = machine.setMode(.low, now: .seconds(1))
        _ = machine.deadline(try #require(token(sent)), now: .seconds(2))
        #expect(machine.confirmedMode == nil, "unanswered: it may have taken effect, or not")
        _ = machine.received(.pmtk(.acknowledgement(command: 225, flag: .succeeded)), now: .seconds(4))
        #expect(machine.confirmedMode == .low)
        let events = NMEAStreamSession.confirmations(from: before, to: NMEAStreamSession.DriverBelief(machine), now: .seconds(4))
        let heard = events.compactMap { if case .receiverTracking(let mode, let age) = $0 { (mode, age) } else { nil } }
        #expect(heard.count == 1 && heard.first?.0 == .low && heard.first?.1 == .seconds(3), "taken when it was sent, 3 s before")
    }

    @Test func anAcknowledgementThatComesAfterTheEngineAskedAnotherModeIsDatedWhenItsCommandWasSent() throws {
        var (machine, _) = running(.mediatek, answer: .pmtk(Self.mtkRelease))
        tracking(&machine, .mediatek)
        let before = NMEAStreamSession.DriverBelief(machine)
        _ = machine.setMode(.low, now: .seconds(1))
        // The engine asks for tracking again while the periodic command waits for its answer.
        _ = machine.setMode(.high, now: .seconds(1) + .milliseconds(20))
        _ = machine.received(ack(225), now: .seconds(1) + .milliseconds(50))
        #expect(machine.confirmedMode == .low)
        let events = NMEAStreamSession.confirmations(from: before, to: NMEAStreamSession.DriverBelief(machine), now: .seconds(1) + .milliseconds(50))
        let heard = events.compactMap { if case .receiverTracking(let mode, let age) = $0 { (mode, age) } else { nil } }
        // Taken at 1 s, before the engine's next command at 1.02 s: the engine takes it for the answer to the
        // earlier command, not a refusal of the later one.
        #expect(heard.map(\.0) == [.low] && heard.map(\.1) == [.milliseconds(50)])
    }

    @Test func theEngineHearsTheSettingAReceiverKeptWhenItRefusesToLeaveIt() throws {
        var (machine, _) = running(.mediatek, answer: .pmtk(Self.mtkRelease))
        tracking(&machine, .mediatek)
        _ = machine.setMode(.low, now: .seconds(1))
        _ = machine.received(ack(225), now: .seconds(1) + .milliseconds(50))
        #expect(machine.confirmedMode == .low)
        // Back to tracking, refused: the receiver stays in its 20 s periodic mode, and the engine hears so.
        let before = NMEAStreamSession.DriverBelief(machine)
        _ = machine.setMode(.high, now: .seconds(5))
        _ = machine.received(ack(225, .unsupported), now: .seconds(5) + .milliseconds(50))
        #expect(machine.state == .powerSave && machine.confirmedMode == .low)
        let events = NMEAStreamSession.confirmations(from: before, to: NMEAStreamSession.DriverBelief(machine), now: .seconds(5) + .milliseconds(50))
        let heard = events.compactMap { if case .receiverTracking(let mode, let age) = $0 { (mode, age) } else { nil } }
        #expect(heard.map(\.0) == [.low])
        // Dated as of the refused command, not the earlier acknowledgement: the engine drops evidence older than
        // its command as an answer to an earlier one.
        #expect(heard.map(\.1) == [.milliseconds(50)])
        _ = machine.received(ack(220), now: .seconds(5) + .milliseconds(100))
        // A sleep now waits out the 20 s interval the receiver is still in, plus its slack, before silence counts.
        let sleep = machine.stop(now: .seconds(6))
        let delay = sleep.compactMap { if case .armDeadline(_, let delay) = $0 { delay } else { nil } }
        #expect(delay == [.seconds(21)])
    }

    @Test func aPowerSaveRefusedEarlierOnTheLinkIsNotAskedAgainAndTheEngineHearsTheTrackingKept() throws {
        var (machine, _) = running(.ublox, answer: .ubx(Self.m8))
        tracking(&machine, .ublox)
        _ = machine.setMode(.medium, now: .seconds(1))
        _ = machine.received(.ubx(.notAcknowledged(messageClass: 0x06, messageID: 0x3B)), now: .seconds(1) + .milliseconds(80))
        #expect(machine.confirmedMode == .high)
        let before = NMEAStreamSession.DriverBelief(machine)
        #expect(written(machine.setMode(.low, now: .seconds(2))).isEmpty, "power save was refused on this link")
        #expect(machine.state == .tracking && machine.confirmedMode == .high)
        let events = NMEAStreamSession.confirmations(from: before, to: NMEAStreamSession.DriverBelief(machine), now: .seconds(2))
        let heard = events.compactMap { event -> (PowerMode, Duration)? in if case .receiverTracking(let mode, let age) = event { (mode, age) } else { nil } }
        #expect(heard.map(\.0) == [.high])
        #expect(heard.map(\.1) == [.zero], "held as of this command, not the acknowledgement a second before")
    }

    @Test(arguments: [true, false])
    func theOutputShowsWhetherAModeCommandWhoseAnswerWasLostTookEffect(tookEffect: Bool) throws {
        var (machine, _) = running(.mediatek, answer: .pmtk(Self.mtkRelease))
        tracking(&machine, .mediatek)
        #expect(machine.confirmedMode == .high)
        let sent = machine.setMode(.medium, now: .seconds(1))
        _ = machine.deadline(try #require(token(sent)), now: .seconds(2))
        #expect(machine.state == .unknown && machine.confirmedMode == nil)
        // Periodic at 5 s: a fix, then 3 s of sleep; tracking: a fix every second.
        let fixes: [Duration] = tookEffect ? [.seconds(2), .seconds(5)] : (2...7).map { .seconds($0) + .milliseconds(100) }
        for fix in fixes { _ = machine.received(.output(fromUBX: false), now: fix) }
        #expect(machine.state == (tookEffect ? .powerSave : .tracking))
        #expect(machine.confirmedMode == (tookEffect ? .medium : .high))
        // Since the command either way: only a command changes the setting, so the one the output shows is the
        // one the receiver has been in since this command (taken then, or kept from before).
        #expect(machine.confirmedSince == .seconds(1))
    }
}

/// A commanded receiver's stream is split under the configured line length, as the plain stream is decoded.
struct CommandedStreamLineLengthTests {
    @Test("the receiver's splitter keeps lines as long as NMEAStreamConfiguration.maximumLineLength says (it kept 256)")
    func splitterTakesTheConfiguredLength() {
        let configuration = NMEAStreamConfiguration(
            endpoint: .tcp(host: "127.0.0.1", port: 10110), maximumLineLength: 512, receiver: ReceiverControlConfiguration(model: .mediatek))
        let session = NMEAStreamSession(
            configuration: configuration, eventLoop: MultiThreadedEventLoopGroup.singleton.next(), endpoint: "test", hint: "", logger: quietLogger(),
            metrics: SourceMetrics(source: "nmea", dimensions: [], factory: nil))
        #expect(session.commandsReceiver)
        #expect(session.state.withLockedValue { $0.receiver?.splitter.maximumLineLength } == 512)
    }
}

import Foundation
import LocationEngine
@testable import LocationSources
import NIOConcurrencyHelpers
import ReceiverControl
import SyntheticGPS
import Testing
import TestSupport

/// The receiver drivers against the synthetic personas over a real pseudo-terminal (socat) and TCP: the bytes
/// on the wire, the acknowledgements, the metered current, and every fallback with one log line and a metric.
@Suite(.serialized)
struct ReceiverDriverLinkTests {
    private static func obeyed(_ entry: String) -> @Sendable ([ReceiverPersonaServer.Event]) -> Bool {
        { $0.contains(.obeyed(entry)) }
    }

    private static func reached(_ phase: ReceiverPowerPhase) -> @Sendable ([ReceiverPersonaServer.Event]) -> Bool {
        { $0.contains(.phase(phase)) }
    }

    @Test(.enabled(if: Tools.socat != nil, "socat is not installed (apt-get install socat); it makes the pseudo-terminal pair"))
    func aMediaTekOnASerialPortIsSetUpPowerSavedAndStoodBy() async throws {
        let rig = try await PersonaRig.pty(.mediatek, model: .autodetect)
        rig.start(.high)
        try await rig.persona("tracking at 1 Hz", Self.obeyed("$PMTK220,1000*1F"))
        try await withDeadline(seconds: 30) { [rig] in await rig.sourceEvents.waitUntil { $0.contains { if case .location = $0 { true } else { false } } } }
        let tracking = rig.server.meter.current

        rig.source.setMode(.low)
        try await rig.persona("periodic standby", Self.obeyed("$PMTK225,2,2000,18000,0,0*12"))
        try await rig.persona("power save", Self.reached(.powerSave))
        let powerSave = rig.server.meter.current

        let stopAt = rig.server.elapsed
        // The engine's restart-aware rule chose standby: it reaches the receiver.
        rig.source.stop(into: .standby)
        try await rig.persona("standby", Self.obeyed("$PMTK161,0*28"))
        let standbyAt = rig.server.commandTimes.last { $0.entry == "$PMTK161,0*28" }?.elapsed ?? .nan
        try await rig.logged("command=standby result=acknowledged")
        try await rig.logged("closing the port")
        let standby = rig.server.withReceiver { $0.meter.current }

        // Byte for byte, in order, checksums included: the version query, the tracking setup, power save, standby.
        let wire = rig.received
        for command in ["$PMTK605*31\r\n", "$PMTK225,0*2B\r\n", "$PMTK220,1000*1F\r\n", "$PMTK225,2,2000,18000,0,0*12\r\n", "$PMTK161,0*28\r\n"] {
            #expect(wire.contains(run: Array(command.utf8)), "\(command) on the wire")
        }
        #expect(rig.source.statistics.receiver.vendor == .mediatek(release: CommandedReceiver.mt3339Release.release))
        #expect(rig.source.statistics.receiver.state == .standby)
        #expect(rig.commands("standby", "acknowledged") == 1)
        #expect(tracking == 20 && powerSave < tracking && standby == 2, "metered current: \(tracking) → \(powerSave) → \(standby) mA")
        print("pty MediaTek: stop() to the receiver standing by \(Int((standbyAt - stopAt) * 1000)) ms (measured); current \(tracking) → \(powerSave) → \(standby) mA")
        await rig.shutDown()
    }

    @Test(.enabled(if: Tools.socat != nil, "socat is not installed"))
    func aStartWhileTheStandbyCommandIsInFlightWinsAndItsRequestIsServedOnce() async throws {
        let rig = try await PersonaRig.pty(.mediatek, model: .mediatek)
        let engine = makeEngine(rig.source)
        let firstRequest = engine.locationRequest(accuracy: .house, timeout: .seconds(30))
        try await rig.persona("tracking", Self.obeyed("$PMTK220,1000*1F"))
        // The receiver will stand by without acknowledging (as some MediaTek firmware does), so the driver waits
        // for it to fall silent: the standby command stays in flight for a while.
        rig.server.setAcknowledgements(.drop)
        let first = try await firstRequest.result()
        #expect(first.location != nil)
        // The engine stopped the source (linger zero): standby is in flight. A request now wakes the receiver.
        try await rig.persona("standby sent", Self.obeyed("$PMTK161,0*28"))
        rig.server.setAcknowledgements(.normal)
        // A request no fix satisfies keeps the receiver demanded after the second one is served: with linger
        // zero the engine would otherwise stop it again at once, and the state checked below would race that.
        let keeper = engine.location(accuracy: .custom(metres: 0.01, maximumAge: .zero), timeout: .seconds(600)) { _ in }
        let delivered = NIOLockedValueBox(0)
        let second = await withCheckedContinuation { (continuation: CheckedContinuation<LocationResult, Never>) in
            _ = engine.location(accuracy: .room, timeout: .seconds(60)) { result in
                delivered.withLockedValue { $0 += 1 }
                continuation.resume(returning: result)
            }
        }
        #expect(second.location != nil, "served")
        // The receiver is woken and set up again once the standby command has resolved (confirmed by silence).
        try await rig.persona("woken", Self.obeyed("wake"))
        try await rig.logged("command=rate result=acknowledged", count: 2)
        #expect(rig.source.statistics.receiver.state == .tracking)
        // The standby command resolved once before the wake. Which way is the pty's timing: silence, or, when
        // a loaded machine delivers the persona's last sentence after the command went out, unanswered.
        #expect(rig.commands("standby", "confirmed_by_silence") + rig.commands("standby", "unanswered") == 1)
        #expect(delivered.withLockedValue { $0 } == 1, "exactly once")
        engine.cancel(keeper)
        await engine.shutdown()
        await rig.shutDown()
    }

    @Test(.enabled(if: Tools.socat != nil, "socat is not installed"), arguments: [
        (AcknowledgementBehavior.refuse, "refused"), (.ignore, "unanswered"),
    ])
    func aStandbyThatFailsClosesThePortWithOneLogLineAndAMetric(behavior: AcknowledgementBehavior, result: String) async throws {
        let rig = try await PersonaRig.pty(.mediatek, model: .mediatek)
        rig.start(.high)
        try await rig.persona("tracking", Self.obeyed("$PMTK220,1000*1F"))
        rig.server.setAcknowledgements(behavior)
        rig.source.stop()
        try await rig.logged("command=standby")
        try await rig.logged("closing the port")
        let failures = rig.logs.value.filter { $0.contains("receiver command failed") }
        #expect(failures.count == 1 && failures[0].contains("fallback=close_port") && failures[0].contains("result=\(result)"), "\(failures)")
        #expect(rig.commands("standby", result) == 1)
        #expect((try? rig.metrics.expectCounter("locationsource_receiver_fallbacks", [("source", "nmea"), ("fallback", "close_port")]).totalValue) == 1)
        #expect(rig.source.statistics.receiver.state == .released)
        #expect(rig.server.phase != .standby, "the receiver stays powered")
        await rig.shutDown()
    }

    @Test(.enabled(if: Tools.socat != nil, "socat is not installed"), arguments: [
        (AcknowledgementBehavior.drop, "unanswered"), (.garble, "garbled"), (.refuse, "refused"),
    ])
    func aModeCommandThatFailsKeepsTheSettingWithOneLogLineAndAMetric(behavior: AcknowledgementBehavior, result: String) async throws {
        let rig = try await PersonaRig.pty(.mediatek, model: .mediatek)
        rig.start(.high)
        try await rig.persona("tracking", Self.obeyed("$PMTK220,1000*1F"))
        try await rig.logged("command=rate result=acknowledged")
        rig.server.setAcknowledgements(behavior)
        rig.source.setMode(.lowest)
        try await rig.logged("receiver command failed")
        let failures = rig.logs.value.filter { $0.contains("receiver command failed") }
        #expect(failures.count == 1, "\(failures)")
        #expect(["command=power_save", "result=\(result)", "fallback=keep_setting"].allSatisfy { failures.first?.contains($0) == true }, "\(failures)")
        #expect(rig.commands("power_save", result) == 1)
        // Not retried: the same mode again sends nothing more. The link keeps order, so once a later
        // command (back to tracking) has reached the persona, a resend would have reached it before.
        let sent = rig.received.count
        rig.source.setMode(.low)
        rig.source.setMode(.lowest)
        rig.source.setMode(.high)
        let tracking = Array("$PMTK220,1000*1F".utf8)
        try await rig.persona("back to tracking") { events in
            let bytes = events.flatMap { event -> [UInt8] in
                guard case .received(let bytes) = event else { return [] }
                return bytes
            }
            return bytes.count > sent && bytes[sent...].contains(tracking)
        }
        let after = String(decoding: rig.received[sent...], as: UTF8.self)
        #expect(!after.contains("$PMTK225,2"), "the failed power-save command was sent again: \(after)")
        await rig.shutDown()
    }

    @Test(.enabled(if: Tools.socat != nil, "socat is not installed"))
    func aReceiverUnpluggedMidSleepCountsTheCommandAsLostAndWaitsForItsLink() async throws {
        let rig = try await PersonaRig.pty(.mediatek, model: .mediatek, behavior: .normal)
        rig.start(.high)
        try await rig.persona("tracking", Self.obeyed("$PMTK220,1000*1F"))
        rig.server.setAcknowledgements(.ignore)
        rig.source.stop()
        try await rig.persona("standby sent", { $0.contains { if case .received(let bytes) = $0 { bytes.elementsEqual("$PMTK161,0*28\r\n".utf8) } else { false } } })
        await rig.unplug()
        try await rig.logged("fallback=sleep_on_reconnect result=link_lost")
        #expect(rig.logs.value.filter { $0.contains("receiver command failed") }.count == 1)
        #expect(rig.commands("standby", "link_lost") == 1)
        #expect(rig.source.isRunning, "the link reopens, to send the sleep again")
        #expect(rig.source.statistics.receiver.state == .unknown)
        await rig.shutDown()
    }

    @Test func aSleepLostWithTheLinkIsSentAgainWhenTheBridgeIsBack() async throws {
        let rig = try await PersonaRig.tcp(.mediatek, model: .mediatek)
        rig.start(.high)
        try await rig.persona("tracking", Self.obeyed("$PMTK220,1000*1F"))
        rig.server.setAcknowledgements(.ignore)
        rig.source.stop()
        try await rig.persona("standby sent", { $0.contains { if case .received(let bytes) = $0 { bytes.elementsEqual("$PMTK161,0*28\r\n".utf8) } else { false } } })
        // The bridge restarts under the standby command: the receiver, ignoring it, runs on. It obeys again from
        // before the link is back, so that the source's reconnection finds it obeying however soon it comes.
        rig.server.setAcknowledgements(.normal)
        await rig.server.disconnectClients()
        try await rig.logged("fallback=sleep_on_reconnect result=link_lost")
        // The source connects again, identifies the receiver and sends it to sleep.
        try await rig.persona("standby", Self.reached(.standby))
        try await rig.heard(.standby)
        try await rig.logged("closing the port")
        #expect(rig.source.statistics.receiver.state == .standby)
        await rig.shutDown()
    }

    @Test func aUbloxOverTCPIsIdentifiedSetUpAndPutInBackup() async throws {
        let rig = try await PersonaRig.tcp(.ublox, model: .autodetect)
        rig.start(.best)
        try await rig.logged("command=rate result=acknowledged")
        try await rig.persona("tracking", Self.reached(.tracking))
        let tracking = rig.server.meter.current
        rig.source.setMode(.medium)
        try await rig.persona("power save", Self.reached(.powerSave))
        rig.source.stop()
        try await rig.persona("backup", Self.reached(.backup))
        try await rig.logged("command=backup result=confirmed_by_silence")
        let backup = rig.server.withReceiver { $0.meter.current }
        let wire = rig.received
        for command in [
            UBXCommand.pollVersion, .receiverManagement(powerSave: false), .rate(UBXRate(measurementMilliseconds: 1000)),
            .powerManagement(UBXPowerManagement(updatePeriodMilliseconds: 5000, cyclicTracking: true, version2: true)), .receiverManagement(powerSave: true),
            .powerManagementRequest(.backupUntilWoken),
        ] {
            #expect(wire.contains(run: command.bytes), "\(command.frame) on the wire")
        }
        #expect(rig.source.statistics.receiver.vendor == .ublox(software: CommandedReceiver.samM8QVersion.software, protocolVersion: 18))
        #expect(tracking == 29 && backup == 0.020, "metered current: \(tracking) → \(backup) mA")
        await rig.shutDown()
    }

    @Test(
        .enabled(if: Tools.socat != nil, "socat is not installed"),
        arguments: [(ReceiverPersona.mediatek, ReceiverPowerProfile.IdleState.standby), (.ublox, .off)])
    func aReceiverThatLosesTheBytesThatWakeItIsIdentifiedByTheRetryAndSetUpAgain(
        persona: ReceiverPersona, idle: ReceiverPowerProfile.IdleState
    ) async throws {
        let rig = try await PersonaRig.pty(persona, model: .autodetect, losesWakingBytes: true)
        rig.start(.high)
        try await rig.persona("tracking", Self.reached(.tracking))
        try await rig.logged("command=rate result=acknowledged")
        rig.source.stop(into: idle)
        let asleep: ReceiverPowerPhase = persona == .mediatek ? .standby : .backup
        try await rig.persona("asleep", Self.reached(asleep))
        try await rig.logged("closing the port")

        // Woken again: the first write (the wake-up with the version query) is lost as the receiver wakes.
        rig.start(.high)
        try await rig.persona("the waking bytes lost") { $0.contains { if case .obeyed(let entry) = $0 { entry.hasPrefix("lost ") } else { false } } }
        try await rig.logged("command=rate result=acknowledged", count: 2)
        try await rig.persona("tracking again") { $0.filter { $0 == .phase(.tracking) }.count >= 2 }
        #expect(rig.server.phase == .tracking)
        #expect(rig.source.statistics.receiver.state == .tracking, "the driver believes what the receiver does")
        await rig.shutDown()
    }

    @Test(
        .enabled(if: Tools.socat != nil, "socat is not installed"),
        arguments: [(AcknowledgementBehavior.normal, ReceiverPowerProfile.IdleState.standby), (.refuse, .on), (.ignore, .on)])
    func theEngineHearsWhereTheReceiverConfirmedItWent(behavior: AcknowledgementBehavior, heard: ReceiverPowerProfile.IdleState) async throws {
        let rig = try await PersonaRig.pty(.mediatek, model: .mediatek, behavior: .normal)
        #expect(rig.source.capabilities.confirmsReceiverState)
        rig.start(.high)
        try await rig.persona("tracking", Self.reached(.tracking))
        try await rig.logged("command=rate result=acknowledged")
        rig.server.setAcknowledgements(behavior)
        rig.source.stop(into: .standby)
        try await rig.logged("closing the port")
        try await rig.heard(heard)
        // What the receiver did: standby when it obeyed, still tracking when it refused or ignored the command.
        #expect(rig.server.phase == (heard == .standby ? .standby : .tracking))
        await rig.shutDown()
    }

    @Test(.enabled(if: Tools.socat != nil, "socat is not installed"))
    func aReceiverThatAnswersLateEndsUpBelievedInTheStateItIsIn() async throws {
        let rig = try await PersonaRig.pty(.mediatek, model: .mediatek, behavior: .late)
        rig.start(.high)
        try await rig.persona("tracking at 1 Hz", Self.obeyed("$PMTK220,1000*1F"))
        try await rig.logged("result=acknowledged_late")
        rig.source.setMode(.low)
        try await rig.persona("power save", Self.reached(.powerSave))
        // Counted unanswered after 0.8 s, answered after 2 s: the driver's state follows the late answer.
        try await rig.logged("command=power_save result=acknowledged_late")
        #expect(rig.source.statistics.receiver.state == .powerSave)
        #expect(rig.server.phase == .powerSave)
        #expect(rig.source.statistics.receiver.commandsAcknowledgedLate >= 2)
        await rig.shutDown()
    }

    @Test(.enabled(if: Tools.socat != nil, "socat is not installed"))
    func aUbloxM10IsCommandedWithConfigurationKeysAndGivesFixesAtTheIntervalsAskedFor() async throws {
        let rig = try await PersonaRig.pty(.ublox, model: .autodetect, ubloxGeneration: .m10)
        rig.start(.high)
        try await rig.logged("command=tracking result=acknowledged")
        #expect(rig.source.statistics.receiver.vendor == .ublox(software: CommandedReceiver.maxM10SVersion.software, protocolVersion: 34.1))
        #expect(rig.server.withReceiver { $0.outputInterval } == 1)
        // Power save at 5 s (cyclic tracking, RATE-MEAS), 20 s and 60 s (ON/OFF, POSUPDATEPERIOD), each confirmed.
        for (count, (mode, seconds)) in [(PowerMode.medium, 5.0), (.low, 20), (.lowest, 60)].enumerated() {
            rig.source.setMode(mode)
            try await rig.logged("command=power_save result=acknowledged", count: count + 1)
            #expect(rig.server.withReceiver { $0.outputInterval } == seconds, "\(mode)")
            #expect(rig.source.statistics.receiver.state == .powerSave)
        }
        await rig.shutDown()
    }

    @Test(.enabled(if: Tools.socat != nil, "socat is not installed"))
    func aUbloxOnItsOwnUSBPortWaitsInPowerSaveAndStaysOnTheBus() async throws {
        let rig = try await PersonaRig.pty(.ublox, model: .ublox, attachedByNativeUSB: true, connection: .nativeUSB)
        #expect(rig.source.capabilities.powerProfile?.off == rig.source.capabilities.powerProfile?.standby, "no backup to wait in")
        rig.start(.high)
        try await rig.persona("tracking", Self.reached(.tracking))
        try await rig.logged("command=rate result=acknowledged")
        rig.source.stop(into: .off)
        try await rig.persona("power save", Self.reached(.powerSave))
        try await rig.logged("closing the port")
        let wire = rig.received
        #expect(!wire.contains(run: UBXCommand.powerManagementRequest(.backupUntilWoken).bytes), "no forced backup over USB")
        #expect(rig.server.withReceiver { !$0.vanished && $0.outputInterval == 60 })
        try await rig.heard(.standby)
        // Started again, it answers: set up for tracking once more.
        rig.start(.high)
        try await rig.logged("command=rate result=acknowledged", count: 2)
        #expect(rig.server.withReceiver { $0.outputInterval } == 1)
        await rig.shutDown()
    }

    @Test func aUbloxOnItsOwnUSBPortBehindATCPBridgeWaitsInPowerSaveWhenTheConnectionSaysSo() async throws {
        // ser2net serving a /dev/ttyACM0: the endpoint is TCP, the receiver is on its own USB port.
        let rig = try await PersonaRig.tcp(.ublox, model: .ublox, attachedByNativeUSB: true, connection: .nativeUSB)
        #expect(rig.source.capabilities.powerProfile?.off == rig.source.capabilities.powerProfile?.standby, "no backup to wait in")
        rig.start(.high)
        try await rig.logged("command=rate result=acknowledged")
        rig.source.stop(into: .off)
        try await rig.persona("power save", Self.reached(.powerSave))
        try await rig.logged("closing the port")
        #expect(!rig.received.contains(run: UBXCommand.powerManagementRequest(.backupUntilWoken).bytes), "no forced backup over USB")
        #expect(rig.server.withReceiver { !$0.vanished && $0.outputInterval == 60 })
        try await rig.heard(.standby)
        await rig.shutDown()
    }

    @Test(.enabled(if: Tools.socat != nil, "socat is not installed"))
    func aForcedBackupOverNativeUSBTakesTheReceiverOffTheBus() async throws {
        // Misconfigured as a UART, the driver forces the backup: the receiver vanishes and answers nothing more.
        let rig = try await PersonaRig.pty(.ublox, model: .ublox, attachedByNativeUSB: true, connection: .uart)
        rig.start(.high)
        try await rig.logged("command=rate result=acknowledged")
        rig.source.stop(into: .off)
        try await rig.logged("command=backup result=confirmed_by_silence")
        #expect(rig.server.withReceiver { $0.vanished })
        rig.start(.high)
        try await rig.logged("receiver configuration")
        #expect(rig.source.statistics.receiver.lastError == .noAnswer(.ublox))
        await rig.shutDown()
    }
}

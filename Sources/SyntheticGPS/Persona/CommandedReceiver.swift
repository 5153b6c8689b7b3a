import DequeModule
import LocationEngine
import ReceiverControl

/// The synthetic receiver behind a serial line that obeys a persona's power commands: a pure value with no
/// clock and no I/O. Time is an argument (seconds since the scenario started) and only moves forward.
///
/// - ``receive(_:at:)`` reads bytes from the host and returns the replies (acknowledgements, versions).
/// - ``output(through:)`` returns the NMEA of every fix due until then (nothing while asleep).
/// - ``meter`` integrates the persona's data-sheet current over its states.
///
/// Standby (MediaTek `$PMTK161,0`) and backup (u-blox RXM-PMREQ) stop the output; any byte wakes the receiver,
/// which restarts hot if it slept less than the ephemerides stay valid and warm otherwise (``StartCondition``).
/// Rate commands (`$PMTK220`, CFG-RATE) set the fix interval; periodic and power-save commands (`$PMTK225`,
/// CFG-PM2 + CFG-RXM) emit one fix per cycle at their lower current. A plain persona ignores every byte.
public struct CommandedReceiver: Sendable {
    /// Which receiver this behaves like.
    public let persona: ReceiverPersona
    /// How commands are answered (version queries always are).
    public var acknowledgements: AcknowledgementBehavior
    /// How commands of some classes are answered instead of by ``acknowledgements``: a fault that hits one command
    /// and not the next. Default none.
    public var commandBehaviors: [ReceiverCommandClass: AcknowledgementBehavior] = [:]
    /// Which u-blox generation a ``ReceiverPersona/ublox`` persona is: the M8 (UBX CFG messages; CFG-VALSET
    /// refused) or the M10 (protocol 34: configuration keys through CFG-VALSET; CFG-RATE, CFG-PM2 and CFG-RXM
    /// refused). Default ``UbloxGeneration/m8``.
    public var ubloxGeneration = UbloxGeneration.m8
    /// Whether a ``ReceiverPersona/ublox`` persona is attached by its own USB port, as a u-blox on `/dev/ttyACM…` is:
    /// a forced RXM-PMREQ then disables USB — the receiver goes to backup and *vanishes*: it reads and answers
    /// nothing more (a real one leaves the bus until unplugged) — and an unforced one is vetoed while USB is
    /// connected. Default `false` (a UART).
    public var attachedByNativeUSB = false
    /// Whether it vanished (a forced backup over native USB): nothing it is sent is read any more.
    public private(set) var vanished = false
    /// How late a ``AcknowledgementBehavior/late`` answer comes, seconds. Default 2.
    public var lateBy = 2.0
    /// Whether the bytes that wake it from standby or backup are lost, as a real receiver woken by UART
    /// activity may lose them (the u-blox M8 protocol specification says so of RXM-PMREQ's wake-up): the
    /// first write after a sleep wakes it and is not read. Default `false`.
    public var losesWakingBytes = false
    /// The simulated receiver underneath.
    public private(set) var receiver: SyntheticReceiver
    /// The energy drawn so far.
    public private(set) var meter: ReceiverEnergyMeter
    /// Commands obeyed so far, newest last (for tests and logs), at most 64.
    public private(set) var log: [String] = []
    /// How many entries were ever added to ``log``.
    public private(set) var logCount = 0

    private enum Sleep: Sendable, Hashable {
        case standby
        case backup(until: Double?)
    }

    private var splitter = ReceiverStreamSplitter()
    private var writer = NMEAWriter()
    private var sleep: Sleep?
    private var fixInterval: Double
    /// The shortest fix interval it can keep: its scenario's (gpsgen's `--rate`). A command for a shorter one fails,
    /// as a part refuses a rate beyond its maximum, rather than being acknowledged and left unmet.
    private let fastestInterval: Double
    /// Power save: seconds per fix and the current drawn (`nil`: continuous).
    private var powerSave: (interval: Double, current: Double)?
    /// u-blox: the update period configured by CFG-PM2, waiting for CFG-RXM to enable power save.
    private var configuredPowerSavePeriod = 1.0
    /// u-blox M10: the configuration keys' values (CFG-PM-OPERATEMODE, CFG-RATE-MEAS in ms,
    /// CFG-PM-POSUPDATEPERIOD in s).
    private var keys = (operateMode: UInt64(0), rateMeasurement: UInt64(1000), positionUpdatePeriod: UInt64(0))
    private var lastEmitted: Double?
    private var meteredUntil: Double
    /// Answers held back (``AcknowledgementBehavior/late``), in order, with when they go out: at most
    /// ``mostLateReplies``, as a receiver's output buffer holds only so much.
    private var lateReplies: Deque<(due: Double, bytes: [UInt8])> = []
    /// The most answers held back at once; further ones are lost (a client flooding commands would else hold
    /// memory without bound).
    public static let mostLateReplies = 1_024

    /// The MON-VER a MAX-M10S answers.
    public static let maxM10SVersion = UBXVersion(
        software: "ROM SPG 5.10 (7b202e)", hardware: "000A0000", extensions: ["FWVER=SPG 5.10", "PROTVER=34.10", "MOD=MAX-M10S"])
    /// The MON-VER a u-blox 7 (protocol 14) answers: no extension names the protocol.
    public static let ublox7Version = UBXVersion(software: "1.00 (59842)", hardware: "00070000", extensions: [])
    /// The MON-VER a SAM-M8Q answers.
    public static let samM8QVersion = UBXVersion(
        software: "ROM CORE 3.01 (107888)", hardware: "00080000", extensions: ["FWVER=SPG 3.01", "PROTVER=18.00", "MOD=SAM-M8Q"])
    /// The `$PMTK705` an MT3339 module answers.
    public static let mt3339Release = PMTKRelease(release: "AXN_2.31_3339_13101700", buildID: "5632", model: "PA6H")

    /// A receiver for `scenario`, powered on at `elapsed` seconds and tracking continuously.
    public init(scenario: Scenario, persona: ReceiverPersona, acknowledgements: AcknowledgementBehavior = .normal, at elapsed: Double = 0) {
        self.persona = persona
        self.acknowledgements = acknowledgements
        self.receiver = SyntheticReceiver(scenario: scenario, mode: nil)
        self.meter = ReceiverEnergyMeter(supplyVoltage: persona.currentProfile.supplyVoltage)
        self.fixInterval = scenario.fixInterval
        self.fastestInterval = scenario.fixInterval
        self.meteredUntil = elapsed
        receiver.powerOn(mode: .high, at: elapsed)
    }

    /// What the receiver is doing at the last metered instant.
    public var phase: ReceiverPowerPhase { phase(at: meteredUntil) }

    /// The interval between the fixes it outputs now, seconds: its power-save period, or its fix interval.
    public var outputInterval: Double { powerSave?.interval ?? fixInterval }

    /// Reads bytes the host wrote at `elapsed` seconds and returns the receiver's replies.
    /// - Complexity: O(n) in the bytes.
    public mutating func receive(_ bytes: [UInt8], at elapsed: Double) -> [UInt8] {
        advanceMeter(to: elapsed)
        guard persona != .plain, !bytes.isEmpty, !vanished else { return [] }
        if sleep != nil {
            wake(at: elapsed)
            if losesWakingBytes {
                note("lost \(bytes.count) bytes while waking")
                meter.record(phase, current: current(in: phase), for: 0)
                return []
            }
        }
        var pieces: [ReceiverStreamSplitter.Piece] = []
        splitter.feed(bytes) { pieces.append($0) }
        var replies: [UInt8] = []
        for piece in pieces {
            switch (persona, piece) {
            case (.mediatek, .line(let line)):
                guard let packet = try? PMTKPacket.parse(line) else { continue }
                replies += mediatek(packet, at: elapsed)
            case (.ublox, .ubx(let frame)):
                replies += ublox(frame, at: elapsed)
            default:
                continue
            }
        }
        // The meter reads the state the commands left, from this instant (not from the next metered interval).
        meter.record(phase, current: current(in: phase), for: 0)
        return replies
    }

    /// The NMEA of every fix due up to `elapsed` seconds (empty while asleep).
    /// - Complexity: O(epochs due).
    public mutating func output(through elapsed: Double) -> [UInt8] {
        if vanished {
            advanceMeter(to: elapsed)
            return []
        }
        if case .backup(let until?) = sleep, until <= elapsed {
            advanceMeter(to: until)
            wake(at: until)
        }
        advanceMeter(to: elapsed)
        var late: [UInt8] = []
        while let first = lateReplies.first, first.due <= elapsed {
            late += first.bytes
            lateReplies.removeFirst()
        }
        var text = ""
        let interval = powerSave?.interval ?? fixInterval
        receiver.epochs(through: elapsed) { epoch in
            if let last = lastEmitted, epoch.elapsed - last < interval - 1e-6 { return }
            lastEmitted = epoch.elapsed
            writer.write(epoch, to: &text)
        }
        return late + (sleep == nil ? Array(text.utf8) : [])
    }

    // MARK: - MediaTek

    private mutating func mediatek(_ packet: PMTKPacket, at elapsed: Double) -> [UInt8] {
        guard let command = try? PMTKCommand(packet) else {
            return PMTKReply.acknowledgement(command: packet.type, flag: .unsupported).packet.bytes
        }
        if command == .queryRelease { return PMTKReply.release(Self.mt3339Release).packet.bytes }
        let flag: PMTKAcknowledgementFlag
        let behavior = behavior(for: ReceiverCommandClass(command))
        switch behavior {
        case .ignore: return []
        case .refuse: return PMTKReply.acknowledgement(command: packet.type, flag: .unsupported).packet.bytes
        case .normal, .drop, .garble, .late:
            if case .fixInterval(let milliseconds) = command, !canKeep(milliseconds: UInt64(milliseconds)) {
                flag = .failed
            } else {
                flag = obey(command, at: elapsed) ? .succeeded : .unsupported
            }
        }
        return answer(PMTKReply.acknowledgement(command: packet.type, flag: flag).packet.bytes, behavior, at: elapsed)
    }

    /// Whether a fix interval of `milliseconds` is one it can keep (no shorter than ``fastestInterval``).
    private func canKeep(milliseconds: UInt64) -> Bool {
        Double(milliseconds) / 1000 >= fastestInterval - 1e-9
    }

    /// Carries out a MediaTek command; `false` for one the synthetic receiver does not model.
    private mutating func obey(_ command: PMTKCommand, at elapsed: Double) -> Bool {
        note("\(command.packet)")
        switch command {
        case .test, .queryRelease: return true
        case .standby: goToSleep(.standby, at: elapsed)
        case .hotRestart:
            receiver.powerOff(at: elapsed)
            receiver.powerOn(mode: .high, at: elapsed)
        case .warmRestart, .coldRestart: return false
        case .fixInterval(let milliseconds): fixInterval = Double(milliseconds) / 1000
        case .periodic(.normal): powerSave = nil
        case .periodic(.periodicStandby(let cycle)), .periodic(.periodicBackup(let cycle)):
            let profile = persona.currentProfile
            let period = Double(cycle.run + cycle.sleep)
            powerSave = (period / 1000, (profile.tracking * Double(cycle.run) + profile.standby * Double(cycle.sleep)) / period)
        case .periodic(.alwaysLocateStandby), .periodic(.alwaysLocateBackup): return false
        }
        return true
    }

    // MARK: - u-blox

    private mutating func ublox(_ frame: UBXFrame, at elapsed: Double) -> [UInt8] {
        guard let command = try? UBXCommand(frame) else {
            // Unknown CFG messages are refused; anything else is ignored.
            return frame.messageClass == 0x06 ? UBXReply.notAcknowledged(messageClass: 0x06, messageID: frame.messageID).frame.bytes : []
        }
        let behavior = behavior(for: ReceiverCommandClass(command))
        switch command {
        case .pollVersion:
            let version =
                switch ubloxGeneration {
                case .u7: Self.ublox7Version
                case .m8: Self.samM8QVersion
                case .m10: Self.maxM10SVersion
                }
            return UBXReply.version(version).frame.bytes
        case .powerManagementRequest(let request):
            // A command, never acknowledged.
            guard behavior != .ignore, behavior != .refuse, request.isBackup else { return [] }
            if attachedByNativeUSB {
                guard request.flags & UBXPowerRequest.forceFlag != 0 else {
                    note("RXM-PMREQ vetoed: USB connected")
                    return []
                }
                note("RXM-PMREQ forced over USB: USB disabled")
                vanished = true
            } else {
                note("RXM-PMREQ backup")
            }
            goToSleep(.backup(until: request.durationMilliseconds == 0 ? nil : elapsed + Double(request.durationMilliseconds) / 1000), at: elapsed)
            return []
        default: break
        }
        switch behavior {
        case .ignore: return []
        case .refuse: return UBXReply.notAcknowledged(messageClass: frame.messageClass, messageID: frame.messageID).frame.bytes
        case .normal, .drop, .garble, .late: break
        }
        let accepted: Bool
        switch command {
        case .rate where ubloxGeneration == .m10, .powerManagement where ubloxGeneration == .m10,
            .receiverManagement where ubloxGeneration == .m10:
            // A u-blox 10 no longer takes CFG-RATE, CFG-PM2 or CFG-RXM: configuration keys only.
            accepted = false
        case .rate(let rate) where rate.measurementMilliseconds >= 25 && canKeep(milliseconds: UInt64(rate.measurementMilliseconds)):
            fixInterval = Double(rate.measurementMilliseconds) / 1000
            accepted = true
        case .powerManagement(let settings) where settings.updatePeriodMilliseconds >= 1000 && (ubloxGeneration != .u7 || !settings.isVersion2):
            // A u-blox 7 reads the 44-byte version 1 only.
            configuredPowerSavePeriod = Double(settings.updatePeriodMilliseconds) / 1000
            accepted = true
        case .receiverManagement(let on):
            powerSave = on ? (configuredPowerSavePeriod, persona.currentProfile.powerSave ?? persona.currentProfile.tracking) : nil
            accepted = true
        case .setValues(_, let values) where ubloxGeneration == .m10:
            accepted = setKeys(values)
        case .powerSetup, .setValues, .rate, .powerManagement, .pollVersion, .powerManagementRequest:
            // CFG-VALSET is a u-blox 9 message: an M8 refuses it, as it refuses out-of-range values.
            accepted = false
        }
        if accepted { note("\(frame)") }
        let reply: UBXReply =
            accepted
            ? .acknowledged(messageClass: frame.messageClass, messageID: frame.messageID)
            : .notAcknowledged(messageClass: frame.messageClass, messageID: frame.messageID)
        return answer(reply.frame.bytes, behavior, at: elapsed)
    }

    /// Applies CFG-VALSET items as an M10 does: all or none — an item whose key it does not know (or whose
    /// value is out of range) refuses the message. In cyclic tracking (OPERATEMODE 2) fixes follow RATE-MEAS;
    /// in ON/OFF operation (1) POSUPDATEPERIOD; at full power (0) RATE-MEAS.
    private mutating func setKeys(_ values: [UBXConfigValue]) -> Bool {
        var next = keys
        for item in values {
            switch item.key {
            case UBXConfigValue.powerModeKey where item.value <= 2: next.operateMode = item.value
            case UBXConfigValue.rateMeasurementKey where item.value >= 25 && canKeep(milliseconds: item.value): next.rateMeasurement = item.value
            case UBXConfigValue.positionUpdatePeriodKey: next.positionUpdatePeriod = item.value
            default: return false
            }
        }
        keys = next
        let current = persona.currentProfile.powerSave ?? persona.currentProfile.tracking
        switch keys.operateMode {
        case 2: powerSave = (Double(keys.rateMeasurement) / 1000, current)
        case 1: powerSave = (max(Double(keys.positionUpdatePeriod), Double(keys.rateMeasurement) / 1000), current)
        default:
            powerSave = nil
            fixInterval = Double(keys.rateMeasurement) / 1000
        }
        return true
    }

    // MARK: - Power

    /// How a command of `commandClass` is answered.
    private func behavior(for commandClass: ReceiverCommandClass?) -> AcknowledgementBehavior {
        commandClass.flatMap { commandBehaviors[$0] } ?? acknowledgements
    }

    /// The reply as `behavior` sends it (a late one is held back until ``lateBy`` after `elapsed`).
    private mutating func answer(_ bytes: [UInt8], _ behavior: AcknowledgementBehavior, at elapsed: Double) -> [UInt8] {
        switch behavior {
        case .normal, .refuse: return bytes
        case .drop, .ignore: return []
        case .late:
            if lateReplies.count < Self.mostLateReplies { lateReplies.append((elapsed + lateBy, bytes)) }
            return []
        case .garble:
            var garbled = bytes
            // The checksum's first byte (UBX) or first hex digit (PMTK: `*HH`), altered.
            let index = persona == .ublox ? garbled.count - 2 : garbled.count - 4
            garbled[index] = garbled[index] == 0x30 ? 0x31 : 0x30
            return garbled
        }
    }

    private mutating func goToSleep(_ kind: Sleep, at elapsed: Double) {
        sleep = kind
        receiver.powerOff(at: elapsed)
    }

    private mutating func wake(at elapsed: Double) {
        sleep = nil
        note("wake")
        receiver.powerOn(mode: .high, at: elapsed)
        lastEmitted = nil
    }

    private mutating func note(_ entry: String) {
        if log.count == 64 { log.removeFirst() }
        log.append(entry)
        logCount += 1
    }

    private func phase(at elapsed: Double) -> ReceiverPowerPhase {
        switch sleep {
        case .standby: return .standby
        case .backup: return .backup
        case nil:
            if elapsed < receiver.gnssReadyAt { return .acquisition }
            return powerSave == nil ? .tracking : .powerSave
        }
    }

    private func current(in phase: ReceiverPowerPhase) -> Double {
        let profile = persona.currentProfile
        switch phase {
        case .acquisition: return profile.acquisition
        case .tracking: return profile.tracking
        case .powerSave: return powerSave?.current ?? profile.tracking
        case .standby: return profile.standby
        case .backup: return profile.backup
        }
    }

    /// Meters the time since the last event, splitting it where acquisition ends.
    private mutating func advanceMeter(to elapsed: Double) {
        guard elapsed > meteredUntil else { return }
        if sleep == nil, meteredUntil < receiver.gnssReadyAt, receiver.gnssReadyAt < elapsed {
            meter.record(.acquisition, current: current(in: .acquisition), for: receiver.gnssReadyAt - meteredUntil)
            meteredUntil = receiver.gnssReadyAt
        }
        let phase = phase(at: meteredUntil)
        meter.record(phase, current: current(in: phase), for: elapsed - meteredUntil)
        meteredUntil = elapsed
    }
}

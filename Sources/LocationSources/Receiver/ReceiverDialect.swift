@_spi(Internals) import LocationEngine
import ReceiverControl

/// One command a driver sends, what answers it, and what the receiver is in once it is answered.
struct ReceiverCommand: Sendable, Hashable {
    /// What the command is for (the `command` dimension of the metrics).
    enum Kind: String, Sendable, Hashable, CaseIterable {
        case identify, tracking, rate
        case powerSave = "power_save"
        case standby, backup
    }

    /// What confirms the command.
    enum Expectation: Sendable, Hashable {
        /// `$PMTK001,<type>,3`.
        case pmtkAcknowledgement(Int)
        /// UBX-ACK-ACK of this class and id.
        case ubxAcknowledgement(UInt8, UInt8)
        /// A MediaTek release or a u-blox version (any vendor the model allows).
        case identity
        /// The acknowledgement of `type`, or the receiver falling silent (MediaTek standby: some firmware
        /// stops without acknowledging).
        case pmtkAcknowledgementOrSilence(Int)
        /// The receiver falling silent (u-blox RXM-PMREQ is not acknowledged).
        case silence
    }

    var kind: Kind
    var bytes: [UInt8]
    var expectation: Expectation
    /// The receiver's state once the command is confirmed.
    var resultingState: ReceiverPowerState?
    /// Whether it is a step of putting the receiver to sleep: once the last one is confirmed the port closes,
    /// and if one fails the receiver is released.
    var isSleep = false
    /// The engine's mode whose setting it brings the receiver to, for a tracking or power-save command of a plan.
    var mode: PowerMode?
    /// The setting it is a step of (``ReceiverDialect/commands(for:)``): the receiver's once the command is
    /// confirmed, for a command with a ``resultingState``.
    var profile: ReceiverProfile?
}

/// The power profile a mode asks of the receiver.
enum ReceiverProfile: Sendable, Hashable {
    /// Continuous tracking at an interval.
    case tracking(Duration)
    /// Power save / periodic, one fix per interval.
    case powerSave(Duration)

    /// The interval at which a receiver in this profile outputs.
    var outputInterval: Duration {
        switch self {
        case .tracking(let interval), .powerSave(let interval): interval
        }
    }

    init(mode: PowerMode, fixInterval: Duration) {
        self = ReceiverControlConfiguration.powerSaveInterval(for: mode).map { .powerSave($0) } ?? .tracking(fixInterval)
    }

    /// The setting a receiver outputting every `interval` is in: tracking at the fix interval, else power save.
    init(outputInterval interval: Duration, fixInterval: Duration) {
        self = interval == fixInterval ? .tracking(interval) : .powerSave(interval)
    }

    /// The receiver's state in this setting.
    var state: ReceiverPowerState {
        switch self {
        case .tracking: .tracking
        case .powerSave: .powerSave
        }
    }
}

/// How one receiver family is commanded.
enum ReceiverDialect: Sendable, Hashable {
    /// PMTK packets.
    case mediatek
    /// u-blox M8 and older: CFG-RATE, CFG-RXM, CFG-PM2 (version 2, 48 bytes, from protocol 18; version 1,
    /// 44 bytes, before), RXM-PMREQ.
    case ubloxLegacy(pm2Version2: Bool)
    /// u-blox 9 and 10 (protocol 27+): CFG-VALSET keys, RXM-PMREQ.
    case ubloxKeys

    /// The version query for `model`, with bytes to wake a sleeping receiver first. A MediaTek in standby wakes
    /// on any byte (L80 protocol specification §3.8); a u-blox in backup on an edge on UART RX (`uartrx`
    /// wake-up source), and may lose the first bytes (M8 protocol specification, RXM-PMREQ), hence the 0xFF.
    static func identify(_ model: ReceiverModel) -> ReceiverCommand {
        let mediatek = PMTKCommand.queryRelease.bytes
        let ublox = [UInt8](repeating: 0xFF, count: 8) + UBXCommand.pollVersion.bytes
        let bytes: [UInt8] =
            switch model {
            case .mediatek: Array("\r\n".utf8) + mediatek
            case .ublox: ublox
            case .autodetect, .plain: ublox + Array("\r\n".utf8) + mediatek
            }
        return ReceiverCommand(kind: .identify, bytes: bytes, expectation: .identity, resultingState: nil)
    }

    /// The longest update period u-blox documents cyclic tracking for; longer ones use ON/OFF operation.
    static let longestCyclicPeriod = Duration.seconds(10)

    /// The commands that put a tracking receiver into `profile`, each carrying it.
    func commands(for profile: ReceiverProfile) -> [ReceiverCommand] {
        steps(for: profile).map {
            var step = $0
            step.profile = profile
            return step
        }
    }

    /// How long a MediaTek in periodic standby runs each cycle: 2 s, LOCOSYS's recommended minimum.
    static let mediatekPeriodicRun = Duration.seconds(2)

    /// How long a MediaTek in periodic standby sleeps each cycle of `interval`: the rest of it, 1 s at least.
    static func mediatekPeriodicSleep(interval: Duration) -> Duration {
        max(.seconds(1), interval - mediatekPeriodicRun)
    }

    private func steps(for profile: ReceiverProfile) -> [ReceiverCommand] {
        switch (self, profile) {
        case (.mediatek, .tracking(let interval)):
            return [
                pmtk(.periodic(.normal), .tracking, state: .tracking),
                // The rate says nothing of the mode: only the mode command's acknowledgement makes it tracking.
                pmtk(.fixInterval(milliseconds: Int(interval.milliseconds)), .rate, state: nil),
            ]
        case (.mediatek, .powerSave(let interval)):
            // Periodic standby: 2 s on (LOCOSYS's recommended minimum) and the rest of the interval asleep.
            let run = Int(Self.mediatekPeriodicRun.milliseconds)
            let sleep = Int(Self.mediatekPeriodicSleep(interval: interval).milliseconds)
            let cycle = PMTKDutyCycle(run: run, sleep: sleep, secondRun: 0, secondSleep: 0)
            return [pmtk(.periodic(.periodicStandby(cycle)), .powerSave, state: .powerSave)]
        case (.ubloxLegacy, .tracking(let interval)):
            return [
                ubx(.receiverManagement(powerSave: false), .tracking, state: .tracking),
                ubx(.rate(UBXRate(measurementMilliseconds: UInt16(interval.milliseconds))), .rate, state: nil),
            ]
        case (.ubloxLegacy(let pm2Version2), .powerSave(let interval)):
            // Cyclic tracking for update periods up to about 10 s, ON/OFF operation beyond, as u-blox documents.
            let settings = UBXPowerManagement(
                updatePeriodMilliseconds: UInt32(interval.milliseconds), cyclicTracking: interval <= Self.longestCyclicPeriod,
                version2: pm2Version2)
            return [
                ubx(.powerManagement(settings), .powerSave, state: nil),
                ubx(.receiverManagement(powerSave: true), .powerSave, state: .powerSave),
            ]
        case (.ubloxKeys, .tracking(let interval)):
            return [
                ubx(
                    .setValues(
                        layers: UBXCommand.ramLayer,
                        [UBXConfigValue(key: UBXConfigValue.powerModeKey, value: 0),
                         UBXConfigValue(key: UBXConfigValue.rateMeasurementKey, value: UInt64(interval.milliseconds))]),
                    .tracking, state: .tracking)
            ]
        case (.ubloxKeys, .powerSave(let interval)):
            // In cyclic tracking (PM-OPERATEMODE 2, PSMCT) fixes follow RATE-MEAS; POSUPDATEPERIOD applies to
            // ON/OFF operation (1, PSMOO), which u-blox documents for the longer periods.
            let values =
                interval <= Self.longestCyclicPeriod
                ? [UBXConfigValue(key: UBXConfigValue.powerModeKey, value: 2),
                   UBXConfigValue(key: UBXConfigValue.rateMeasurementKey, value: UInt64(interval.milliseconds))]
                : [UBXConfigValue(key: UBXConfigValue.positionUpdatePeriodKey, value: UInt64(interval.milliseconds / 1000)),
                   UBXConfigValue(key: UBXConfigValue.powerModeKey, value: 1)]
            return [ubx(.setValues(layers: UBXCommand.ramLayer, values), .powerSave, state: .powerSave)]
        }
    }

    /// The commands that put the receiver in the idle state the engine chose (``LocationSource/stop(into:)``),
    /// none for ``ReceiverPowerProfile/IdleState/on``: the receiver keeps tracking and only the port closes.
    ///
    /// Each dialect has one commanded sleep state, and it serves both standby and off: a MediaTek's standby
    /// (`$PMTK161,0`; its backup wakes only on the FORCE_ON pin, which a serial line cannot drive, so its profile
    /// prices off as standby), a u-blox's backup (RXM-PMREQ; between power save and backup a u-blox has no
    /// commanded state, and its profile's standby is never cheaper than backup, so the engine does not choose
    /// it). A step deeper while the receiver is down therefore changes nothing.
    ///
    /// Over a u-blox's own USB port (``ReceiverConnection/nativeUSB``) there is no backup to command: a forced
    /// RXM-PMREQ disables USB (the device vanishes until unplugged) and an unforced one is vetoed while USB is
    /// connected. The receiver waits in the power save of the lowest mode instead, each command acknowledged.
    func sleep(into idle: ReceiverPowerProfile.IdleState, over connection: ReceiverConnection = .uart) -> [ReceiverCommand] {
        guard idle != .on else { return [] }
        switch (self, connection) {
        case (.ubloxLegacy, .nativeUSB), (.ubloxKeys, .nativeUSB):
            let interval = ReceiverControlConfiguration.powerSaveInterval(for: .lowest) ?? .seconds(60)
            return commands(for: .powerSave(interval)).map {
                var step = $0
                step.isSleep = true
                return step
            }
        case (.mediatek, _), (.ubloxLegacy, .uart), (.ubloxKeys, .uart):
            return [sleep]
        }
    }

    /// The dialect's one sleep command over a UART (see ``sleep(into:over:)``).
    var sleep: ReceiverCommand {
        switch self {
        case .mediatek:
            ReceiverCommand(
                kind: .standby, bytes: PMTKCommand.standby.bytes, expectation: .pmtkAcknowledgementOrSilence(161),
                resultingState: .standby, isSleep: true)
        case .ubloxLegacy, .ubloxKeys:
            ReceiverCommand(
                kind: .backup, bytes: UBXCommand.powerManagementRequest(.backupUntilWoken).bytes, expectation: .silence,
                resultingState: .backup, isSleep: true)
        }
    }

    private func pmtk(_ command: PMTKCommand, _ kind: ReceiverCommand.Kind, state: ReceiverPowerState?) -> ReceiverCommand {
        ReceiverCommand(kind: kind, bytes: command.bytes, expectation: .pmtkAcknowledgement(command.packet.type), resultingState: state)
    }

    private func ubx(_ command: UBXCommand, _ kind: ReceiverCommand.Kind, state: ReceiverPowerState?) -> ReceiverCommand {
        let frame = command.frame
        return ReceiverCommand(
            kind: kind, bytes: frame.bytes, expectation: .ubxAcknowledgement(frame.messageClass, frame.messageID), resultingState: state)
    }
}

extension Duration {
    /// Whole milliseconds (saturating).
    var milliseconds: Int64 { saturatingNanoseconds / 1_000_000 }
}

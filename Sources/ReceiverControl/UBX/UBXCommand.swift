/// The u-blox commands a power-aware driver sends, and that the synthetic u-blox receiver reads back.
///
/// Layouts from the u-blox 8 / u-blox M8 Receiver Description including Protocol Specification
/// (UBX-13003221): UBX-RXM-PMREQ (§32.18.2), UBX-CFG-RATE (§32.10.27), UBX-CFG-RXM (§32.10.29), UBX-CFG-PM2
/// (§32.10.22), UBX-CFG-PMS (§32.10.23), UBX-MON-VER (§32.16.20); UBX-CFG-VALSET and its keys from the
/// u-blox 9 interface description (ZED-F9P UBX-18010854 §5.9.27 and §6). CFG messages are answered by
/// UBX-ACK-ACK or UBX-ACK-NAK; RXM-PMREQ is a command the receiver obeys without answering.
public enum UBXCommand: Sendable, Hashable {
    /// UBX-MON-VER poll (`B5 62 0A 04 00 00 0E 34`): the receiver answers with its versions (``UBXVersion``).
    case pollVersion
    /// UBX-RXM-PMREQ: enter backup for a duration (0: until woken).
    case powerManagementRequest(UBXPowerRequest)
    /// UBX-CFG-RATE: the measurement period.
    case rate(UBXRate)
    /// UBX-CFG-RXM: continuous (`false`) or power-save (`true`) operation, the M8's `lpMode` 0 or 1.
    case receiverManagement(powerSave: Bool)
    /// UBX-CFG-PM2: the parameters of power-save operation.
    case powerManagement(UBXPowerManagement)
    /// UBX-CFG-PMS: a power setup preset (protocol 18 and later).
    case powerSetup(UBXPowerSetup)
    /// UBX-CFG-VALSET: configuration items by key (u-blox 9 and later, protocol 27+).
    case setValues(layers: UInt8, [UBXConfigValue])

    /// The class and id of each command.
    public static let monVer: (UInt8, UInt8) = (0x0A, 0x04)
    static let rxmPmreq: (UInt8, UInt8) = (0x02, 0x41)
    static let cfgRate: (UInt8, UInt8) = (0x06, 0x08)
    static let cfgRxm: (UInt8, UInt8) = (0x06, 0x11)
    static let cfgPm2: (UInt8, UInt8) = (0x06, 0x3B)
    static let cfgPms: (UInt8, UInt8) = (0x06, 0x86)
    static let cfgValset: (UInt8, UInt8) = (0x06, 0x8A)

    /// The RAM layer of CFG-VALSET (the setting lasts until power-off).
    public static let ramLayer: UInt8 = 0x01

    /// The frame that carries the command.
    public var frame: UBXFrame {
        switch self {
        case .pollVersion:
            return UBXFrame(messageClass: Self.monVer.0, messageID: Self.monVer.1)
        case .powerManagementRequest(let request):
            var payload: [UInt8] = [0, 0, 0, 0]
            payload.appendLittleEndian(UInt64(request.durationMilliseconds), count: 4)
            payload.appendLittleEndian(UInt64(request.flags), count: 4)
            payload.appendLittleEndian(UInt64(request.wakeupSources), count: 4)
            return UBXFrame(messageClass: Self.rxmPmreq.0, messageID: Self.rxmPmreq.1, payload: payload)
        case .rate(let rate):
            var payload: [UInt8] = []
            payload.appendLittleEndian(UInt64(rate.measurementMilliseconds), count: 2)
            payload.appendLittleEndian(UInt64(rate.navigationRate), count: 2)
            payload.appendLittleEndian(UInt64(rate.timeReference), count: 2)
            return UBXFrame(messageClass: Self.cfgRate.0, messageID: Self.cfgRate.1, payload: payload)
        case .receiverManagement(let powerSave):
            return UBXFrame(messageClass: Self.cfgRxm.0, messageID: Self.cfgRxm.1, payload: [0x08, powerSave ? 1 : 0])
        case .powerManagement(let settings):
            return UBXFrame(messageClass: Self.cfgPm2.0, messageID: Self.cfgPm2.1, payload: settings.payload)
        case .powerSetup(let setup):
            var payload: [UInt8] = [0, setup.value]
            payload.appendLittleEndian(UInt64(setup.periodSeconds), count: 2)
            payload.appendLittleEndian(UInt64(setup.onTimeSeconds), count: 2)
            payload += [0, 0]
            return UBXFrame(messageClass: Self.cfgPms.0, messageID: Self.cfgPms.1, payload: payload)
        case .setValues(let layers, let values):
            var payload: [UInt8] = [0, layers, 0, 0]
            for value in values {
                payload.appendLittleEndian(UInt64(value.key), count: 4)
                payload.appendLittleEndian(value.value, count: value.size)
            }
            return UBXFrame(messageClass: Self.cfgValset.0, messageID: Self.cfgValset.1, payload: payload)
        }
    }

    /// The bytes written to the receiver.
    public var bytes: [UInt8] { frame.bytes }

    /// The command a frame carries.
    /// - Throws: ``ReceiverReplyError/unknownMessage`` for other messages, `wrongPayloadLength` for bad lengths.
    public init(_ frame: UBXFrame) throws(ReceiverReplyError) {
        let payload = frame.payload
        func expect(_ lengths: Int...) throws(ReceiverReplyError) {
            guard lengths.contains(payload.count) else {
                throw .wrongPayloadLength(expected: lengths.map(String.init).joined(separator: " or "), actual: payload.count)
            }
        }
        switch (frame.messageClass, frame.messageID) {
        case (0x0A, 0x04):
            try expect(0)
            self = .pollVersion
        case (0x02, 0x41):
            try expect(8, 16)
            let base = payload.count == 16 ? 4 : 0
            self = .powerManagementRequest(
                UBXPowerRequest(
                    durationMilliseconds: UInt32(payload.littleEndian(at: base, count: 4)),
                    flags: UInt32(payload.littleEndian(at: base + 4, count: 4)),
                    wakeupSources: payload.count == 16 ? UInt32(payload.littleEndian(at: 12, count: 4)) : 0))
        case (0x06, 0x08):
            try expect(6)
            self = .rate(
                UBXRate(
                    measurementMilliseconds: UInt16(payload.littleEndian(at: 0, count: 2)),
                    navigationRate: UInt16(payload.littleEndian(at: 2, count: 2)),
                    timeReference: UInt16(payload.littleEndian(at: 4, count: 2))))
        case (0x06, 0x11):
            try expect(2)
            guard payload[1] == 0 || payload[1] == 1 || payload[1] == 4 else { throw .invalidField("lpMode") }
            self = .receiverManagement(powerSave: payload[1] == 1)
        case (0x06, 0x3B):
            try expect(44, 48)
            self = .powerManagement(UBXPowerManagement(payload: payload))
        case (0x06, 0x86):
            try expect(8)
            self = .powerSetup(
                UBXPowerSetup(
                    value: payload[1], periodSeconds: UInt16(payload.littleEndian(at: 2, count: 2)),
                    onTimeSeconds: UInt16(payload.littleEndian(at: 4, count: 2))))
        case (0x06, 0x8A):
            guard payload.count >= 4 else { throw .wrongPayloadLength(expected: "at least 4", actual: payload.count) }
            var values: [UBXConfigValue] = []
            var offset = 4
            while offset < payload.count {
                guard offset + 4 <= payload.count, values.count < 64 else { throw .invalidField("VALSET items") }
                let key = UInt32(payload.littleEndian(at: offset, count: 4))
                let size = UBXConfigValue.size(ofKey: key)
                guard size > 0, offset + 4 + size <= payload.count else { throw .invalidField("VALSET key \(key)") }
                values.append(UBXConfigValue(key: key, value: payload.littleEndian(at: offset + 4, count: size)))
                offset += 4 + size
            }
            self = .setValues(layers: payload[1], values)
        default:
            throw .unknownMessage
        }
    }
}

/// The parameters of UBX-RXM-PMREQ (version 0, 16 bytes).
public struct UBXPowerRequest: Sendable, Hashable {
    /// How long the task lasts, ms; 0 is until woken (the maximum supported is 12 days).
    public var durationMilliseconds: UInt32
    /// Task flags: `backup` (bit 1) and `force` (bit 2: backup even while USB is connected).
    public var flags: UInt32
    /// Pins whose edge wakes the receiver: `uartrx` (bit 3), `extint0` (5), `extint1` (6), `spics` (7).
    public var wakeupSources: UInt32

    /// The `backup` flag.
    public static let backupFlag: UInt32 = 0x02
    /// The `force` flag.
    public static let forceFlag: UInt32 = 0x04
    /// Wake on an edge of the UART RX pin.
    public static let wakeOnUARTRX: UInt32 = 0x08

    /// A request.
    public init(durationMilliseconds: UInt32, flags: UInt32, wakeupSources: UInt32) {
        self.durationMilliseconds = durationMilliseconds
        self.flags = flags
        self.wakeupSources = wakeupSources
    }

    /// Backup until a byte arrives on the UART (forced, so that a USB connection does not veto it).
    public static let backupUntilWoken = UBXPowerRequest(
        durationMilliseconds: 0, flags: backupFlag | forceFlag, wakeupSources: wakeOnUARTRX)

    /// Whether the request asks for backup.
    public var isBackup: Bool { flags & Self.backupFlag != 0 }
}

/// The parameters of UBX-CFG-RATE.
public struct UBXRate: Sendable, Hashable {
    /// The measurement period, ms (1000 is 1 Hz).
    public var measurementMilliseconds: UInt16
    /// Measurements per navigation solution (1).
    public var navigationRate: UInt16
    /// The time system the measurements align to: 0 UTC, 1 GPS.
    public var timeReference: UInt16

    /// A rate; one navigation solution per measurement, aligned to GPS time.
    public init(measurementMilliseconds: UInt16, navigationRate: UInt16 = 1, timeReference: UInt16 = 1) {
        self.measurementMilliseconds = measurementMilliseconds
        self.navigationRate = navigationRate
        self.timeReference = timeReference
    }
}

/// A UBX-CFG-PMS power setup.
public struct UBXPowerSetup: Sendable, Hashable {
    /// `powerSetupValue`: 0 full power, 1 balanced, 2 interval, 3–5 aggressive at 1/2/4 Hz.
    public var value: UInt8
    /// The period for the interval setup, s.
    public var periodSeconds: UInt16
    /// The on-time for the interval setup, s.
    public var onTimeSeconds: UInt16

    /// A setup.
    public init(value: UInt8, periodSeconds: UInt16 = 0, onTimeSeconds: UInt16 = 0) {
        self.value = value
        self.periodSeconds = periodSeconds
        self.onTimeSeconds = onTimeSeconds
    }
}

/// One CFG-VALSET item: a 32-bit key whose bits 28–30 give the value's size.
public struct UBXConfigValue: Sendable, Hashable {
    /// The key id.
    public var key: UInt32
    /// The value (only the key's size is sent).
    public var value: UInt64

    /// CFG-RATE-MEAS (U2, ms).
    public static let rateMeasurementKey: UInt32 = 0x3021_0001
    /// CFG-PM-OPERATEMODE (E1: 0 full power, 1 PSMOO on/off, 2 PSMCT cyclic tracking).
    public static let powerModeKey: UInt32 = 0x20D0_0001
    /// CFG-PM-POSUPDATEPERIOD (U4, s).
    public static let positionUpdatePeriodKey: UInt32 = 0x40D0_0002

    /// An item.
    public init(key: UInt32, value: UInt64) {
        self.key = key
        self.value = value
    }

    /// The value's size in bytes.
    public var size: Int { Self.size(ofKey: key) }

    /// The size the key's bits 28–30 give: 1 (one bit, stored in a byte), 1, 2, 4 or 8; 0 if invalid.
    public static func size(ofKey key: UInt32) -> Int {
        switch (key >> 28) & 0x7 {
        case 1, 2: 1
        case 3: 2
        case 4: 4
        case 5: 8
        default: 0
        }
    }
}

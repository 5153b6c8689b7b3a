/// The parameters of UBX-CFG-PM2, the M8's power-save settings: version 1 (44 bytes) for protocols 15 to 17,
/// version 2 (48 bytes) for protocol 18 and later.
///
/// Offsets (u-blox M8 protocol specification, UBX-CFG-PM2): version U1 at 0, reserved 1–3, flags X4 at 4,
/// updatePeriod U4 (ms) at 8, searchPeriod U4 (ms) at 12, gridOffset U4 (ms) at 16, onTime U2 (s) at 20,
/// minAcqTime U2 (s) at 22, then 20 reserved bytes; version 2 adds extintInactivityMs U4 at 44. Flags: updateRTC (bit 11), updateEPH (bit 12),
/// doNotEnterOff (bit 16), mode (bits 17–18: 0 ON/OFF operation, 1 cyclic tracking).
public struct UBXPowerManagement: Sendable, Hashable {
    /// The time between position fixes in power-save operation, ms.
    public var updatePeriodMilliseconds: UInt32
    /// The time between acquisition attempts when no fix could be had, ms.
    public var searchPeriodMilliseconds: UInt32
    /// How long to stay in tracking after a fix, s.
    public var onTimeSeconds: UInt16
    /// Cyclic tracking (`true`) or ON/OFF operation (`false`).
    public var cyclicTracking: Bool
    /// Whether the message is version 2 (48 bytes, protocol 18 and later) rather than version 1 (44 bytes,
    /// protocols 15 to 17): the layout the receiver's protocol version documents.
    public var isVersion2: Bool
    /// The raw flags as sent (the mode and the update bits are derived from the fields above when built).
    public private(set) var flags: UInt32
    /// Bytes beyond the documented fields, kept as read (a 48-byte version 2 message has four more).
    private var reserved: [UInt8]

    static let updateRTC: UInt32 = 1 << 11
    static let updateEphemerides: UInt32 = 1 << 12
    static let cyclicMode: UInt32 = 1 << 17

    /// Settings with ephemeris and RTC updates on.
    public init(updatePeriodMilliseconds: UInt32, searchPeriodMilliseconds: UInt32 = 10_000, onTimeSeconds: UInt16 = 0,
        cyclicTracking: Bool, version2: Bool = false)
    {
        self.updatePeriodMilliseconds = updatePeriodMilliseconds
        self.searchPeriodMilliseconds = searchPeriodMilliseconds
        self.onTimeSeconds = onTimeSeconds
        self.cyclicTracking = cyclicTracking
        self.isVersion2 = version2
        self.flags = Self.updateRTC | Self.updateEphemerides | (cyclicTracking ? Self.cyclicMode : 0)
        self.reserved = Array(repeating: 0, count: version2 ? 24 : 20)
    }

    /// Reads a 44- or 48-byte payload (the caller checked the length).
    init(payload: [UInt8]) {
        flags = UInt32(payload.littleEndian(at: 4, count: 4))
        updatePeriodMilliseconds = UInt32(payload.littleEndian(at: 8, count: 4))
        searchPeriodMilliseconds = UInt32(payload.littleEndian(at: 12, count: 4))
        onTimeSeconds = UInt16(payload.littleEndian(at: 20, count: 2))
        cyclicTracking = (flags >> 17) & 0x3 == 1
        isVersion2 = payload.count == 48
        reserved = Array(payload[24...])
    }

    /// The payload: version 1 (44 bytes) or version 2 (48 bytes: the same fields, then
    /// `extintInactivityMs`, zero).
    var payload: [UInt8] {
        var payload: [UInt8] = [isVersion2 ? 0x02 : 0x01, 0, 0, 0]
        payload.appendLittleEndian(UInt64(flags), count: 4)
        payload.appendLittleEndian(UInt64(updatePeriodMilliseconds), count: 4)
        payload.appendLittleEndian(UInt64(searchPeriodMilliseconds), count: 4)
        payload.appendLittleEndian(0, count: 4)
        payload.appendLittleEndian(UInt64(onTimeSeconds), count: 2)
        payload.appendLittleEndian(0, count: 2)
        let extra = isVersion2 ? 24 : 20
        payload += Array(reserved.prefix(extra)) + Array(repeating: 0, count: max(0, extra - reserved.count))
        return payload
    }
}

/// The MediaTek commands a power-aware driver sends, and that the synthetic MTK receiver reads back.
///
/// Packet types and the examples quoted below are from the MTK NMEA packet manuals (Quectel L80 GPS Protocol
/// Specification §3.8, §3.13, §3.25; GlobalTop PMTK command packet Rev. A08, packet 225; LOCOSYS LS20031
/// (MT3339) data sheet §5.3 for the periodic-mode flow). Every command is answered by `$PMTK001,<type>,<flag>`
/// (see ``PMTKReply``), except that some firmware stops talking at once on ``standby`` instead of
/// acknowledging it (the Fastrax MTK manual documents "Reply: None – receiver stop output").
public enum PMTKCommand: Sendable, Hashable {
    /// `$PMTK000*32`: test packet, answered `$PMTK001,0,3*30`.
    case test
    /// `$PMTK101*32`: hot restart (all data kept).
    case hotRestart
    /// `$PMTK102*31`: warm restart (ephemerides dropped).
    case warmRestart
    /// `$PMTK103*30`: cold restart (almanac, time and position dropped too).
    case coldRestart
    /// `$PMTK161,0*28`: standby ("stop mode"); any byte on the receiver's RX pin wakes it.
    case standby
    /// `$PMTK220,<ms>`: the position fix interval, 100–10 000 ms (`$PMTK220,1000*1F` is 1 Hz).
    case fixInterval(milliseconds: Int)
    /// `$PMTK225,…`: normal, periodic or AlwaysLocate operation.
    case periodic(PMTKPeriodicMode)
    /// `$PMTK605*31`: query the firmware release, answered by `$PMTK705` (``PMTKRelease``).
    case queryRelease

    /// The fix interval range the firmware accepts.
    public static let fixIntervalRange = 100...10_000

    /// The packet that carries the command.
    public var packet: PMTKPacket {
        switch self {
        case .test: PMTKPacket(type: 0)
        case .hotRestart: PMTKPacket(type: 101)
        case .warmRestart: PMTKPacket(type: 102)
        case .coldRestart: PMTKPacket(type: 103)
        case .standby: PMTKPacket(type: 161, fields: ["0"])
        case .fixInterval(let milliseconds): PMTKPacket(type: 220, fields: [String(milliseconds)])
        case .periodic(let mode): PMTKPacket(type: 225, fields: mode.fields)
        case .queryRelease: PMTKPacket(type: 605)
        }
    }

    /// The bytes written to the receiver, checksum and CR LF included.
    public var bytes: [UInt8] { packet.bytes }

    /// The command a packet carries.
    /// - Throws: ``ReceiverReplyError/unknownMessage`` for other packet types, `invalidField` for values out of range.
    public init(_ packet: PMTKPacket) throws(ReceiverReplyError) {
        switch (packet.type, packet.fields.count) {
        case (0, 0): self = .test
        case (101, 0): self = .hotRestart
        case (102, 0): self = .warmRestart
        case (103, 0): self = .coldRestart
        case (161, 1) where packet.fields[0] == "0": self = .standby
        case (220, 1):
            guard let milliseconds = Int(packet.fields[0]), Self.fixIntervalRange.contains(milliseconds) else {
                throw .invalidField("fix interval")
            }
            self = .fixInterval(milliseconds: milliseconds)
        case (225, _): self = .periodic(try PMTKPeriodicMode(fields: packet.fields))
        case (605, 0): self = .queryRelease
        default: throw .unknownMessage
        }
    }
}

/// The operation `$PMTK225` selects.
public enum PMTKPeriodicMode: Sendable, Hashable {
    /// `$PMTK225,0*2B`: back to normal (continuous) operation.
    case normal
    /// `$PMTK225,2,run,sleep,secondRun,secondSleep`: periodic standby; the vendor example
    /// `$PMTK225,2,3000,12000,18000,72000*15` runs 3 s, then sleeps 12 s (18 s / 72 s while it has no fix).
    case periodicStandby(PMTKDutyCycle)
    /// `$PMTK225,1,…`: periodic backup (same times; sleeps in backup, so only a hardware pin or the timer wakes it).
    case periodicBackup(PMTKDutyCycle)
    /// `$PMTK225,8*23`: AlwaysLocate with standby.
    case alwaysLocateStandby
    /// `$PMTK225,9*22`: AlwaysLocate with backup.
    case alwaysLocateBackup

    /// The data fields after the type.
    var fields: [String] {
        switch self {
        case .normal: ["0"]
        case .periodicStandby(let cycle): ["2"] + cycle.fields
        case .periodicBackup(let cycle): ["1"] + cycle.fields
        case .alwaysLocateStandby: ["8"]
        case .alwaysLocateBackup: ["9"]
        }
    }

    init(fields: [String]) throws(ReceiverReplyError) {
        switch fields.first {
        case "0" where fields.count == 1: self = .normal
        case "8" where fields.count == 1: self = .alwaysLocateStandby
        case "9" where fields.count == 1: self = .alwaysLocateBackup
        case "1" where fields.count == 5: self = .periodicBackup(try PMTKDutyCycle(fields: fields.dropFirst()))
        case "2" where fields.count == 5: self = .periodicStandby(try PMTKDutyCycle(fields: fields.dropFirst()))
        default: throw .invalidField("periodic mode")
        }
    }
}

/// The on/off times of a MediaTek periodic mode, in milliseconds.
public struct PMTKDutyCycle: Sendable, Hashable {
    /// Time in full operation per cycle (the vendor minimum is 1000 ms; LOCOSYS recommends at least 2000).
    public var run: Int
    /// Time asleep per cycle.
    public var sleep: Int
    /// Time in full operation per cycle while the receiver has no fix (0: as `run`).
    public var secondRun: Int
    /// Time asleep per cycle while the receiver has no fix (0: as `sleep`).
    public var secondSleep: Int

    /// The range of each time the firmware accepts (Quectel MC60 hardware design, table 11): 1 s to 6 days.
    public static let timeRange = 1000...518_400_000

    /// A duty cycle; the second times default to the first.
    public init(run: Int, sleep: Int, secondRun: Int = 0, secondSleep: Int = 0) {
        self.run = run
        self.sleep = sleep
        self.secondRun = secondRun
        self.secondSleep = secondSleep
    }

    var fields: [String] { [run, sleep, secondRun, secondSleep].map(String.init) }

    init(fields: ArraySlice<String>) throws(ReceiverReplyError) {
        let values = fields.compactMap { Int($0) }
        guard values.count == 4, Self.timeRange.contains(values[0]), Self.timeRange.contains(values[1]),
            values[2] == 0 || Self.timeRange.contains(values[2]), values[3] == 0 || Self.timeRange.contains(values[3])
        else { throw .invalidField("periodic times") }
        self.init(run: values[0], sleep: values[1], secondRun: values[2], secondSleep: values[3])
    }
}

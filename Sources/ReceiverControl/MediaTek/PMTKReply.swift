/// What a MediaTek receiver says back: acknowledgements, its firmware release, and start-up messages.
///
/// Formats from the Quectel L80 GPS Protocol Specification (§3.1 `PMTK010`, §3.2 `PMTK011`, §3.30 `PMTK705`)
/// and the MTK packet manuals (`PMTK001`: "Flag: 0 invalid packet, 1 unsupported packet type, 2 valid packet
/// but action failed, 3 valid packet and action succeeded").
public enum PMTKReply: Sendable, Hashable {
    /// `$PMTK001,<type>,<flag>[,…]`: the answer to the command of packet type `command`.
    case acknowledgement(command: Int, flag: PMTKAcknowledgementFlag)
    /// `$PMTK705,<release>,<build>,<model>[,<sdk>]`: the answer to `$PMTK605`.
    case release(PMTKRelease)
    /// `$PMTK010,<message>`: a system message (`001` start-up, `003` back to normal operation).
    case systemMessage(Int)
    /// `$PMTK011,<text>`: a text message (`MTKGPS` at start-up).
    case text(String)

    /// The reply a packet carries.
    /// - Throws: ``ReceiverReplyError/unknownMessage`` for packets that are not replies, `invalidField` for bad values.
    public init(_ packet: PMTKPacket) throws(ReceiverReplyError) {
        switch packet.type {
        case 1:
            guard packet.fields.count >= 2, let command = Int(packet.fields[0]), (0...999).contains(command),
                let raw = Int(packet.fields[1]), let flag = PMTKAcknowledgementFlag(rawValue: raw)
            else { throw .invalidField("acknowledgement") }
            self = .acknowledgement(command: command, flag: flag)
        case 705:
            guard packet.fields.count >= 1, !packet.fields[0].isEmpty else { throw .invalidField("release") }
            self = .release(
                PMTKRelease(
                    release: packet.fields[0], buildID: packet.fields.count > 1 ? packet.fields[1] : "",
                    model: packet.fields.count > 2 ? packet.fields[2] : ""))
        case 10:
            guard packet.fields.count == 1, let message = Int(packet.fields[0]), (0...999).contains(message) else {
                throw .invalidField("system message")
            }
            self = .systemMessage(message)
        case 11:
            self = .text(packet.fields.joined(separator: ","))
        default:
            throw .unknownMessage
        }
    }

    /// The packet that carries the reply (what the synthetic MTK receiver writes).
    public var packet: PMTKPacket {
        switch self {
        case .acknowledgement(let command, let flag): PMTKPacket(type: 1, fields: [String(command), String(flag.rawValue)])
        case .release(let release): PMTKPacket(type: 705, fields: [release.release, release.buildID, release.model, ""])
        case .systemMessage(let message): PMTKPacket(type: 10, fields: [threeDigits(message)])
        case .text(let text): PMTKPacket(type: 11, fields: [text])
        }
    }
}

/// The flag of a `$PMTK001` acknowledgement.
public enum PMTKAcknowledgementFlag: Int, Sendable, Hashable {
    /// `0`: the packet was invalid.
    case invalidPacket = 0
    /// `1`: the packet type is not supported by this firmware.
    case unsupported = 1
    /// `2`: the packet was valid, but the action failed.
    case failed = 2
    /// `3`: the packet was valid and the action succeeded.
    case succeeded = 3
}

/// A MediaTek firmware release (`$PMTK705`), e.g. `AXN_3.10_3333_12102201`, build `0000`, model `QUECTEL-L80`.
public struct PMTKRelease: Sendable, Hashable {
    /// The release string (`AXN_x.x` for MT3329/MT3339 firmware, `Mcore_x.x` for MT3318).
    public var release: String
    /// The build identifier.
    public var buildID: String
    /// The product model.
    public var model: String

    /// A release.
    public init(release: String, buildID: String, model: String) {
        self.release = release
        self.buildID = buildID
        self.model = model
    }
}

/// `value` with at least three digits (`1` → `001`).
func threeDigits(_ value: Int) -> String {
    let digits = String(value)
    return String(repeating: "0", count: max(0, 3 - digits.count)) + digits
}

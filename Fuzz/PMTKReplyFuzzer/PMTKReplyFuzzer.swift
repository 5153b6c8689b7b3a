import LocationEngine
@testable import LocationSources
import ReceiverControl

/// One libFuzzer run of the MediaTek side of a receiver's byte stream: the splitter, the PMTK packet parser,
/// the reply and command decoders, and the driver that consumes the replies.
///
/// Invariants: no crash, no hang; every packet parsed re-encodes to a sentence that parses to the same packet;
/// every reply and command re-encodes to a packet that decodes to the same value.
func fuzzPMTKReplies(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let data, size > 0 else { return 0 }
    let bytes = UnsafeBufferPointer(start: data, count: size)
    var splitter = ReceiverStreamSplitter()
    var driver = ReceiverDriverStateMachine(configuration: ReceiverControlConfiguration(model: .mediatek))
    _ = driver.start(mode: .high, now: .zero)
    _ = driver.linkOpened(now: .zero)
    var now = Duration.zero
    let maximumLineLength = splitter.maximumLineLength
    splitter.feed(bytes) { piece in
        now += .milliseconds(10)
        guard case .line(let line) = piece else { return }
        precondition(line.count <= maximumLineLength, "a line over the bound")
        guard let packet = try? PMTKPacket.parse(line) else {
            _ = driver.received(.garbled, now: now)
            return
        }
        precondition((try? PMTKPacket.parse(packet.bytes)) == packet, "a packet does not round-trip")
        if let reply = try? PMTKReply(packet) {
            precondition((try? PMTKReply(reply.packet)) != nil, "a reply does not re-encode")
            _ = driver.received(.pmtk(reply), now: now)
        }
        if let command = try? PMTKCommand(packet) {
            precondition((try? PMTKCommand(command.packet)) == command, "a command does not round-trip")
        }
    }
    _ = driver.setMode(.low, now: now + .seconds(1))
    _ = driver.deadline(1, now: now + .seconds(5))
    _ = driver.stop(now: now + .seconds(6))
    return 0
}

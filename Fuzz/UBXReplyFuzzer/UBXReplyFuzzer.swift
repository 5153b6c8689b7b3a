import LocationEngine
@testable import LocationSources
import ReceiverControl

/// One libFuzzer run of the UBX side of a receiver's byte stream: the splitter, the frame, reply and command
/// decoders, and the driver that consumes the replies.
///
/// Invariants: no crash, no hang, bounded buffering; every frame handed out re-encodes to the bytes it was read
/// from (checksum included); every decoded reply or command re-encodes to a frame that decodes to the same value.
func fuzzUBXReplies(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let data, size > 0 else { return 0 }
    let bytes = UnsafeBufferPointer(start: data, count: size)
    var splitter = ReceiverStreamSplitter()
    var driver = ReceiverDriverStateMachine(configuration: ReceiverControlConfiguration(model: .ublox))
    _ = driver.start(mode: .high, now: .zero)
    _ = driver.linkOpened(now: .zero)
    var now = Duration.zero
    splitter.feed(bytes) { piece in
        now += .milliseconds(10)
        switch piece {
        case .ubx(let frame):
            precondition(frame.payload.count <= UBXFrame.maximumPayloadLength, "oversized frame")
            precondition((try? UBXFrame.decode(frame.bytes)) == frame, "a frame does not round-trip")
            if let reply = try? UBXReply(frame) {
                precondition((try? UBXReply(UBXFrame.decode(reply.frame.bytes))) != nil, "a reply does not re-encode")
                _ = driver.received(.ubx(reply), now: now)
            } else {
                _ = driver.received(.output(fromUBX: true), now: now)
            }
            if let command = try? UBXCommand(frame) {
                precondition((try? UBXCommand(UBXFrame.decode(command.bytes))) != nil, "a command does not re-encode")
            }
        case .garbledFrame:
            _ = driver.received(.garbled, now: now)
        case .line:
            _ = driver.received(.output(fromUBX: false), now: now)
        }
    }
    precondition(splitter.bufferedByteCount <= UBXFrame.maximumPayloadLength + 8, "unbounded buffering")
    _ = driver.deadline(1, now: now + .seconds(5))
    _ = driver.stop(now: now + .seconds(6))
    return 0
}

import NIOCore
import NIOPosix
import Testing
import TestSupport

@testable import LocationSources

/// How a TCP link closes: its output shut once what it wrote is on its way, then, whatever the peer does, closed.
struct ChannelLinkClosingTests {
    @Test("a TCP link whose peer stopped reading still closes: what it cannot write does not hold it open past its grace")
    func aLinkToAPeerThatReadsNothingCloses() async throws {
        let peer = try await TestTCPServer.start(reading: false)
        let closed = Observed(false)
        let opener = TCPLinkOpener(host: "127.0.0.1", port: peer.port, role: "test peer", connectTimeout: .seconds(5), troubleshootingHint: "")
        let events = LinkEvents(received: { _ in nil }, closed: { _ in closed.update { $0 = true } })
        let link = try await opener.open(on: MultiThreadedEventLoopGroup.singleton.next(), framing: .bytes, events: events).get()
        // Far more than the two sockets' buffers hold: most of it stays pending in the link.
        link.send(ByteBuffer(repeating: 0x41, count: 32 << 20), failed: nil)
        link.close(farewell: nil)
        try await withDeadline(seconds: 30) { await closed.waitUntil { $0 } }
        await peer.close()
    }

    @Test("a TCP link probes a silent peer within half a minute (keepalive after 10 s, every 5 s, 3 unanswered), not the kernel's two hours")
    func aTCPLinkProbesASilentPeerSoon() async throws {
        let peer = try await TestTCPServer.start(reading: false)
        let opener = TCPLinkOpener(host: "127.0.0.1", port: peer.port, role: "test peer", connectTimeout: .seconds(5), troubleshootingHint: "")
        let events = LinkEvents(received: { _ in nil }, closed: { _ in })
        let link = try await opener.open(on: MultiThreadedEventLoopGroup.singleton.next(), framing: .bytes, events: events).get()
        let channel = try #require(link as? ChannelLink).channel
        #expect(try await channel.getOption(.socketOption(.so_keepalive)).get() != 0)
        #expect(try await channel.getOption(TCPLinkOpener.keepaliveIdle).get() == 10)
        #expect(try await channel.getOption(TCPLinkOpener.keepaliveInterval).get() == 5)
        #expect(try await channel.getOption(TCPLinkOpener.keepaliveCount).get() == 3)
        link.close(farewell: nil)
        await peer.close()
    }
}

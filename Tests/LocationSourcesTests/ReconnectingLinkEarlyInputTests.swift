import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import Testing
import TestSupport

@testable import LocationSources

/// A connection's first bytes can arrive before the future of its connect completes (NIO's connect settles
/// after the channel has read, on a busy loop): a peer that speaks at once, as a fake gpsd or a gpsd already
/// streaming does. The source must still see them after the link has opened, and be able to answer them.
struct ReconnectingLinkEarlyInputTests {
    /// Opens links that deliver `lines` before their open's future completes.
    private struct EarlySpeakingOpener: LinkOpener {
        let lines: [String]
        let sent: Observed<[String]>
        var endpointDescription: String { "a peer that speaks first" }
        var troubleshootingHint: String { "" }
        var isFinite: Bool { false }

        func open(on eventLoop: any EventLoop, framing: LinkFraming, events: LinkEvents) -> EventLoopFuture<any StreamLink> {
            let promise = eventLoop.makePromise(of: (any StreamLink).self)
            let (lines, sent) = (lines, sent)
            eventLoop.execute {
                for line in lines { _ = events.received(.line(ByteBuffer(string: line))) }
                promise.succeed(RecordingLink(sent: sent))
            }
            return promise.futureResult
        }
    }

    private struct RecordingLink: StreamLink {
        let sent: Observed<[String]>
        func send(_ bytes: ByteBuffer, failed: (@Sendable (any Error) -> Void)?) { sent.update { $0.append(String(buffer: bytes)) } }
        func close(farewell: ByteBuffer?) {}
    }

    @Test("input that comes before the link has seen its open is handed on after the open, in order, and can be answered")
    func inputBeforeTheOpenIsHeldUntilItAndAnswerable() async throws {
        let sent = Observed<[String]>([])
        let seen = Observed<[String]>([])
        let linkBox = NIOLockedValueBox<ReconnectingLink?>(nil)
        let link = ReconnectingLink(
            opener: EarlySpeakingOpener(lines: ["first", "second"], sent: sent),
            framing: .lines(maximumLength: 100),
            policy: ReconnectPolicy(),
            eventLoop: MultiThreadedEventLoopGroup.singleton.next(),
            greeting: ByteBuffer(string: "hello"),
            onInput: { input in
                guard case .line(let line) = input else { return LinkInputOutcome(understood: false) }
                let text = String(buffer: line)
                // Answered as a source answers a report: on the link, at once.
                let answered = linkBox.withLockedValue { $0 }?.send(ByteBuffer(string: "re: \(text)")) ?? false
                seen.update { $0.append(answered ? "\(text) (answered)" : "\(text) (no link to answer on)") }
                return LinkInputOutcome(understood: true)
            },
            onReport: { report in
                if case .opened = report { seen.update { $0.append("opened") } }
            })
        linkBox.withLockedValue { $0 = link }
        link.start()
        try await withDeadline(seconds: 30) { await seen.waitUntil { $0.count == 3 } }
        #expect(seen.value == ["opened", "first (answered)", "second (answered)"])
        #expect(sent.value == ["hello", "re: first", "re: second"], "the greeting first, then the answers")
        link.stop()
    }
}

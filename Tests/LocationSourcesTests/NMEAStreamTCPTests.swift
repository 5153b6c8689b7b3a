import Foundation
import LocationEngine
@testable import LocationSources
import NIOCore
import Testing
import TestSupport

/// The NMEA stream source over TCP, against a feed server in the test.
struct NMEAStreamTCPTests {
    @Test func aFeedCutMidSentenceIsReopenedAndEveryEpochIsDeliveredOnce() async throws {
        let stream = SyntheticStream(count: 30)
        let cut = 15
        let half = stream.blocks[cut].prefix(stream.blocks[cut].count / 2 + 3)
        // The first connection stops in the middle of a sentence; the second resumes at that epoch.
        let feed = try await TestTCPServer.start { client in
            if client.number == 1 {
                client.send(stream.blocks[..<cut].joined() + half)
                client.close()
            } else {
                client.send(stream.blocks[cut...].joined())
            }
        }
        let source = NMEAStreamSource(
            configuration: NMEAStreamConfiguration(
                endpoint: .tcp(host: "127.0.0.1", port: feed.port),
                reconnect: ReconnectPolicy(initialDelay: .milliseconds(20), giveUpAfter: .seconds(30))),
            logger: quietLogger())
        let engine = makeEngine(source)
        let expected = stream.fixesByTime
        // The feed stays open after its last epoch: that epoch goes out at the sentence that ends the
        // receiver's cycles, not when a next cycle (or the end of the feed) shows it complete.
        let wanted = expected.count

        let events = try await withDeadline(seconds: 60) {
            try await collect(engine.updates()) { events in events.compactMap(\.location).count >= wanted }
        }
        let fixes = events.compactMap(\.location)
        let times = fixes.compactMap(\.utcTime)
        #expect(times.count == fixes.count)
        #expect(times == times.sorted() && Set(times).count == times.count, "each epoch once, in order")
        #expect(Set(times) == Set(expected.keys))
        for fix in fixes {
            let truth = try #require(expected[fix.utcTime ?? -1])
            #expect(samePosition(fix, truth))
        }
        #expect(events.contains { $0.sourceErrorCode == "nmea.disconnected" }, "the subscription was told")
        let statistics = source.statistics
        #expect(statistics.connections == 2)
        #expect(statistics.decoder.totalErrors >= 1, "the cut sentence was counted: \(statistics.decoder.errors)")
        await engine.shutdown()
        try await withDeadline(seconds: 30) { await feed.waitUntil { $0.disconnections >= 2 } }
        await feed.close()
    }

    @Test func aFeedThatNeverAnswersEndsWithAClearFatalError() async throws {
        let silent = try await TestTCPServer.start()
        let error = try await fatalError(
            of: .tcp(host: "127.0.0.1", port: silent.port),
            // Give-up well past one attempt (200 ms of silence, 20 ms of backoff): a second connection must fit
            // before it even on a machine starved under ThreadSanitizer (500 ms once left room for only one, and 3 s
            // did once with every suite running under it).
            reconnect: ReconnectPolicy(initialDelay: .milliseconds(20), answerTimeout: .milliseconds(200), giveUpAfter: .seconds(10)))
        #expect(error?.code == "nmea.unreachable")
        #expect(error.map { $0.message.contains("127.0.0.1:\(silent.port)") && $0.message.contains("nothing was received") } == true)
        #expect(silent.record.connections >= 2, "it retried before giving up")
        await silent.close()
    }

    @Test("a serial bridge whose receiver runs at another speed sends bytes that never decode: given up, not taken for a feed")
    func aFeedOfBytesThatNeverDecodeEndsWithAClearFatalError() async throws {
        // What 4,800 baud NMEA looks like read at 9,600: bytes, some of them `$`, none a sentence.
        let noise: [UInt8] = (0..<600).map { index in index % 37 == 0 ? UInt8(ascii: "$") : UInt8(truncatingIfNeeded: index &* 131 &+ 7) }
        let feed = try await TestTCPServer.start { client in
            for _ in 0..<20 { client.send(noise) }
        }
        let error = try await fatalError(
            of: .tcp(host: "127.0.0.1", port: feed.port),
            // An answer timeout no busy machine reaches: the noise is sent as each connection opens, and on a machine
            // busy with the other suites 200 ms once passed before it arrived (the attempt then counted as silent, and
            // the source gave up as on a silent feed). Giving up 4 s after the first failure still takes a second attempt.
            reconnect: ReconnectPolicy(initialDelay: .milliseconds(20), answerTimeout: .seconds(5), giveUpAfter: .seconds(4)))
        #expect(error?.code == "nmea.unreachable")
        #expect(error.map { $0.message.contains("127.0.0.1:\(feed.port)") && $0.message.contains("nothing received was understood") } == true, "\(String(describing: error))")
        #expect(feed.record.connections >= 2, "it retried before giving up")
        await feed.close()
    }

    @Test(arguments: [70_000, -1])
    func aPortOutsideTCPsRangeEndsWithAClearFatalErrorNotATrap(port: Int) async throws {
        let error = try await fatalError(
            of: .tcp(host: "127.0.0.1", port: port), reconnect: ReconnectPolicy(initialDelay: .milliseconds(20), giveUpAfter: .milliseconds(100)))
        #expect(error?.code == "nmea.unreachable")
        #expect(error?.message.contains("port \(port) is not a TCP port") == true, "\(String(describing: error))")
    }

    /// The fatal error a one-shot ends with on a source reading `endpoint`, or `nil` (recorded) when it ends otherwise.
    private func fatalError(of endpoint: NMEAStreamEndpoint, reconnect: ReconnectPolicy) async throws -> SourceError? {
        let source = NMEAStreamSource(configuration: NMEAStreamConfiguration(endpoint: endpoint, reconnect: reconnect), logger: quietLogger())
        let engine = makeEngine(source)
        let result = try await withDeadline(seconds: 30) {
            try await engine.location(accuracy: .city, timeout: .seconds(60))
        }
        await engine.shutdown()
        guard case .failed(let error) = result.status else {
            Issue.record("expected a fatal error, got \(result)")
            return nil
        }
        return error
    }
}

import Foundation
import LocationEngine
@testable import LocationSources
import MetricsTestKit
import Testing
import TestSupport

/// gpsd absent, silent or hostile: fake servers in the test, no daemon needed.
struct GPSDFaultTests {
    private static let fastPolicy = ReconnectPolicy(
        initialDelay: .milliseconds(20), maximumDelay: .milliseconds(100), answerTimeout: .milliseconds(300), giveUpAfter: .milliseconds(600))

    @Test func nothingListeningEndsRequestsWithAClearStatusWithinTheirTimeout() async throws {
        let port = try await freeLoopbackPort()
        let log = TestLog()
        let source = GPSDLocationSource(configuration: GPSDConfiguration(port: port, reconnect: Self.fastPolicy), logger: log.logger)
        let engine = makeEngine(source, log: log)
        let subscription = engine.updates()
        let result = try await withDeadline(seconds: 30) { try await engine.location(accuracy: .block, timeout: .seconds(20)) }
        guard case .failed(let error) = result.status else {
            Issue.record("expected gpsd.unreachable, got \(result)")
            return
        }
        #expect(error.code == "gpsd.unreachable")
        #expect(error.message.contains("127.0.0.1:\(port)") && error.message.contains("check that gpsd is running"))
        await #expect(throws: SubscriptionEndedError.self, "the subscription is told, and ends") {
            _ = try await withDeadline(seconds: 30) { try await collect(subscription) { _ in false } }
        }
        #expect(log.contains(.error, "giving up on the gpsd connection") && log.contains(.error, "location source failed"))
        await engine.shutdown()
    }

    @Test func aServerThatNeverAnswersIsNotAHang() async throws {
        let silent = try await TestTCPServer.start()
        let log = TestLog()
        let source = GPSDLocationSource(configuration: GPSDConfiguration(port: silent.port, reconnect: Self.fastPolicy), logger: log.logger)
        let engine = makeEngine(source, log: log)
        let result = try await withDeadline(seconds: 30) { try await engine.location(accuracy: .city, timeout: .seconds(20)) }
        guard case .failed(let error) = result.status else {
            Issue.record("expected gpsd.unreachable, got \(result)")
            return
        }
        #expect(error.code == "gpsd.unreachable" && error.message.contains("nothing was received"))
        #expect(log.contains(.error, "giving up on the gpsd connection"))
        await engine.shutdown()
        await silent.close()
    }

    @Test(
        "a server that answers, but not as gpsd, is given up with a clear status, whether it stays connected or hangs up, and whether what it sends makes lines or not",
        arguments: ["HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n<html>not gpsd</html>\n", "login: "], [false, true])
    func aServerOfAnotherProtocolIsGivenUp(answer: String, hangsUp: Bool) async throws {
        let other = try await TestTCPServer.start { client in
            client.send(answer)
            if hangsUp { client.close() }
        }
        let log = TestLog()
        // An answer timeout of seconds: the answer is sent as each connection opens, and under ThreadSanitizer
        // among the other suites 300 ms, and later 2 s, once passed before it was read (the attempt then counted
        // as silent). Giving up 4 s after the first failure still takes a second attempt.
        let policy = ReconnectPolicy(initialDelay: .milliseconds(20), answerTimeout: .seconds(5), giveUpAfter: .seconds(4))
        let source = GPSDLocationSource(configuration: GPSDConfiguration(port: other.port, reconnect: policy), logger: log.logger)
        let engine = makeEngine(source, log: log)
        let result = try await withDeadline(seconds: 120) { try await engine.location(accuracy: .city, timeout: .seconds(60)) }
        guard case .failed(let error) = result.status else {
            Issue.record("expected gpsd.unreachable, got \(result)")
            await engine.shutdown()
            await other.close()
            return
        }
        #expect(error.code == "gpsd.unreachable")
        // A prompt without a newline makes no line: the source still heard it, and does not call the server silent.
        #expect(error.message.contains("nothing received was understood"), "\(error.message)")
        #expect(other.record.connections >= 2, "it retried before giving up")
        #expect(source.statistics.connections == 0, "never counted as connected to gpsd")
        #expect(!log.contains(.info, "connected to gpsd"))
        await engine.shutdown()
        await other.close()
    }

    @Test func anAbsurdLineBoundIsTakenAsTheLongestLineSoAnEndlessLineIsStillDropped() async throws {
        #expect(GPSDConfiguration(maximumLineLength: .max).maximumLineLength == GPSDConfiguration.longestLine)
        #expect(GPSDConfiguration(maximumLineLength: -1).maximumLineLength == 1)
        let fake = try await TestTCPServer.start { client in
            client.send(#"{"class":"VERSION","release":"3.22","proto_major":3,"proto_minor":14}"# + "\n")
            // 4 MiB without a newline: dropped past 1 MiB as it arrives, not buffered whole.
            for _ in 0..<64 { client.send(String(repeating: "{", count: 65_536)) }
            client.send("\n")
            client.send(#"{"class":"TPV","mode":3,"time":"2024-05-01T10:00:01.000Z","lat":52.5,"lon":13.4,"eph":12.0}"# + "\n")
        }
        let log = TestLog()
        let source = GPSDLocationSource(configuration: GPSDConfiguration(port: fake.port, maximumLineLength: .max), logger: log.logger)
        let engine = makeEngine(source, log: log)
        let events = try await withDeadline(seconds: 120) {
            try await collect(engine.updates()) { $0.compactMap(\.location).count >= 1 }
        }
        #expect(events.compactMap(\.location).map(\.latitude) == [52.5])
        #expect(source.statistics.oversizedLines == 1 && source.statistics.malformedReports == 0)
        await engine.shutdown()
        await fake.close()
    }

    @Test func hostileInputIsCountedAndSkippedAndStopUnwatches() async throws {
        let tpv: @Sendable (Int, String) -> String = { second, lat in
            #"{"class":"TPV","mode":3,"time":"2024-05-01T10:00:0\#(second).000Z","lat":\#(lat),"lon":13.4,"eph":12.0}"# + "\n"
        }
        let fake = try await TestTCPServer.start { client in
            client.send(#"{"class":"VERSION","release":"3.22","proto_major":3,"proto_minor":14}"# + "\n")
            client.send("this is not json\n")
            client.send(String(repeating: "A", count: 100_000) + "\n")
            // 4 MiB without a newline, in pieces: must be dropped as it arrives, not buffered.
            for _ in 0..<64 { client.send(String(repeating: "{", count: 65_536)) }
            client.send("\n")
            client.send(#"{"class":"TPV","mode":3,"lat":NaN,"lon":1,"eph":3}"# + "\n")
            client.send(#"{"class":"TPV","mode":3,"lat":95.0,"lon":1,"eph":3}"# + "\n")
            client.send(#"{"class":"TELEPORT","to":"mars"}"# + "\n")
            client.send(tpv(1, "52.5"))
            client.send(tpv(1, "52.5"))
            client.send([0, 1, 2, 0xFF, 0xFE, 10])
            client.send(tpv(2, "52.6"))
        }
        // An answer timeout no busy machine reaches: the test is about what is skipped, and under ThreadSanitizer with
        // every suite running the 4 MiB took past the default five seconds without a report: the source judged gpsd
        // silent and sent its WATCH again. The deadline below bounds a hang.
        let metrics = TestMetrics()
        let log = TestLog()
        let source = GPSDLocationSource(
            configuration: GPSDConfiguration(port: fake.port, reconnect: .waitingForTheTest), logger: log.logger, metricsDimensions: [("receiver", "fake")],
            metricsFactory: metrics)
        let engine = makeEngine(source, log: log)
        // A bound on a hang, not a duration: the 4 MiB pass through a debug build's line splitter, and once, with
        // every suite running at once on a loaded machine, took longer than 30 s.
        let events = try await withDeadline(seconds: 120) {
            try await collect(engine.updates()) { $0.compactMap(\.location).count >= 2 }
        }
        #expect(events.compactMap(\.location).map(\.latitude) == [52.5, 52.6])

        let statistics = source.statistics
        #expect(statistics.oversizedLines == 2)
        #expect(statistics.malformedReports == 3, "not json, NaN, binary")
        #expect(statistics.invalidValues == 1)
        #expect(statistics.unexpectedClasses == 1)
        #expect(statistics.duplicateFixes == 1)
        #expect(statistics.fixesDelivered == 2)
        #expect(statistics.droppedFixes == DroppedFixes(duplicate: 1, invalid: 1, stale: 0))
        #expect(log.contains(.warning, "skipped a line from gpsd"), "the first skip of each kind is a warning")

        // The same counts as metrics, labelled like the engine's.
        func counter(_ label: String, _ dimension: (String, String)) throws -> Int64 {
            try metrics.expectCounter(label, [("source", "gpsd"), ("receiver", "fake"), dimension]).totalValue
        }
        #expect(try counter("locationsource_input_skipped", ("reason", "oversized_line")) == 2)
        #expect(try counter("locationsource_input_skipped", ("reason", "malformed")) == 3)
        #expect(try counter("locationsource_fixes", ("result", "invalid")) == 1)
        #expect(try counter("locationsource_input_skipped", ("reason", "unexpected_class")) == 1)
        #expect(try counter("locationsource_fixes", ("result", "duplicate")) == 1)
        #expect(try counter("locationsource_fixes", ("result", "delivered")) == 2)
        #expect(try metrics.expectCounter("locationsource_connections", [("source", "gpsd"), ("receiver", "fake")]).totalValue == 1)

        // The subscription ended, the last request: the source un-watches and closes.
        let unwatch = #"?WATCH={"enable":false};"# + "\n"
        try await withDeadline(seconds: 30) {
            await fake.waitUntil { $0.receivedText.hasSuffix(unwatch) && $0.active == 0 }
        }
        let said = fake.record.receivedText
        #expect(said == #"?WATCH={"enable":true,"json":true};"# + "\n" + unwatch, "one connection: watch, then un-watch")
        await engine.shutdown()
        await fake.close()
    }
}

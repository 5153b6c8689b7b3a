import Foundation
import LocationEngine
@testable import LocationSources
import MetricsTestKit
import NIOCore
import NMEA
import Testing
import TestSupport

/// Every start of a source opens a new session: what the last one delivered is forgotten, so a stream
/// that replays is delivered again; every fix that is not delivered is counted by reason.
struct SessionTests {
    /// What a source sent to its sink.
    final class Received: Sendable {
        let events = Observed<[SourceEvent]>([])
        var sink: SourceEventSink { SourceEventSink { event in self.events.update { $0.append(event) } } }
        var fixes: [Location] {
            events.value.compactMap { if case .location(let location, _) = $0 { location } else { nil } }
        }
        func waitForFixes(_ count: Int) async {
            await events.waitUntil { events in events.filter { if case .location = $0 { true } else { false } }.count >= count }
        }
    }

    static func tpv(second: Int, latitude: Double = 52.5) -> String {
        #"{"class":"TPV","mode":3,"time":"2024-05-01T10:00:0\#(second).000Z","lat":\#(latitude),"lon":13.4,"eph":12.0}"# + "\n"
    }

    @Test func aGpsdStreamReplayedAfterARestartIsDeliveredAgainAndDropsAreCountedByReason() async throws {
        // Every connection gets the same epochs, as from a looping gpsfake or a restarted gpsd: one
        // repeated (gpsd repeats early epochs), one impossible.
        let fake = try await TestTCPServer.start { client in
            client.send(#"{"class":"VERSION","release":"3.22","proto_major":3,"proto_minor":14}"# + "\n")
            client.send(Self.tpv(second: 1))
            client.send(Self.tpv(second: 1))
            client.send(Self.tpv(second: 2, latitude: 95))
            client.send(Self.tpv(second: 3))
            client.send(Self.tpv(second: 4))
        }
        let metrics = TestMetrics()
        let source = GPSDLocationSource(configuration: GPSDConfiguration(port: fake.port), logger: quietLogger(), metricsFactory: metrics)
        let received = Received()
        try await withDeadline(seconds: 30) {
            source.start(mode: .best, events: received.sink)
            await received.waitForFixes(3)
            source.stop()
            await fake.waitUntil { $0.active == 0 }
            source.start(mode: .best, events: received.sink)
            await received.waitForFixes(6)
        }
        source.stop()
        #expect(received.fixes.compactMap(\.utcTime) == [1, 3, 4, 1, 3, 4].map { 1_714_557_600.0 + Double($0) })
        let statistics = source.statistics
        #expect(statistics.fixesDelivered == 6)
        #expect(statistics.droppedFixes == DroppedFixes(duplicate: 2, invalid: 2, stale: 0))
        func fixes(_ result: String) throws -> Int64 {
            try metrics.expectCounter("locationsource_fixes", [("source", "gpsd"), ("result", result)]).totalValue
        }
        #expect(try fixes("delivered") == 6 && fixes("duplicate") == 2 && fixes("invalid") == 2)
        await fake.close()
    }

    @Test func gpsdFixesArrivingAfterStopAreStale() {
        var interpreter = GPSDReportInterpreter(unmeasuredAccuracy: .skip, inSession: false)
        let line = { (text: String) in ByteBuffer(string: text.trimmingCharacters(in: .newlines)) }
        #expect(interpreter.interpret(line: line(Self.tpv(second: 1)), now: .zero) == .stale, "before the first start")
        interpreter.startSession()
        guard case .fix = interpreter.interpret(line: line(Self.tpv(second: 1)), now: .zero) else {
            Issue.record("a session is open: the fix is delivered")
            return
        }
        interpreter.endSession()
        #expect(interpreter.interpret(line: line(Self.tpv(second: 2)), now: .zero) == .stale)
        interpreter.startSession()
        guard case .fix = interpreter.interpret(line: line(Self.tpv(second: 1)), now: .zero) else {
            Issue.record("a new session does not remember the last one's fixes")
            return
        }
        #expect(interpreter.statistics.droppedFixes == DroppedFixes(stale: 2))
        #expect(interpreter.statistics.fixesDelivered == 2)
    }

    @Test func anNMEALogReadAgainAfterARestartIsDeliveredAgain() async throws {
        let stream = SyntheticStream(count: 6)
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("nmea-\(UUID().uuidString).log")
        try Data(stream.blocks.joined().utf8).write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        let metrics = TestMetrics()
        let source = NMEAStreamSource(
            configuration: NMEAStreamConfiguration(endpoint: .file(path: url.path, pacing: .asFastAsPossible)), logger: quietLogger(),
            metricsFactory: metrics)
        let expected = stream.fixesByTime.keys.sorted()
        try #require(expected.count >= 3)
        let received = Received()
        try await withDeadline(seconds: 30) {
            source.start(mode: .best, events: received.sink)
            await received.waitForFixes(expected.count)
            source.stop()
            source.start(mode: .best, events: received.sink)
            await received.waitForFixes(2 * expected.count)
        }
        source.stop()
        #expect(received.fixes.compactMap(\.utcTime) == expected + expected)
        #expect(source.statistics.fixesDelivered == 2 * expected.count)
        #expect(source.statistics.droppedFixes.duplicate == 0)
        #expect(try metrics.expectCounter("locationsource_fixes", [("source", "nmea"), ("result", "delivered")]).totalValue
            == Int64(2 * expected.count))
    }

    @Test func theNMEAConverterDropsImpossibleFixesAndForgetsOnANewSession() {
        var epoch = NMEAEpoch()
        (epoch.mode, epoch.latitude, epoch.longitude, epoch.hdop) = (.threeD, 1, 2, 1)
        (epoch.year, epoch.month, epoch.day, epoch.secondsOfDay) = (2024, 1, 1, 5)
        var converter = NMEAEpochConverter(unmeasuredAccuracy: .skip)
        guard case .fix = converter.convert(epoch) else {
            Issue.record("no fix")
            return
        }
        #expect(converter.convert(epoch) == .duplicate)
        converter.startSession()
        guard case .fix = converter.convert(epoch) else {
            Issue.record("a new session does not remember the last one's epochs")
            return
        }
        epoch.secondsOfDay = 6
        epoch.latitude = 95
        #expect(converter.convert(epoch) == .invalid)
    }
}

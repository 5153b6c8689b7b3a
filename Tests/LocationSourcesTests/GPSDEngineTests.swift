import Foundation
import LocationEngine
@testable import LocationSources
import NMEA
import Testing
import TestSupport

/// The engine over a real gpsd (Debian's `gpsd`; CI runs `apt-get install -y gpsd gpsd-clients
/// python3-gps socat`), fed a real receiver's log from `../shared/nmea/`.
@Suite(.enabled(if: Tools.gpsd != nil, "gpsd is not installed (apt-get install gpsd); these tests need the real daemon"))
struct GPSDEngineTests {
    /// The fixes of a log as the NMEA module decodes them: position and the accuracy the engine should get.
    private static func fixes(inLog text: String) -> [(latitude: Double, longitude: Double, accuracy: Double)] {
        var decoder = NMEAStreamDecoder()
        var result: [(Double, Double, Double)] = []
        let collect = { (epoch: NMEAEpoch) in
            guard epoch.mode == .twoD || epoch.mode == .threeD, let latitude = epoch.latitude, let longitude = epoch.longitude,
                let accuracy = AccuracyConversion.radius68(twoDRMS: epoch.horizontalAccuracy)
            else { return }
            result.append((latitude, longitude, accuracy))
        }
        decoder.feed(Array(text.utf8), onEpoch: collect)
        decoder.finish(onEpoch: collect)
        return result
    }

    /// The receiver log's sentences, one per line, as the feed sends them.
    private static func logLines() throws -> (lines: [String], known: [(latitude: Double, longitude: Double, accuracy: Double)]) {
        let log = try SharedLogs.text("bu353s4.log")
        let lines = log.split(separator: "\n").filter { $0.hasPrefix("$") }.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) + "\r\n" }
        return (lines, Self.fixes(inLog: log))
    }

    /// A source on gpsd at `port` that reconnects quickly.
    private static func source(port: Int) -> GPSDLocationSource {
        GPSDLocationSource(
            configuration: GPSDConfiguration(port: port, reconnect: ReconnectPolicy(initialDelay: .milliseconds(50), maximumDelay: .milliseconds(500))),
            logger: quietLogger())
    }

    @Test(.enabled(if: SharedLogs.available, "../shared/nmea is absent (a fresh clone); CI provides the receiver logs"))
    func requestsAreServedFromGpsdOverOneConnectionThatEndsWithTheLastOne() async throws {
        let (lines, known) = try Self.logLines()
        try #require(known.count > 10)
        let gpsd = try await GPSDFixture.start(chunks: lines, interval: .milliseconds(20), loops: true)
        defer { gpsd.abandon() }
        let source = Self.source(port: gpsd.port)
        let engine = makeEngine(source)
        #expect(gpsd.feed.record.connections == 0, "nothing asked for a fix: gpsd has not opened the receiver")

        @Sendable func check(_ location: Location?, _ what: String) {
            guard let location else {
                Issue.record("\(what): no fix")
                return
            }
            let match = known.first { abs($0.latitude - location.latitude) < 1e-7 && abs($0.longitude - location.longitude) < 1e-7 }
            guard let match else {
                Issue.record("\(what): \(location.latitude), \(location.longitude) is not a fix of the log")
                return
            }
            #expect(abs(location.horizontalAccuracy - match.accuracy) < 0.01 * match.accuracy, "\(what): accuracy")
        }

        try await withDeadline(seconds: 120) {
            // One-shots at several accuracies. The log's fixes are ±20.9 m (eph) → ±11.2 m at 68 %: house, not room.
            for accuracy in [LocationAccuracy.city, .block, .house] {
                let result = try await engine.location(accuracy: accuracy, timeout: .seconds(60))
                #expect(result.status == .success, "\(accuracy): \(result)")
                #expect(result.achievedAccuracy == .house)
                check(result.location, "\(accuracy)")
            }
            let room = try await engine.location(accuracy: .room, timeout: .seconds(2))
            #expect(room.status == .timedOut, "the receiver never gets to 5 m")
            #expect(room.achievedAccuracy == .house)
            check(room.location, "room (best fix at the timeout)")

            // A subscription receives the stream, each epoch once.
            let events = try await collect(engine.updates()) { $0.compactMap(\.location).count >= 8 }
            let fixes = events.compactMap(\.location)
            for fix in fixes { check(fix, "subscription") }
            let times = fixes.compactMap(\.utcTime)
            #expect(Set(times).count == times.count, "no epoch twice")

            // Force-complete and cancel.
            let forced = await forceCompletedResult(engine, accuracy: .custom(metres: 0.5, maximumAge: .seconds(5)))
            #expect(forced.status == .forceCompleted)
            let cancelled = Task { try await engine.location(accuracy: .custom(metres: 0.5, maximumAge: .seconds(5)), timeout: .seconds(600)) }
            cancelled.cancel()
            await #expect(throws: CancellationError.self) { try await cancelled.value }
        }
        #expect(gpsd.feed.record.connections == 1, "gpsd opened the receiver once, for all those requests")
        #expect(source.statistics.totalSkipped == 0)
        await engine.shutdown()
        #expect(!source.isRunning, "every request has ended: the source un-watched gpsd and closed")
        await gpsd.stop()
    }

    /// gpsd's part: it closes the receiver 60 s (its compiled-in release timeout) after the last
    /// watcher leaves. That is gpsd's clock, not ours, so the test is slow: CI runs it.
    @Test(
        .enabled(if: SharedLogs.available, "../shared/nmea is absent (a fresh clone); CI provides the receiver logs"),
        .enabled(if: SlowTests.enabled, Comment(rawValue: SlowTests.skipReason)))
    func gpsdReleasesTheReceiverAfterTheLastRequest() async throws {
        let (lines, _) = try Self.logLines()
        let gpsd = try await GPSDFixture.start(chunks: lines, interval: .milliseconds(20), loops: true)
        defer { gpsd.abandon() }
        let source = Self.source(port: gpsd.port)
        let engine = makeEngine(source)
        let result = try await withDeadline(seconds: 120) { try await engine.location(accuracy: .city, timeout: .seconds(60)) }
        #expect(result.status == .success, "\(result)")
        #expect(gpsd.feed.record.connections == 1)

        // The request has ended: the source un-watches, and gpsd — after its 60 s grace — closes the device.
        try await withDeadline(seconds: 150) { await gpsd.feed.waitUntil { $0.disconnections >= 1 } }
        #expect(gpsd.feed.record.active == 0, "gpsd closed the receiver's connection")
        // And gpsd says so: its device list no longer shows the device as activated.
        let devices = try await withDeadline(seconds: 30) { try await gpsd.devicesReport() }
        #expect(devices.contains("tcp://127.0.0.1:\(gpsd.feed.port)") && !devices.contains("activated"), "\(devices)")
        await engine.shutdown()
        await gpsd.stop()
    }
}

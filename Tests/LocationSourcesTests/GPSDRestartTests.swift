import Foundation
import LocationEngine
@testable import LocationSources
import Testing
import TestSupport

/// gpsd going away and coming back while requests are pending.
@Suite(.enabled(if: Tools.gpsd != nil, "gpsd is not installed (apt-get install gpsd); these tests need the real daemon"))
struct GPSDRestartTests {
    @Test func theEngineReconnectsAfterGpsdRestartsAndDeliversNothingTwice() async throws {
        let stream = SyntheticStream(count: 600)
        let expected = stream.fixesByTime
        let gpsd = try await GPSDFixture.start(chunks: stream.blocks, interval: .milliseconds(50), loops: false)
        defer { gpsd.abandon() }
        let source = GPSDLocationSource(
            configuration: GPSDConfiguration(port: gpsd.port, reconnect: ReconnectPolicy(initialDelay: .milliseconds(50), maximumDelay: .milliseconds(500))),
            logger: quietLogger())
        let engine = makeEngine(source)
        let log = LocationLog()
        let subscription = engine.updates(bufferingNewest: 10_000)
        let reader = Task {
            for try await event in subscription { log.append(event) }
        }

        try await withDeadline(seconds: 120) {
            await log.waitUntil { $0.compactMap(\.location).count >= 5 }
            // Pending across the outage: this one cannot be satisfied, so it must time out — with a fix.
            async let unsatisfiable = engine.location(accuracy: .custom(metres: 0.01, maximumAge: .seconds(5)), timeout: .seconds(4))

            await gpsd.killGPSD()
            await log.waitUntil { $0.contains { $0.sourceErrorCode == "gpsd.disconnected" } }
            let lastBefore = try #require(log.locations.last?.utcTime)
            // Asked during the outage; only a fresh fix (age zero) satisfies it.
            async let fresh = engine.location(accuracy: .custom(metres: 5000, maximumAge: .zero), timeout: .seconds(60))
            try gpsd.startGPSD()

            let freshResult = try await fresh
            #expect(freshResult.status == .success, "\(freshResult)")
            #expect((freshResult.location?.utcTime ?? 0) > lastBefore, "a fix read after the reconnect")
            let timedOut = try await unsatisfiable
            #expect(timedOut.status == .timedOut && timedOut.location != nil, "\(timedOut)")
            await log.waitUntil { events in events.compactMap(\.location).filter { ($0.utcTime ?? 0) > lastBefore }.count >= 5 }
        }
        engine.cancel(subscription.id)
        _ = try await withDeadline(seconds: 30) { await reader.result }

        let fixes = log.locations
        let times = fixes.compactMap(\.utcTime)
        #expect(times.count == fixes.count)
        #expect(Set(times).count == times.count, "nothing delivered twice")
        #expect(times == times.sorted())
        for fix in fixes {
            guard let truth = expected[fix.utcTime ?? -1] else {
                Issue.record("\(String(describing: fix.utcTime)) is not a fix of the stream")
                continue
            }
            #expect(samePosition(fix, truth))
        }
        #expect(source.statistics.connections >= 2 && source.statistics.disconnections >= 1)
        await engine.shutdown()
        await gpsd.stop()
    }
}

import Foundation
import LocationEngine
import NIOConcurrencyHelpers
import TestSupport
import Testing
@testable import LocationSourcesGeoClue

/// The engine on the GeoClue source, against the real daemon: requests served from GeoClue's positions,
/// GeoClue's refusal as the engine's authorization, and many requests at once. The engine runs the source's
/// lifetime (its `run()`) inside its own: no test runs it.
@Suite("The engine on GeoClue, against the real daemon", .serialized, .enabled(if: GeoClueTestBed.unavailable == nil, "needs dbus-daemon and GeoClue2 with its demo agent (Scripts/bootstrap.sh installs them)"))
struct GeoClueEngineTests {
    static func engine(_ source: GeoClueLocationSource) -> LocationEngine<ContinuousClock> {
        LocationEngine(
            source: source, clock: ContinuousClock(),
            configuration: LocationEngineConfiguration(linger: .zero, authorizationProvider: source.authorization))
    }

    @Test("a house-level one-shot is served from GeoClue's position; the source stops when no request needs it")
    func oneShot() async throws {
        // Generous bounds: GeoClue's first fix after a start comes in a few seconds, but on a loaded machine
        // (every suite running at once, under ThreadSanitizer) it has taken longer than 120 s.
        try await GeoClueDaemonTests.withBed(runsSource: false, seconds: 330) { bed, source, _ in
            let engine = Self.engine(source)
            let running = Task { try await engine.run() }
            defer { running.cancel() }
            let result = try await engine.location(accuracy: .house, timeout: .seconds(300))
            #expect(result.status == .success, "\(result) \(source.statistics.fixes) fixes, \(source.statistics.rejectedFixes) rejected, \(source.statistics.errors) errors")
            let location = try #require(result.location)
            #expect(abs(location.latitude - 52.52) < 0.05 && abs(location.longitude - 13.405) < 0.05)
            try await bed.waitFor("GeoClue no longer in use") { GeoClueDaemonTests.inUse(bed) == false }
            #expect(source.statistics.starts == 1)
            await engine.shutdown()
        }
    }

    @Test("a city one-shot over GeoClue whose only source is NMEA: the silent city level is passed over for exact, and it succeeds")
    func silentCityLevel() async throws {
        // GeoClue with its default configuration on a machine without network: NMEA is its only source, and it
        // answers at exact only. Bounds generous for a loaded machine; no duration is asserted.
        try await GeoClueDaemonTests.withBed(runsSource: false, seconds: 150) { _, source, _ in
            let engine = Self.engine(source)
            let running = Task { try await engine.run() }
            defer { running.cancel() }
            let result = try await engine.location(accuracy: .city, timeout: .seconds(120))
            #expect(result.status == .success, "\(result)")
            let delivery = try #require(await engine.statistics().delivery.first)
            #expect(delivery[.lowest]?.silences == 1 && delivery[.lowest]?.answered == 0 && delivery[.lowest]?.isSilent == true)
            #expect(delivery[.best]?.answered == 1, "GeoClue's exact level answered: \(delivery)")
            #expect(source.statistics.level == .exact)
            await engine.shutdown()
        }
    }

    @Test("a city subscription left alone once a house one-shot ends, over GeoClue whose only source is NMEA: the silent city level is passed over again, and positions keep coming")
    func subscriptionLeftOnASilentLevel() async throws {
        try await GeoClueDaemonTests.withBed(runsSource: false, seconds: 330) { bed, source, _ in
            let engine = Self.engine(source)
            let running = Task { try await engine.run() }
            defer { running.cancel() }
            let positions = NIOLockedValueBox(0)
            let subscription = engine.updates(SubscriptionOptions(accuracy: .city)) { _, event in
                if case .location = event { positions.withLockedValue { $0 += 1 } }
            }
            let result = try await engine.location(accuracy: .house, timeout: .seconds(300))
            #expect(result.status == .success, "\(result)")
            // Answered: the source goes to the subscription's level, which says nothing, then back to exact.
            // Where it waits instead, what each level delivered says why.
            func figures() async -> String {
                let delivery = await engine.statistics().delivery.first ?? [:]
                let levels = delivery.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }
                let statistics = source.statistics
                return "level \(statistics.level.map(String.init(describing:)) ?? "none"), \(statistics.clientStarts) client starts, \(statistics.fixes) fixes, \(statistics.earlierLevelFixes) of an earlier level, \(statistics.errors) errors; delivery \(levels)"
            }
            do {
                try await bed.waitFor("GeoClue's client at city level") { source.statistics.level == .city }
                let before = positions.withLockedValue { $0 }
                try await bed.waitFor("GeoClue's client at exact level again", seconds: 120) { source.statistics.level == .exact }
                try await bed.waitFor("a position for the subscription from the exact level", seconds: 120) { positions.withLockedValue { $0 } > before }
            } catch {
                Issue.record("\(error); \(await figures())")
                throw error
            }
            let delivery = try #require(await engine.statistics().delivery.first)
            #expect(delivery[.lowest]?.silences == 1 && delivery[.lowest]?.answered == 0, "\(delivery)")
            engine.cancel(subscription)
            await engine.shutdown()
        }
    }

    @Test("GeoClue refuses: the waiting request ends unauthorized (denied), a later one is refused at once")
    func denied() async throws {
        try await GeoClueDaemonTests.withBed(agent: false, runsSource: false) { bed, source, _ in
            let agent = try ScriptedGeoClueAgent(address: bed.busAddress, authorize: false)
            defer { agent.stop() }
            let engine = Self.engine(source)
            let running = Task { try await engine.run() }
            defer { running.cancel() }
            let first = try await engine.location(accuracy: .house, timeout: .seconds(20))
            #expect(first.status == .unauthorized(.denied))
            let second = try await engine.location(accuracy: .city, timeout: .seconds(20))
            #expect(second.status == .unauthorized(.denied))
            #expect(source.statistics.starts == 1, "a denied engine does not start the source again")
            await engine.shutdown()
        }
    }

    @Test("10,000 one-shots of mixed accuracy over the real GeoClue: each ends exactly once, the fine ones with a fix")
    func tenThousand() async throws {
        // GeoClue's NMEA classes claim no room accuracy unless configured to: this receiver's are, as a user whose
        // receiver earns it would (the synthetic receiver's HDOP classes at 3, 4 and 4.5 m).
        let classes: [Double: Double] = [0: 3, 1: 4, 3: 4.5]
        try await GeoClueDaemonTests.withBed(runsSource: false, fixInterval: 0.1, seconds: 200, accuracyClasses: classes) { _, source, _ in
            let engine = Self.engine(source)
            let running = Task { try await engine.run() }
            defer { running.cancel() }
            let count = 10_000
            let endings = NIOLockedValueBox(Array(repeating: [LocationStatus](), count: count))
            let ended = Observed(0)
            let accuracies: [LocationAccuracy] = [.city, .neighborhood, .block, .house, .room]
            for n in 0..<count {
                engine.location(accuracy: accuracies[n % accuracies.count], timeout: .seconds(150)) { result in
                    endings.withLockedValue { $0[n].append(result.status) }
                    ended.update { $0 += 1 }
                }
            }
            await ended.waitUntil { $0 == count }
            let all = endings.withLockedValue { $0 }
            #expect(all.allSatisfy { $0.count == 1 }, "each request ends exactly once")
            #expect(all.allSatisfy { $0 == [.success] }, "GeoClue's positions (accuracy \(source.statistics.fixes) fixes) serve every level")
            #expect(source.statistics.rejectedFixes == 0)
            await engine.shutdown()
        }
    }
}

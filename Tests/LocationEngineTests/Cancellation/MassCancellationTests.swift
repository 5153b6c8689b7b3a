import Foundation
import LocationEngine
import LocationEngineTestKit
import NIOConcurrencyHelpers
import Testing

/// One fix decides a very large delivery, and handlers end most of it before it is handed out: what was
/// decided for an ended request is skipped in a loop (the stack does not grow with the skips), and
/// every request ends exactly once.
@Suite("Mass cancellation during a delivery: skipped in a loop, every request ends once")
struct MassCancellationTests {
    let clock = ManualClock()
    let source = ScriptedLocationSource()
    let centre = GeoPoint(latitude: 48.0, longitude: 11.0)

    /// What each monitor heard, by ID.
    final class Heard: Sendable {
        private let state = NIOLockedValueBox<(transitions: [RequestID: Int], ends: [RequestID: Int])>(([:], [:]))
        func record(_ id: RequestID, _ event: RegionEvent) {
            state.withLockedValue { state in
                switch event {
                case .transition: state.transitions[id, default: 0] += 1
                case .ended: state.ends[id, default: 0] += 1
                case .sourceError: break
                }
            }
        }
        var transitions: [RequestID: Int] { state.withLockedValue { $0.transitions } }
        var ends: [RequestID: Int] { state.withLockedValue { $0.ends } }
    }

    @Test("100,000 monitors decided by one fix, all but one cancelled by the first handler")
    func monitorsCancelledByTheFirstHandler() async throws {
        let count = 100_000
        let engine = LocationEngine(source: source, clock: clock, configuration: .init(linger: .zero), logger: quietLogger)
        Task { try await engine.run() }
        let region = try GeofenceRegion.circle(centre: centre, radius: 200)
        let heard = Heard()
        let ids = NIOLockedValueBox<[RequestID]>([])
        let first = NIOLockedValueBox<RequestID?>(nil)
        let handler: @Sendable (RequestID, RegionEvent) -> Void = { id, event in
            heard.record(id, event)
            let isFirst = first.withLockedValue { first in
                guard first == nil else { return false }
                first = id
                return true
            }
            guard isFirst else { return }
            for other in ids.withLockedValue({ $0 }) where other != id { engine.cancel(other) }
        }
        let submitted = (0..<count).map { _ in engine.monitor(region, handler: handler) }
        ids.withLockedValue { $0 = submitted }
        await engine.sync()
        source.emit(Location(latitude: 48.0, longitude: 11.0, horizontalAccuracy: 5))
        await engine.sync()

        let kept = try #require(first.withLockedValue { $0 })
        let transitions = heard.transitions
        #expect(transitions == [kept: 1], "the first handler's monitor heard its transition; the cancelled ones heard nothing")
        #expect(heard.ends.isEmpty, "a cancelled callback hears no end")
        let statistics = await engine.statistics()
        #expect(statistics.activeSubscriptions == 1)
        #expect(statistics.subscriptionsCancelled == count - 1)
        #expect(await engine.regionState(kept) == .inside)
        await engine.shutdown()
        #expect(heard.ends == [kept: 1], "the one left ends once, at shutdown")
    }

    @Test("100,000 monitors decided by one fix, a revocation falling due mid-delivery: each ends exactly once")
    func revocationMidDelivery() async throws {
        let count = 100_000
        let user = SimulatedAuthorizationProvider(.init(initial: .authorizedAlways, changes: [.init(.denied, after: .seconds(10))]))
        let engine = LocationEngine(
            source: source, clock: clock,
            configuration: .init(linger: .zero, authorizationProvider: user, usage: AuthorizationTests.declared), logger: quietLogger)
        Task { try await engine.run() }
        let region = try GeofenceRegion.circle(centre: centre, radius: 200)
        let heard = Heard()
        let clock = self.clock
        let advanced = NIOLockedValueBox(false)
        let handler: @Sendable (RequestID, RegionEvent) -> Void = { id, event in
            heard.record(id, event)
            // The first handler moves time past the revocation: the engine finds it due while it
            // hands out the rest of the delivery (it looks at the clock every 1,024 handlers).
            let first = advanced.withLockedValue { advanced in
                defer { advanced = true }
                return !advanced
            }
            if first { clock.advance(by: .seconds(10)) }
        }
        let ids = (0..<count).map { _ in engine.monitor(region, handler: handler) }
        await engine.sync()
        source.emit(Location(latitude: 48.0, longitude: 11.0, horizontalAccuracy: 5))
        await engine.sync()

        let transitions = heard.transitions
        let ends = heard.ends
        #expect(transitions.count < count, "the revocation ended monitors before their transition was handed out")
        #expect(transitions.values.allSatisfy { $0 == 1 })
        #expect(ends.count == count && ends.values.allSatisfy { $0 == 1 }, "every monitor ended exactly once")
        #expect(Set(ends.keys) == Set(ids))
        let statistics = await engine.statistics()
        #expect(statistics.activeSubscriptions == 0)
        #expect(await engine.authorizationState == .denied)
        await engine.shutdown()
        #expect(heard.ends.values.allSatisfy { $0 == 1 }, "shutdown ends nothing twice")
    }

    @Test(
        "1,000,000 one-shots ended by one fix, half cancelled by handlers: each ends exactly once",
        .enabled(if: ProcessInfo.processInfo.environment["LOCATIONENGINE_SLOW_TESTS"] == "1", "a million requests in a debug build; set LOCATIONENGINE_SLOW_TESTS=1 (CI does)"))
    func millionOneShotsHalfCancelled() async throws {
        let count = 1_000_000
        let engine = LocationEngine(source: source, clock: clock, configuration: .init(linger: .zero), logger: quietLogger)
        Task { try await engine.run() }
        let results = NIOLockedValueBox([UInt8](repeating: 0, count: count + 1))
        let ids = NIOLockedValueBox<[RequestID]>([])
        let handler: @Sendable (LocationResult) -> Void = { result in
            let id = result.requestID
            let index = Int(id.sequence)
            results.withLockedValue { $0[index] &+= 1 }
            // Every handler of an even-numbered request cancels the next (odd-numbered) one, which was
            // ended by the same fix but may not be handed out yet.
            if index % 2 == 0, index + 1 <= count { engine.cancel(ids.withLockedValue { $0[index] }) }
        }
        let submitted = (0..<count).map { _ in engine.location(accuracy: .city, timeout: nil, handler: handler) }
        #expect(submitted.first?.sequence == 1 && submitted.last?.sequence == UInt64(count), "IDs count from 1 in order")
        ids.withLockedValue { $0 = submitted }
        await engine.sync()
        source.emit(Location(latitude: 48.0, longitude: 11.0, horizontalAccuracy: 5))
        await engine.sync()
        let statistics = await engine.statistics()
        #expect(statistics.pendingOneShots == 0)
        #expect(statistics.oneShotsSucceeded + statistics.oneShotsCancelled == count)
        #expect(statistics.oneShotsCancelled > 0, "handlers cancelled requests of their own delivery")
        let delivered = results.withLockedValue { $0 }
        #expect(delivered.dropFirst().allSatisfy { $0 <= 1 }, "no request heard two results")
        #expect(delivered.dropFirst().filter { $0 == 1 }.count == statistics.oneShotsSucceeded)
        await engine.shutdown()
    }
}

import LocationEngine
import LocationEngineTestKit
import Testing

/// What an `updates()` sequence has buffered when access changes: coarsened or withheld, as the
/// access now says; and reading the engine's state changes nothing.
@Suite("Buffered events and access changes")
struct BufferedEventsTests: EngineTestCase {
    let clock = ManualClock()
    let source = ScriptedLocationSource()
    let recorder = Recorder()

    @Test("events buffered in updates() when access drops to reduced accuracy reach the reader coarse")
    func bufferedEventsCoarsened() async throws {
        let engine = makeEngine()
        let updates = engine.updates(bufferingNewest: 16)
        await engine.sync()
        for step in 0..<3 {
            source.emit(fix(5, latitude: 48 + Double(step) * 0.001, course: 90))
            await engine.sync()
        }
        engine.updateAuthorization(.authorizedWhenInUse(accuracy: .reduced))
        await engine.sync()
        var iterator = updates.makeAsyncIterator()
        let policy = ReducedAccuracyPolicy()
        for _ in 0..<3 {
            guard case .location(let update) = try await iterator.next() else {
                Issue.record("expected a location")
                return
            }
            #expect(policy.isCoarse(update.location))
            #expect(update.location.horizontalAccuracy >= policy.gridSpacing)
            #expect(update.location.course == nil)
        }
        engine.cancel(updates.id)
        #expect(try await iterator.next() == nil)
    }

    @Test("events buffered in updates() when access is revoked never reach the reader; the end does")
    func bufferedEventsDroppedOnRevocation() async throws {
        let engine = makeEngine()
        let updates = engine.updates(bufferingNewest: 16)
        await engine.sync()
        source.emit(fix(5))
        await engine.sync()
        engine.updateAuthorization(.denied)
        await engine.sync()
        var iterator = updates.makeAsyncIterator()
        await #expect(throws: SubscriptionEndedError.self) { _ = try await iterator.next() }
    }

    @Test("reading authorizationState and lastKnownLocation() changes nothing")
    func readersHaveNoSideEffects() async {
        let engine = makeEngine()
        engine.updates(handler: recorder.subscription)
        await engine.sync()
        source.emit(fix(4))
        await engine.sync()
        let before = await engine.statistics()
        _ = await engine.authorizationState
        _ = await engine.lastKnownLocation()
        #expect(await engine.statistics() == before)
    }
}

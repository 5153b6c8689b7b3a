import LocationEngine
import LocationEngineTestKit
import Testing

@Suite("Edges the README promises")
struct EdgeTests {
    let clock = ManualClock()
    let source = ScriptedLocationSource()
    let recorder = Recorder()

    func makeEngine(_ configuration: LocationEngineConfiguration = .init(linger: .zero)) -> LocationEngine<ManualClock> {
        let engine = LocationEngine(source: source, clock: clock, configuration: configuration, logger: quietLogger)
        Task { try await engine.run() }
        return engine
    }

    @Test("a 50 m distance filter passes a movement of 50 m: fixes 10 m apart deliver every 5th")
    func distanceFilterRounding() async {
        let engine = makeEngine()
        let id = engine.updates(SubscriptionOptions(distanceFilter: 50), handler: recorder.subscription)
        await engine.sync()
        let metresPerDegree = 6_371_008.8 * Double.pi / 180
        for step in 0...20 {
            source.emit(Location(latitude: 48 + Double(step) * 10 / metresPerDegree, longitude: 11, horizontalAccuracy: 5))
            await engine.sync()
        }
        let latitudes = recorder.events(id).compactMap { event -> Double? in
            if case .location(let update) = event { return update.location.latitude }
            return nil
        }
        #expect(latitudes.count == 5, "steps 0, 5, 10, 15, 20")
    }

    @Test("a negative or NaN accuracy, or a negative age, satisfies no accuracy")
    func negativeAccuracy() {
        for accuracy in [-1.0, -0.0001, .nan, -.infinity] {
            #expect(AccuracyLevel.achieved(horizontalAccuracy: accuracy, age: .zero) == nil, "\(accuracy)")
            #expect(!LocationAccuracy.city.isSatisfied(horizontalAccuracy: accuracy, age: .zero), "\(accuracy)")
            #expect(!LocationAccuracy.custom(metres: 10, maximumAge: .seconds(1)).isSatisfied(horizontalAccuracy: accuracy, age: .zero))
        }
        #expect(AccuracyLevel.achieved(horizontalAccuracy: 0, age: .zero) == .room)
        #expect(AccuracyLevel.achieved(horizontalAccuracy: 3, age: .seconds(-1)) == nil)
        #expect(!LocationAccuracy.room.isSatisfied(horizontalAccuracy: 3, age: .seconds(-1)))
    }

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

    @Test("timeout has a default: a one-shot without one times out after 30 s")
    func defaultTimeout() async {
        let engine = makeEngine()
        let id = engine.location(accuracy: .room, handler: recorder.oneShot)
        await engine.sync(advancingBy: .seconds(30) - .nanoseconds(1))
        #expect(recorder.results(id).isEmpty)
        await engine.sync(advancingBy: .nanoseconds(1))
        #expect(recorder.results(id).map(\.status) == [.timedOut])
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

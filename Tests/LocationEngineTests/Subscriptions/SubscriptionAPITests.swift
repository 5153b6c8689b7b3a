import LocationEngine
import LocationEngineTestKit
import Testing

/// Subscriptions through the engine, in their callback and AsyncSequence forms.
@Suite("Subscriptions through the engine: callback and AsyncSequence forms")
struct SubscriptionAPITests: EngineTestCase {
    let clock = ManualClock()
    let source = ScriptedLocationSource()
    let recorder = Recorder()

    @Test("AsyncSequence subscription: yields updates, finishes after maximum updates")
    func asyncSequence() async throws {
        let engine = makeEngine()
        let updates = engine.updates(SubscriptionOptions(maximumUpdates: 3))
        await engine.sync()
        for metres in [30.0, 20, 10, 5] { source.emit(fix(metres)) }
        await engine.sync()
        var received: [Double] = []
        for try await event in updates {
            if case .location(let update) = event { received.append(update.location.horizontalAccuracy) }
        }
        #expect(received == [30, 20, 10])
        #expect(!source.isRunning)
    }

    @Test("AsyncSequence subscription: abnormal end throws SubscriptionEndedError")
    func asyncSequenceThrows() async {
        let engine = LocationEngine(source: ScriptedLocationSource(capabilities: .init(providesCourse: false)), clock: clock, logger: quietLogger)
        Task { try await engine.run() }
        let updates = engine.updates(SubscriptionOptions(kind: .heading))
        await #expect(throws: SubscriptionEndedError.self) {
            for try await _ in updates {}
        }
    }

    @Test("ending the iteration cancels the subscription and powers the source down")
    func consumerCancellation() async throws {
        let engine = makeEngine()
        let task = Task {
            var count = 0
            for try await _ in engine.updates() {
                count += 1
                if count == 2 { break }
            }
            return count
        }
        await eventually("the subscription is active") { await engine.statistics().activeSubscriptions == 1 }
        source.emit(fix(10))
        source.emit(fix(10))
        await engine.sync()
        #expect(try await task.value == 2)
        await eventually("the subscription is cancelled") {
            await engine.sync()
            return await engine.statistics().subscriptionsCancelled == 1
        }
        #expect(!source.isRunning)
    }

    /// Waits until `sequence`'s request is active, gives it a fix of `metres`, leaves a loop over it at its first
    /// element, and waits until the engine holds no subscription or monitor: `sequence` itself is kept alive.
    private func leaveTheLoop<S: AsyncSequence>(over sequence: S, fix metres: Double, on engine: LocationEngine<ManualClock>) async throws {
        await eventually("the request is active") { await engine.statistics().activeSubscriptions == 1 }
        source.emit(fix(metres))
        await engine.sync()
        for try await _ in sequence { break }
        await eventually("the request is cancelled") {
            await engine.sync()
            return await engine.statistics().activeSubscriptions == 0
        }
        withExtendedLifetime(sequence) {}
    }

    @Test("leaving the loop cancels the subscription, or the monitor, even while the sequence is still held in a variable")
    func leavingTheLoopCancelsWhileTheSequenceLives() async throws {
        let engine = makeEngine()
        let updates = engine.updates()
        try await leaveTheLoop(over: updates, fix: 10, on: engine)
        #expect(await engine.statistics().subscriptionsCancelled == 1)
        #expect(!source.isRunning)
        let transitions = engine.monitor(try GeofenceRegion.circle(centre: GeoPoint(latitude: 48, longitude: 11), radius: 100))
        try await leaveTheLoop(over: transitions, fix: 5, on: engine)
        withExtendedLifetime((updates, transitions)) {}
    }

    @Test("cancel by ID finishes a subscription's sequence")
    func cancelFinishesSequence() async throws {
        let engine = makeEngine()
        let updates = engine.updates()
        engine.cancel(updates.id)
        await engine.sync()
        var count = 0
        for try await _ in updates { count += 1 }
        #expect(count == 0)
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
}

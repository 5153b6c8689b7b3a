import LocationEngine
import LocationEngineTestKit
import NIOConcurrencyHelpers
import Testing

@Suite("LocationEngine actor: callback and async APIs, timer, source")
struct EngineTests {
    let clock = ManualClock()
    let source = ScriptedLocationSource()
    let recorder = Recorder()

    func makeEngine(linger: Duration = .zero, source: ScriptedLocationSource? = nil) -> LocationEngine<ManualClock> {
        let engine = LocationEngine(source: source ?? self.source, clock: clock, configuration: .init(linger: linger), logger: quietLogger)
        Task { try await engine.run() }
        return engine
    }

    @Test("callback API: ID at once, one result later, source started and stopped")
    func callbackRoundTrip() async {
        let engine = makeEngine()
        let id = engine.location(accuracy: .block, timeout: .seconds(10), handler: recorder.oneShot)
        await engine.sync()
        #expect(source.commands == [.start(.medium)])
        #expect(source.emit(fix(40)))
        await engine.sync()
        #expect(recorder.results(id).map(\.status) == [.success])
        #expect(source.commands == [.start(.medium), .stop])
        #expect(!source.isRunning)
    }

    @Test("the one timer times requests out on the virtual clock, with the best fix")
    func timeoutViaClock() async {
        let engine = makeEngine()
        let id = engine.location(accuracy: .room, timeout: .seconds(10), handler: recorder.oneShot)
        await engine.sync()
        source.emit(fix(30))
        await engine.sync()
        clock.advance(by: .seconds(9))
        await engine.sync()
        #expect(recorder.results(id).isEmpty)
        clock.advance(by: .seconds(1))
        await engine.sync()
        let results = recorder.results(id)
        #expect(results.map(\.status) == [.timedOut])
        #expect(results.first?.location?.horizontalAccuracy == 30)
        #expect(results.first?.age == .seconds(10))
        #expect(clock.sleeperCount <= 1, "one timer, not one per request")
    }

    @Test("thousands of pending timeouts use one timer task")
    func oneTimer() async {
        let engine = makeEngine()
        for index in 0..<5_000 {
            engine.location(accuracy: .room, timeout: .milliseconds(Int64(100 + index))) { _ in }
        }
        await engine.sync()
        await eventually("the timer task is asleep") { clock.sleeperCount == 1 }
        #expect(clock.sleeperCount == 1)
        clock.advance(by: .seconds(6))
        await engine.sync()
        #expect(await engine.statistics().oneShotsTimedOut == 5_000)
    }

    @Test("async API: returns the result; a timeout is a result, not an error")
    func asyncLocation() async throws {
        let engine = makeEngine()
        async let result = engine.location(accuracy: .house, timeout: .seconds(5))
        await eventually("the request is pending") { await engine.statistics().pendingOneShots == 1 }
        source.emit(fix(8))
        await engine.sync()
        let value = try await result
        #expect(value.status == .success)
        #expect(value.achievedAccuracy == .house)

        async let late = engine.location(accuracy: .room, timeout: .seconds(5))
        await eventually("the second request is pending") { await engine.statistics().pendingOneShots == 1 }
        clock.advance(by: .seconds(5))
        await engine.sync()
        #expect(try await late.status == .timedOut)
    }

    @Test("task cancellation cancels the request and throws CancellationError (no hang)")
    func taskCancellation() async {
        let engine = makeEngine()
        let task = Task { try await engine.location(accuracy: .room, timeout: nil) }
        await eventually("the request is pending") { await engine.statistics().pendingOneShots == 1 }
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
        await engine.sync()
        let stats = await engine.statistics()
        #expect(stats.pendingOneShots == 0 && stats.oneShotsCancelled == 1)
        #expect(!source.isRunning)
    }

    @Test("a task cancelled before it asks still ends at once")
    func cancelledBeforeSubmitting() async {
        let engine = makeEngine()
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await engine.location(accuracy: .room, timeout: nil)
        }
        await #expect(throws: CancellationError.self) { try await task.value }
        await engine.sync()
        #expect(await engine.statistics().pendingOneShots == 0)
    }

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

    @Test("handlers may submit and cancel re-entrantly without deadlock")
    func reentrantHandlers() async {
        let engine = makeEngine()
        let victim = engine.location(accuracy: .room, timeout: nil) { result in
            self.recorder.record(result, for: RequestID(rawValue: 0))
        }
        let followUp = IDSlot()
        engine.location(accuracy: .block, timeout: nil) { [recorder] _ in
            engine.cancel(victim)
            followUp.set(engine.location(accuracy: .block, timeout: nil) { result in
                recorder.record(result, for: RequestID(rawValue: 1))
            })
        }
        await engine.sync()
        source.emit(fix(50))
        await engine.sync()
        #expect(recorder.results(RequestID(rawValue: 1)).map(\.status) == [.success], "the follow-up completes from the cache")
        #expect(recorder.results(RequestID(rawValue: 0)).isEmpty, "the victim was cancelled before the 50 m fix could not satisfy it anyway")
        #expect(followUp.id != nil)
        #expect(await engine.statistics().oneShotsCancelled == 1)
        #expect(!source.isRunning)
    }

    @Test("linger powers the source down on the virtual clock's timer")
    func lingerViaTimer() async {
        let engine = makeEngine(linger: .seconds(30))
        engine.location(accuracy: .block, timeout: nil) { _ in }
        await engine.sync()
        source.emit(fix(10))
        await engine.sync()
        #expect(source.isRunning)
        clock.advance(by: .seconds(29))
        await engine.sync()
        #expect(source.isRunning)
        clock.advance(by: .seconds(1))
        await engine.sync()
        #expect(!source.isRunning)
        let stats = await engine.statistics()
        #expect(stats.sourceStarts == 1 && stats.sourceStops == 1 && stats.sourceOnTime == .seconds(30))
    }

    @Test("events a source sends after it was stopped are ignored")
    func staleSourceEventsIgnored() async {
        let leaky = LeakySource()
        let engine = LocationEngine(source: leaky, clock: clock, configuration: .init(linger: .zero), logger: quietLogger)
        Task { try await engine.run() }
        engine.location(accuracy: .block, timeout: nil) { _ in }
        await engine.sync()
        leaky.sinks[0].location(fix(10))
        await engine.sync()
        #expect(leaky.sinks.count == 1)
        let id = engine.location(accuracy: .room, timeout: nil, handler: recorder.oneShot)
        await engine.sync()
        #expect(leaky.sinks.count == 2)
        leaky.sinks[0].location(fix(1))
        await engine.sync()
        #expect(recorder.results(id).isEmpty, "the first session's sink is dead")
        leaky.sinks[1].location(fix(1))
        await engine.sync()
        #expect(recorder.results(id).map(\.status) == [.success])
    }

    @Test("fatal source error ends every one-shot once with the error")
    func fatalError() async {
        let engine = makeEngine()
        let ids = (0..<100).map { _ in
            let id = engine.location(accuracy: .room, timeout: .seconds(10), handler: recorder.oneShot)
            return id
        }
        await engine.sync()
        source.emitFatalError(SourceError(code: "test.gone", message: "unplugged"))
        await engine.sync()
        clock.advance(by: .seconds(20))
        await engine.sync()
        for id in ids {
            #expect(recorder.results(id).map(\.status) == [.failed(SourceError(code: "test.gone", message: "unplugged"))])
        }
        #expect(!source.isRunning)
    }

    @Test("shutdown ends everything and refuses later requests")
    func shutdown() async throws {
        let engine = makeEngine()
        async let pending = engine.location(accuracy: .room, timeout: nil)
        await eventually("pending") { await engine.statistics().pendingOneShots == 1 }
        await engine.shutdown()
        #expect(try await pending.status == .shutDown)
        #expect(try await engine.location(accuracy: .city, timeout: nil).status == .shutDown)
        #expect(!source.isRunning)
    }
}

/// A source that keeps every sink it was given, even after `stop()`, as a buggy source might.
final class LeakySource: LocationSource, Sendable {
    private let state = NIOLockedValueBox<[SourceEventSink]>([])
    let capabilities = SourceCapabilities(providesCourse: true)
    var sinks: [SourceEventSink] { state.withLockedValue { $0 } }
    func start(mode: PowerMode, events: SourceEventSink) { state.withLockedValue { $0.append(events) } }
    func setMode(_ mode: PowerMode) {}
    func stop() {}
}

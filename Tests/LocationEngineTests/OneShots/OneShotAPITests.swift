import LocationEngine
import LocationEngineTestKit
import Testing

/// One-shot requests through the engine, in their callback and async forms.
@Suite("One-shots through the engine: callback and async forms")
struct OneShotAPITests: EngineTestCase {
    let clock = ManualClock()
    let source = ScriptedLocationSource()
    let recorder = Recorder()

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

    @Test("a fix whose source says it is Int64.max seconds old is ancient, not new: it completes no request from the cache")
    func anAgeBeyondTheTimelineIsAncient() async {
        let engine = makeEngine()
        let first = engine.location(accuracy: .room, timeout: .seconds(10), handler: recorder.oneShot)
        await engine.sync()
        #expect(source.emit(fix(2), age: .seconds(Int64.max)))
        await engine.sync()
        #expect(recorder.results(first).isEmpty, "too old for the room's 15 s")
        let second = engine.location(accuracy: .city, timeout: .seconds(10), handler: recorder.oneShot)
        await engine.sync()
        #expect(recorder.results(second).isEmpty, "not from the cache either")
        clock.advance(by: .seconds(10))
        await engine.sync()
        #expect(recorder.results(first).map(\.status) == [.timedOut] && recorder.results(second).map(\.status) == [.timedOut])
    }

    @Test("a fix's age counts from when its source reported it: one that waited 20 s to be processed is 20 s old, not fresh; one processed within a second keeps its age")
    func aFixAgesWhileItWaits() async {
        let engine = makeEngine(running: false)
        let room = engine.location(accuracy: .room, timeout: nil, handler: recorder.oneShot)
        await engine.sync()
        let fresh = engine.location(accuracy: .custom(metres: 100, maximumAge: .zero), timeout: nil, handler: recorder.oneShot)
        await engine.sync()
        #expect(source.emit(fix(40)))
        clock.advance(by: .milliseconds(500))
        await engine.sync()
        #expect(recorder.results(fresh).map(\.status) == [.success], "a maximum age of zero is met by a fix processed at once")
        #expect(source.emit(fix(40)))
        clock.advance(by: .seconds(20))
        await engine.sync()
        #expect(await engine.lastKnownLocation()?.age == .seconds(20))
        // A fix from the future (its source's clock ahead) stays invalid however long it waited.
        #expect(source.emit(fix(3), age: .seconds(-5)))
        clock.advance(by: .seconds(10))
        await engine.sync()
        #expect(await engine.statistics().invalidFixes == 1)
        #expect(recorder.results(room).isEmpty)
        engine.cancel(room)
        await engine.sync()
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
}

@testable import LocationEngine
import LocationEngineTestKit
import Logging
import ServiceLifecycle
import Testing

@Suite("Engine lifetime: run() as a Service, awaitable shutdown, the one timer")
struct LifecycleTests: EngineTestCase {
    let clock = ManualClock()
    let source = ScriptedLocationSource()
    let recorder = Recorder()

    @Test("inside a ServiceGroup: graceful shutdown ends every pending request once with .shutDown, stops the source, run() returns")
    func serviceGroupGracefulShutdown() async throws {
        let engine = makeEngine(running: false)
        let group = ServiceGroup(configuration: .init(services: [engine], logger: Logger(label: "test")))
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            let oneShots = (0..<100).map { _ in engine.location(accuracy: .room, timeout: .seconds(60), handler: recorder.oneShot) }
            let subscription = engine.updates(handler: recorder.subscription)
            await eventually("the source runs") { source.isRunning }
            await group.triggerGracefulShutdown()
            try await tasks.next()
            for id in oneShots { #expect(recorder.results(id).map(\.status) == [.shutDown]) }
            #expect(recorder.events(subscription) == [.ended(.shutDown)])
            #expect(!source.isRunning)
            #expect(source.commands.last == .stop)
        }
        // Later requests end the same way, at once, on the caller's thread.
        let late = engine.location(accuracy: .city, handler: recorder.oneShot)
        #expect(recorder.results(late).map(\.status) == [.shutDown])
        let lateUpdates = engine.updates(handler: recorder.subscription)
        #expect(recorder.events(lateUpdates) == [.ended(.shutDown)])
    }

    @Test("a handler that cancels or force-completes a later recipient of the shutdown's endings is heard, as in any delivery; after the shutdown a withdrawal changes nothing")
    func aHandlersWithdrawalDuringShutdownIsHeard() async throws {
        let engine = makeEngine(running: false)
        let cancelled = IDSlot()
        let forced = IDSlot()
        let first = engine.location(accuracy: .room, timeout: nil) { result in
            recorder.oneShot(result)
            if let id = cancelled.id { engine.cancel(id) }
            if let id = forced.id { engine.forceComplete(id) }
        }
        let second = engine.location(accuracy: .room, timeout: nil, handler: recorder.oneShot)
        let third = engine.location(accuracy: .room, timeout: nil, handler: recorder.oneShot)
        let subscription = engine.updates(handler: recorder.subscription)
        cancelled.set(second)
        forced.set(third)
        await engine.sync()
        #expect(source.emit(fix(500)), "a fix not good enough for room: the best known so far")
        await engine.sync()
        await engine.shutdown()
        #expect(recorder.results(first).map(\.status) == [.shutDown])
        #expect(recorder.results(second).isEmpty, "cancelled before its ending was handed over")
        #expect(recorder.results(third).map(\.status) == [.forceCompleted], "force-completed with the best fix known")
        #expect(recorder.results(third).first?.location?.horizontalAccuracy == 500)
        #expect(recorder.events(subscription).last == .ended(.shutDown))
        engine.cancel(first)
        engine.forceComplete(subscription)
        await engine.sync()
        #expect(recorder.results(first).count == 1 && recorder.events(subscription).last == .ended(.shutDown))
    }

    @Test("cancelling the task running run() shuts the engine down at once")
    func cancellingRunShutsDown() async throws {
        let engine = makeEngine(running: false)
        let running = Task { try await engine.run() }
        let id = engine.location(accuracy: .room, timeout: nil, handler: recorder.oneShot)
        await eventually("the source runs") { source.isRunning }
        running.cancel()
        try await running.value
        #expect(recorder.results(id).map(\.status) == [.shutDown])
        #expect(!source.isRunning)
    }

    @Test("shutdown() can be awaited: when it returns, everything has ended and the source is off")
    func awaitableShutdown() async throws {
        let engine = makeEngine(linger: .seconds(30), running: false)
        let running = Task { try await engine.run() }
        let ids = (0..<1_000).map { index in
            engine.location(accuracy: .house, timeout: .seconds(Int64(1 + index)), handler: recorder.oneShot)
        }
        await engine.sync()
        #expect(source.isRunning)
        await eventually("the timer sleeps towards the first deadline") { clock.sleeperCount == 1 }
        await engine.shutdown()
        #expect(ids.allSatisfy { recorder.results($0).map(\.status) == [.shutDown] })
        #expect(!source.isRunning)
        #expect(await engine.nextWakeup() == nil)
        try await running.value
        #expect(clock.sleeperCount == 0, "the timer's lifetime ended with run()")
        await engine.shutdown()  // a second call returns too
    }

    @Test("run() is the lifetime: requests made before it starts wait for it, and its timer serves them")
    func runHostsTheLoop() async throws {
        let engine = makeEngine(running: false)
        let early = engine.location(accuracy: .room, timeout: .seconds(5), handler: recorder.oneShot)
        let running = Task { try await engine.run() }
        await eventually("the timer is armed") { clock.sleeperCount == 1 }
        clock.advance(by: .seconds(5))
        await eventually("the early request timed out") { !recorder.results(early).isEmpty }
        #expect(recorder.results(early).map(\.status) == [.timedOut])
        await engine.shutdown()
        try await running.value
    }

    @Test("a second run() while one is active throws; the first goes on")
    func runOnceAtATime() async throws {
        let engine = makeEngine(running: false)
        let running = Task { try await engine.run() }
        await eventually("run() is active") { await engine.isRunning }
        await #expect(throws: LocationEngineError.alreadyRunning) { try await engine.run() }
        let id = engine.location(accuracy: .room, timeout: .seconds(1), handler: recorder.oneShot)
        await eventually("the timer is armed") { clock.sleeperCount == 1 }
        clock.advance(by: .seconds(1))
        await eventually("the first run() served it") { !recorder.results(id).isEmpty }
        await engine.shutdown()
        try await running.value
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

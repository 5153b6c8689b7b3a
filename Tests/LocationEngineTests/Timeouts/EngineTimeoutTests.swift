import LocationEngine
import LocationEngineTestKit
import Testing

/// Timeouts through the engine: one timer for every deadline, on the engine's clock, counted from
/// when the request was made; an ended request never leaves a wake-up behind.
@Suite("Timeouts through the engine")
struct EngineTimeoutTests: EngineTestCase {
    let clock = ManualClock()
    let source = ScriptedLocationSource()
    let recorder = Recorder()

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

    @Test("timeout has a default: a one-shot without one times out after 30 s")
    func defaultTimeout() async {
        let engine = makeEngine()
        let id = engine.location(accuracy: .room, handler: recorder.oneShot)
        await engine.sync(advancingBy: .seconds(30) - .nanoseconds(1))
        #expect(recorder.results(id).isEmpty)
        await engine.sync(advancingBy: .nanoseconds(1))
        #expect(recorder.results(id).map(\.status) == [.timedOut])
    }

    @Test("a fix completing 1,000 one-shots with timeouts of 1…1000 s leaves no wake-up for them")
    func noWakeupsForEndedRequests() async {
        let engine = makeEngine(linger: .seconds(5))
        let ids = (1...1_000).map { seconds in
            engine.location(accuracy: .block, timeout: .seconds(Int64(seconds)), handler: recorder.oneShot)
        }
        await engine.sync()
        source.emit(fix(20))
        await engine.sync()
        #expect(ids.allSatisfy { recorder.results($0).map(\.status) == [.success] })
        // The next wake-up is the end of the linger, not the first ended request's deadline.
        #expect(await engine.nextWakeup() == clock.now.advanced(by: .seconds(5)))
        await eventually("the timer is armed for the linger") { clock.sleeperCount == 1 }
        for _ in 0..<1_000 {
            clock.advance(by: .seconds(1))
            await Task.yield()
        }
        await eventually("the linger ended") { !source.isRunning }
        await engine.sync()
        #expect(await engine.statistics().timerWakeups == 1)
        #expect(await engine.nextWakeup() == nil)
    }

    @Test("the loop's wake-ups are counted: each park of a running loop, none for an engine driven by sync() alone")
    func loopWakeupsAreCounted() async {
        let driven = makeEngine(running: false)
        _ = driven.location(accuracy: .block, timeout: .seconds(10), handler: recorder.oneShot)
        await driven.sync()
        #expect(await driven.statistics().loopWakeups == 0)

        let engine = makeEngine()
        await eventually("the loop parked with nothing to do") { await engine.statistics().loopWakeups == 1 }
        // A request wakes it; it parks again once it has handled it.
        let id = engine.location(accuracy: .block, timeout: .seconds(10), handler: recorder.oneShot)
        await eventually("the loop woke for the request and parked again") { await engine.statistics().loopWakeups == 2 }
        // So does its timer, for the request's deadline.
        clock.advance(by: .seconds(10))
        await eventually("the request timed out") { recorder.results(id).count == 1 }
        await eventually("the loop woke for its timer and parked again") { await engine.statistics().loopWakeups == 3 }
    }

    @Test("on one thread, a request wakes the parked loop and arms the timer in three task resumptions; its timeout takes three more")
    func handOffsOfOneRequest() async throws {
        let executor = SerialTaskExecutor()
        let engine = makeEngine(running: false)
        let lifetime = Task(executorPreference: executor) { try? await engine.run() }
        #expect(executor.runUntilIdle(jobLimit: 100), "the loop and the timer wait")
        var before = executor.jobsRun
        let id = engine.location(accuracy: .block, timeout: .seconds(10), handler: recorder.oneShot)
        #expect(executor.runUntilIdle(jobLimit: 100))
        // The loop, resumed where it parked, on the engine, and the timer's idle sleeper, sent towards the
        // deadline. Four when the loop's park ran off the engine: its return hopped back.
        #expect(executor.jobsRun - before == 3)
        before = executor.jobsRun
        clock.advance(by: .seconds(10))
        #expect(executor.runUntilIdle(jobLimit: 100))
        #expect(recorder.results(id).map(\.status) == [.timedOut])
        // The sleeper at the deadline, then the loop it wakes (four with the hop back, as above).
        #expect(executor.jobsRun - before == 3)
        Task(executorPreference: executor) { await engine.shutdown() }
        // Required: with jobs left, awaiting the lifetime would wait for ever (nothing else runs them).
        try #require(executor.runUntilIdle(jobLimit: 100), "shut down, every task of the engine has ended")
        await lifetime.value
    }

    @Test("nextWakeup() never reports a cancelled or force-completed request's deadline")
    func nextWakeupSkipsEndedRequests() async {
        let engine = makeEngine(running: false)
        let soon = engine.location(accuracy: .room, timeout: .seconds(1), handler: recorder.oneShot)
        let sooner = engine.location(accuracy: .room, timeout: .milliseconds(500), handler: recorder.oneShot)
        engine.location(accuracy: .room, timeout: .seconds(9), handler: recorder.oneShot)
        await engine.sync()
        #expect(await engine.nextWakeup() == clock.now.advanced(by: .milliseconds(500)))
        engine.cancel(sooner)
        engine.forceComplete(soon)
        await engine.sync()
        #expect(await engine.nextWakeup() == clock.now.advanced(by: .seconds(9)))
    }

    @Test("a timeout counts from when the request was made, not from when the engine processed it")
    func deadlineStampedAtSubmission() async {
        let engine = makeEngine(running: false)
        let id = engine.location(accuracy: .room, timeout: .seconds(5), handler: recorder.oneShot)
        clock.advance(by: .seconds(3))  // the engine has not processed the request yet
        await engine.sync()
        #expect(await engine.nextWakeup() == clock.now.advanced(by: .seconds(2)))
        await engine.sync(advancingBy: .seconds(2))
        #expect(recorder.results(id).map(\.status) == [.timedOut])
    }

    @Test("sync(advancingTo:) makes a fix arrive exactly at a deadline: the deadline expires first")
    func syncAdvancingTo() async {
        let engine = makeEngine(running: false)
        let start = clock.now
        let early = engine.location(accuracy: .house, timeout: .seconds(2), handler: recorder.oneShot)
        let late = engine.location(accuracy: .house, timeout: .seconds(5), handler: recorder.oneShot)
        let later = engine.location(accuracy: .house, timeout: .seconds(6), handler: recorder.oneShot)
        await engine.sync(advancingTo: start.advanced(by: .seconds(5)))
        #expect(recorder.results(early).first?.status == .timedOut)
        #expect(recorder.results(early).first?.age == nil)
        source.emit(fix(10))
        await engine.sync()
        #expect(recorder.results(late).map(\.status) == [.timedOut])
        #expect(recorder.results(later).map(\.status) == [.success])
    }
}

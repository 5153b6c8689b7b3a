import Atomics
import LocationEngineTestKit
import Testing

@testable import LocationEngine

/// The engine's one timer on a manual clock. Its lifetime (`run(fire:)`) runs in a task of the test's,
/// so the tests wait for what it does by yielding (`eventually`), never on the wall clock.
@Suite("Wake timer (one lifetime, one sleep at a time)")
struct WakeTimerTests {
    let clock = ManualClock()
    let fired = ManagedAtomic<Int>(0)

    /// A timer whose lifetime runs in the returned task (it ends when the timer is stopped).
    func makeTimer() -> (WakeTimer<ManualClock>, Task<Void, Never>) {
        let fired = self.fired
        let timer = WakeTimer(clock: clock, epoch: clock.now)
        let lifetime = Task { await timer.run { fired.wrappingIncrement(ordering: .relaxed) } }
        return (timer, lifetime)
    }

    func at(_ seconds: Int64) -> ManualClock.Instant { ManualClock.Instant(offset: .seconds(seconds)) }

    @Test("a later instant is reached by sleeping on; it fires once, at that instant")
    func laterInstantSleepsOn() async {
        let (timer, lifetime) = makeTimer()
        timer.arm(EngineInstant(.seconds(1)))
        await eventually("the timer sleeps") { clock.sleeperCount == 1 }
        timer.arm(EngineInstant(.seconds(2)))
        #expect(clock.sleeperCount == 1, "no second sleep")
        #expect(clock.advance(to: at(1)) == 1, "the first sleep ends at 1 s")
        await eventually("the timer sleeps on to 2 s") { clock.sleeperCount == 1 }
        #expect(fired.load(ordering: .relaxed) == 0)
        clock.advance(to: at(2))
        await eventually("it fires at 2 s") { fired.load(ordering: .relaxed) == 1 }
        timer.stop()
        await lifetime.value
    }

    @Test("an earlier instant cuts the sleep short; the later instant it replaced never fires")
    func earlierInstantCutsTheSleep() async {
        let (timer, lifetime) = makeTimer()
        timer.arm(EngineInstant(.seconds(5)))
        await eventually("the timer sleeps") { clock.sleeperCount == 1 }
        timer.arm(EngineInstant(.seconds(1)))
        await eventually("only the new sleep is left") { clock.sleeperCount == 1 }
        clock.advance(to: at(1))
        await eventually("it fires at 1 s") { fired.load(ordering: .relaxed) == 1 }
        clock.advance(to: at(10))
        await eventually("the timer waits for an instant") { clock.sleeperCount == 0 }
        #expect(fired.load(ordering: .relaxed) == 1)
        timer.stop()
        await lifetime.value
    }

    @Test("after firing it parks, and a new instant wakes it; disarmed or stopped, it does not fire")
    func parkRearmDisarmStop() async {
        let (timer, lifetime) = makeTimer()
        timer.arm(EngineInstant(.seconds(1)))
        await eventually("the timer sleeps") { clock.sleeperCount == 1 }
        clock.advance(to: at(1))
        await eventually("it fires") { fired.load(ordering: .relaxed) == 1 }
        timer.arm(EngineInstant(.seconds(3)))
        await eventually("the waiting timer sleeps again") { clock.sleeperCount == 1 }
        clock.advance(to: at(3))
        await eventually("it fires again") { fired.load(ordering: .relaxed) == 2 }

        timer.arm(EngineInstant(.seconds(5)))
        await eventually("the timer sleeps") { clock.sleeperCount == 1 }
        timer.arm(nil)
        clock.advance(to: at(6))
        await eventually("the timer waits for an instant") { clock.sleeperCount == 0 }
        #expect(fired.load(ordering: .relaxed) == 2, "disarmed: no fire")

        timer.arm(EngineInstant(.seconds(7)))
        await eventually("the timer sleeps") { clock.sleeperCount == 1 }
        timer.stop()
        await lifetime.value
        #expect(clock.sleeperCount == 0, "the stopped timer's lifetime has ended")
        clock.advance(to: at(8))
        timer.arm(EngineInstant(.seconds(9)))
        clock.advance(to: at(10))
        #expect(clock.sleeperCount == 0)
        #expect(fired.load(ordering: .relaxed) == 2, "stopped: no fire")
    }

    @Test("earlier instants, one after another, each replace the sleep with four task resumptions: no spin, every task on one thread")
    func earlierInstantsOnOneThread() async throws {
        let executor = SerialTaskExecutor()
        let fired = self.fired
        let timer = WakeTimer(clock: clock, epoch: clock.now)
        let lifetime = Task(executorPreference: executor) { await timer.run { fired.wrappingIncrement(ordering: .relaxed) } }
        #expect(executor.runUntilIdle(jobLimit: 100), "the timer waits for an instant")
        timer.arm(EngineInstant(.seconds(10)))
        #expect(executor.runUntilIdle(jobLimit: 100))
        #expect(clock.sleeperCount == 1, "it sleeps towards 10 s")
        for seconds: Int64 in [8, 5, 3] {
            let before = executor.jobsRun
            timer.arm(EngineInstant(.seconds(seconds)))
            // A replaced generation's sleep left behind would end every later one before its sleeper
            // could start: the tasks would hand work to each other for ever.
            #expect(executor.runUntilIdle(jobLimit: 100), "arming \(seconds) s settles")
            #expect(
                executor.jobsRun - before == 4,
                "the run woken, the old sleeper ending, the run again once it has ended, the new sleeper starting")
            #expect(clock.sleeperCount == 1, "only the sleep towards \(seconds) s is left")
        }
        clock.advance(to: at(3))
        #expect(executor.runUntilIdle(jobLimit: 100))
        #expect(fired.load(ordering: .relaxed) == 1, "it fires at 3 s, once")
        clock.advance(to: at(10))
        #expect(executor.runUntilIdle(jobLimit: 100))
        #expect(fired.load(ordering: .relaxed) == 1, "the instants it replaced never fire")
        timer.stop()
        // Required: with jobs left, awaiting the lifetime would wait for ever (nothing else runs them).
        try #require(executor.runUntilIdle(jobLimit: 100), "the stopped timer's lifetime ends")
        await lifetime.value
    }
}

import Atomics
import LocationEngineTestKit
import Testing

@testable import LocationEngine

/// The engine's one timer on a manual clock. Its task runs concurrently, so the tests wait for what
/// it does by yielding (`eventually`), never on the wall clock.
@Suite("Wake timer (one long-lived task)")
struct WakeTimerTests {
    let clock = ManualClock()
    let fired = ManagedAtomic<Int>(0)

    func makeTimer() -> WakeTimer<ManualClock> {
        let fired = self.fired
        return WakeTimer(clock: clock, epoch: clock.now) { fired.wrappingIncrement(ordering: .relaxed) }
    }

    func at(_ seconds: Int64) -> ManualClock.Instant { ManualClock.Instant(offset: .seconds(seconds)) }

    @Test("a later instant is reached by the same sleeping task; it fires once, at that instant")
    func laterInstantReusesTheTask() async {
        let timer = makeTimer()
        timer.arm(EngineInstant(.seconds(1)))
        await eventually("the timer sleeps") { clock.sleeperCount == 1 }
        timer.arm(EngineInstant(.seconds(2)))
        #expect(clock.sleeperCount == 1, "no second task")
        #expect(clock.advance(to: at(1)) == 1, "the first sleep ends at 1 s")
        await eventually("the timer sleeps on to 2 s") { clock.sleeperCount == 1 }
        #expect(fired.load(ordering: .relaxed) == 0)
        clock.advance(to: at(2))
        await eventually("it fires at 2 s") { fired.load(ordering: .relaxed) == 1 }
        timer.stop()
    }

    @Test("an earlier instant replaces the sleeping task; the replaced one never fires")
    func earlierInstantReplacesTheTask() async {
        let timer = makeTimer()
        timer.arm(EngineInstant(.seconds(5)))
        await eventually("the timer sleeps") { clock.sleeperCount == 1 }
        timer.arm(EngineInstant(.seconds(1)))
        await eventually("only the new task sleeps") { clock.sleeperCount == 1 }
        clock.advance(to: at(1))
        await eventually("it fires at 1 s") { fired.load(ordering: .relaxed) == 1 }
        clock.advance(to: at(10))
        await eventually("the task parks") { clock.sleeperCount == 0 }
        #expect(fired.load(ordering: .relaxed) == 1)
        timer.stop()
    }

    @Test("after firing it parks, and a new instant wakes it; disarmed or stopped, it does not fire")
    func parkRearmDisarmStop() async {
        let timer = makeTimer()
        timer.arm(EngineInstant(.seconds(1)))
        await eventually("the timer sleeps") { clock.sleeperCount == 1 }
        clock.advance(to: at(1))
        await eventually("it fires") { fired.load(ordering: .relaxed) == 1 }
        timer.arm(EngineInstant(.seconds(3)))
        await eventually("the parked task sleeps again") { clock.sleeperCount == 1 }
        clock.advance(to: at(3))
        await eventually("it fires again") { fired.load(ordering: .relaxed) == 2 }

        timer.arm(EngineInstant(.seconds(5)))
        await eventually("the timer sleeps") { clock.sleeperCount == 1 }
        timer.arm(nil)
        clock.advance(to: at(6))
        await eventually("the task parks") { clock.sleeperCount == 0 }
        #expect(fired.load(ordering: .relaxed) == 2, "disarmed: no fire")

        timer.arm(EngineInstant(.seconds(7)))
        await eventually("the timer sleeps") { clock.sleeperCount == 1 }
        timer.stop()
        await eventually("the stopped task ends") { clock.sleeperCount == 0 }
        clock.advance(to: at(8))
        timer.arm(EngineInstant(.seconds(9)))
        clock.advance(to: at(10))
        #expect(clock.sleeperCount == 0)
        #expect(fired.load(ordering: .relaxed) == 2, "stopped: no fire")
    }
}

// Counts the engine's hand-offs per 1,000 operations on the manual clock, a figure the code decides:
// `Scripts/check-performance-counts.sh` guards it against the baseline in Baselines/. Every task runs on
// one thread, one job at a time (``SerialTaskExecutor``), through a seeded scripted day (``Workload``),
// so the counts are the same on every machine and under any load: the engine loop's wake-ups (it parked
// and a command or its timer woke it), its timer's wake-ups, and every task resumption (jobs run).
// Context switches, which the kernel decides, stay a printed figure of locbench.
import LocationEngine
import LocationEngineTestKit
import NIOConcurrencyHelpers
#if canImport(Glibc)
import Glibc
#else
import Darwin
#endif

let arguments = CommandLine.arguments.dropFirst()
guard let target = arguments.first.flatMap({ Int($0) }), target > 0, arguments.count == 1 else {
    print("usage: EngineHandoffProbe <number of operations>")
    exit(2)
}

let executor = SerialTaskExecutor()
let clock = ManualClock()
let source = ScriptedLocationSource()
let engine = LocationEngine(source: source, clock: clock)
let lifetime = Task(executorPreference: executor) { try await engine.run() }
executor.runUntilIdle()

var workload = Workload()
var millisecond: Int64 = 0
while workload.operations < target {
    workload.step(at: millisecond, engine: engine, source: source, executor: executor)
    executor.runUntilIdle()
    millisecond += 1
    clock.advance(to: ManualClock.Instant(offset: .milliseconds(millisecond)))
    executor.runUntilIdle()
}
let jobs = executor.jobsRun
let ending = NIOLockedValueBox<SchedulerStatistics?>(nil)
Task(executorPreference: executor) {
    let figures = await engine.statistics()
    await engine.shutdown()
    _ = try? await lifetime.value
    ending.withLockedValue { $0 = figures }
}
executor.runUntilIdle()
guard let figures = ending.withLockedValue({ $0 }) else {
    print("EngineHandoffProbe: the engine had not shut down once every task was idle")
    exit(1)
}
let perThousand = { (count: Int) -> Double in Double(count) * 1000 / Double(workload.operations) }
print(
    """
    {"operations": \(workload.operations), "virtualSeconds": \(Double(millisecond) / 1000), \
    "handoffsPerThousandOperations": {"engine loop wake-ups": \(perThousand(figures.loopWakeups)), \
    "timer wake-ups": \(perThousand(figures.timerWakeups)), "task resumptions": \(perThousand(jobs))}}
    """)

import Benchmark
import Foundation
@_spi(Internals) import LocationEngine

/// The scheduler's cost per request at N = 1k, 100k and 1M pending.
///
/// Each benchmark does N operations per iteration and, besides package-benchmark's own metrics,
/// records the per-request figure as a custom metric (`ns/request`, `ns/fix`). Memory per pending
/// request is measured by `locbench`, which links jemalloc and reads its statistics; inside
/// package-benchmark's process, jemalloc's `mallctl` crashes and glibc's figures read zero.
let benchmarks: @Sendable () -> Void = {
    // CI sets LOCATIONENGINE_BENCHMARK_SHORT=1: fewer iterations and no 1M runs, for a quick table.
    let short = ProcessInfo.processInfo.environment["LOCATIONENGINE_BENCHMARK_SHORT"] == "1"
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .mallocCountTotal, .peakMemoryResident],
        warmupIterations: 1,
        maxDuration: .seconds(short ? 1 : 3),
        maxIterations: short ? 3 : 8)

    for n in short ? [1_000, 100_000] : [1_000, 100_000, 1_000_000] {
        registerEngineBenchmarks(n: n)
        registerStateMachineBenchmarks(n: n)
        registerAuthorizationBenchmarks(n: n)
    }
    registerCoarseningBenchmark()
    registerGeofenceBenchmarks(n: 100_000)
}

let nanosecondsPerRequest = BenchmarkMetric.custom("ns/request", polarity: .prefersSmaller, useScalingFactor: false)
let nanosecondsPerFix = BenchmarkMetric.custom("ns/fix", polarity: .prefersSmaller, useScalingFactor: false)

typealias Machine = SchedulerStateMachine<ClosureOneShotHandler, ClosureSubscriptionHandler, ClosureMonitorHandler>

/// Measures `body` with the continuous clock and records nanoseconds per operation.
@inline(__always)
func measure(_ benchmark: Benchmark, _ metric: BenchmarkMetric = nanosecondsPerRequest, operations: Int, _ body: () -> Void) {
    let clock = ContinuousClock()
    benchmark.startMeasurement()
    let start = clock.now
    body()
    let elapsed = start.duration(to: clock.now)
    benchmark.stopMeasurement()
    benchmark.measurement(metric, Int(elapsed.saturatingNanoseconds) / max(1, operations))
}


let accuracies: [LocationAccuracy] = [.city, .neighborhood, .block, .house, .room]
let coarseFix = Location(latitude: 48.1, longitude: 11.5, horizontalAccuracy: 2_000)
let preciseFix = Location(latitude: 48.1, longitude: 11.5, horizontalAccuracy: 3)

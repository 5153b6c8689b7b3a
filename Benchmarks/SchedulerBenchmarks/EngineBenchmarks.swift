import Benchmark
import Dispatch
import LocationEngine
import LocationEngineTestKit

/// Runs async work from a synchronous benchmark closure. package-benchmark's runtime hooks crash
/// async benchmark closures on Swift 6.3 without its runtime interposer (ordo-one/benchmark#349),
/// which is not available here; the benchmark thread is not a cooperative-pool thread, so blocking
/// it while the engine works on the pool is safe.
func runBlocking(_ body: @escaping @Sendable () async -> Void) {
    let done = DispatchSemaphore(value: 0)
    Task.detached {
        await body()
        done.signal()
    }
    done.wait()
}

/// Through the public callback API and the actor: what a user pays.
func registerEngineBenchmarks(n: Int) {
    Benchmark("Engine: submit one-shot (callback API), n=\(n)", configuration: .init(metrics: [.wallClock, nanosecondsPerRequest])) { benchmark in
        let clock = ManualClock()
        let engine = LocationEngine(source: ScriptedLocationSource(), clock: clock)
        measure(benchmark, operations: n) {
            for index in 0..<n {
                engine.location(accuracy: accuracies[index % 5], timeout: .seconds(Int64(30 + index % 60))) { _ in }
            }
        }
        runBlocking { await engine.sync() }
        runBlocking { await engine.shutdown() }
        runBlocking { await engine.sync() }
    }

    Benchmark("Engine: submit + processed by the actor, n=\(n)", configuration: .init(metrics: [.wallClock, nanosecondsPerRequest])) { benchmark in
        let clock = ManualClock()
        let engine = LocationEngine(source: ScriptedLocationSource(), clock: clock)
        let start = ContinuousClock.now
        benchmark.startMeasurement()
        for index in 0..<n {
            engine.location(accuracy: accuracies[index % 5], timeout: .seconds(Int64(30 + index % 60))) { _ in }
        }
        runBlocking { await engine.sync() }
        benchmark.stopMeasurement()
        benchmark.measurement(nanosecondsPerRequest, Int((ContinuousClock.now - start).saturatingNanoseconds) / n)
        runBlocking { await engine.shutdown() }
        runBlocking { await engine.sync() }
    }

    Benchmark("Engine: cancel (callback API, processed), n=\(n)", configuration: .init(metrics: [.wallClock, nanosecondsPerRequest])) { benchmark in
        let clock = ManualClock()
        let engine = LocationEngine(source: ScriptedLocationSource(), clock: clock)
        var ids: [RequestID] = []
        ids.reserveCapacity(n)
        for index in 0..<n {
            ids.append(engine.location(accuracy: accuracies[index % 5], timeout: .seconds(60)) { _ in })
        }
        runBlocking { await engine.sync() }
        let start = ContinuousClock.now
        benchmark.startMeasurement()
        for id in ids { engine.cancel(id) }
        runBlocking { await engine.sync() }
        benchmark.stopMeasurement()
        benchmark.measurement(nanosecondsPerRequest, Int((ContinuousClock.now - start).saturatingNanoseconds) / n)
    }
}

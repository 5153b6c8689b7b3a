import Benchmark
import LocationEngine
import LocationEngineTestKit

/// Through the public callback API and the actor: what a user pays.
func registerEngineBenchmarks(n: Int) {
    Benchmark("Engine: submit one-shot (callback API), n=\(n)", configuration: .init(metrics: [.wallClock, .mallocCountTotal, nanosecondsPerRequest, bytesPerPending])) { benchmark in
        let clock = ManualClock()
        let engine = LocationEngine(source: ScriptedLocationSource(), clock: clock)
        let before = heapInUse()
        measure(benchmark, operations: n) {
            for index in 0..<n {
                engine.requestLocation(accuracy: accuracies[index % 5], timeout: .seconds(Int64(30 + index % 60))) { _ in }
            }
        }
        await engine.sync()
        benchmark.measurement(bytesPerPending, (heapInUse() - before) / n)
        engine.shutdown()
        await engine.sync()
    }

    Benchmark("Engine: submit + processed by the actor, n=\(n)", configuration: .init(metrics: [.wallClock, nanosecondsPerRequest])) { benchmark in
        let clock = ManualClock()
        let engine = LocationEngine(source: ScriptedLocationSource(), clock: clock)
        let start = ContinuousClock.now
        benchmark.startMeasurement()
        for index in 0..<n {
            engine.requestLocation(accuracy: accuracies[index % 5], timeout: .seconds(Int64(30 + index % 60))) { _ in }
        }
        await engine.sync()
        benchmark.stopMeasurement()
        benchmark.measurement(nanosecondsPerRequest, Int((ContinuousClock.now - start).saturatingNanoseconds) / n)
        engine.shutdown()
        await engine.sync()
    }

    Benchmark("Engine: cancel (callback API, processed), n=\(n)", configuration: .init(metrics: [.wallClock, nanosecondsPerRequest])) { benchmark in
        let clock = ManualClock()
        let engine = LocationEngine(source: ScriptedLocationSource(), clock: clock)
        var ids: [RequestID] = []
        ids.reserveCapacity(n)
        for index in 0..<n {
            ids.append(engine.requestLocation(accuracy: accuracies[index % 5], timeout: .seconds(60)) { _ in })
        }
        await engine.sync()
        let start = ContinuousClock.now
        benchmark.startMeasurement()
        for id in ids { engine.cancel(id) }
        await engine.sync()
        benchmark.stopMeasurement()
        benchmark.measurement(nanosecondsPerRequest, Int((ContinuousClock.now - start).saturatingNanoseconds) / n)
    }
}

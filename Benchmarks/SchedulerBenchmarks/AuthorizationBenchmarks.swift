import Benchmark
import LocationEngine
import LocationEngineTestKit

/// Authorization and privacy in the core: what an answer, a revocation and a reduced-accuracy
/// switch cost per request, and what coarsening costs per fix.
func registerAuthorizationBenchmarks(n: Int) {
    Benchmark("Authorization: one answer admits n waiting one-shots, n=\(n)", configuration: .init(metrics: [.wallClock, .mallocCountTotal, nanosecondsPerRequest])) { benchmark in
        var machine = Machine(configuration: .init(authorization: .notDetermined, usage: UsageDeclarations(whenInUse: "benchmark")))
        var prompts = 0
        for index in 0..<n {
            let effects = machine.submitOneShot(
                RequestID(rawValue: UInt64(index + 1)), accuracy: accuracies[index % 5], timeout: .seconds(60), delayUntilAuthorized: true,
                purposeKey: nil, madeAt: nil, handler: { _ in }, now: .zero)
            prompts += effects.actions.filter { if case .requestAuthorization = $0 { true } else { false } }.count
        }
        precondition(prompts == 1, "one authorization request for \(n) waiting requests")
        measure(benchmark, operations: n) {
            deliver(machine.receiveAuthorization(.authorizedWhenInUse(), due: EngineInstant(.seconds(1)), answering: nil, now: EngineInstant(.seconds(1))))
        }
    }

    Benchmark("Authorization: revocation ends n one-shots + n/10 subscriptions, n=\(n)", configuration: .init(metrics: [.wallClock, .mallocCountTotal, nanosecondsPerRequest])) { benchmark in
        var machine = machineWithPendingOneShots(n, accuracy: { index in accuracies[index % 5] }, timeout: { _ in .seconds(60) })
        for index in 0..<(n / 10) {
            deliver(machine.subscribe(RequestID(rawValue: UInt64(n + index + 1)), options: SubscriptionOptions(), madeAt: nil, handler: { _, _ in }, now: .zero))
        }
        measure(benchmark, operations: n + n / 10) {
            deliver(machine.receiveAuthorization(.denied, due: EngineInstant(.seconds(1)), answering: nil, now: EngineInstant(.seconds(1))))
        }
    }

    Benchmark("Reduced accuracy: switch with n pending one-shots (4 of 5 end), n=\(n)", configuration: .init(metrics: [.wallClock, .mallocCountTotal, nanosecondsPerRequest])) { benchmark in
        var machine = machineWithPendingOneShots(n, accuracy: { index in accuracies[index % 5] }, timeout: { _ in .seconds(60) })
        measure(benchmark, operations: n) {
            deliver(machine.receiveAuthorization(
                AuthorizationState(status: .authorizedAlways, accuracy: .reduced), due: EngineInstant(.seconds(1)), answering: nil,
                now: EngineInstant(.seconds(1))))
        }
    }
}

/// Coarsening one fix (grid cell, honest accuracy), the per-fix cost under reduced accuracy.
func registerCoarseningBenchmark() {
    Benchmark("Reduced accuracy: coarsen one fix", configuration: .init(metrics: [.wallClock, .mallocCountTotal, nanosecondsPerFix])) { benchmark in
        let policy = ReducedAccuracyPolicy()
        var random = SplitMix64(seed: 1)
        let fixes = (0..<100_000).map { _ in
            Location(
                latitude: Double(random.int(170_000)) / 1000 - 85, longitude: Double(random.int(360_000)) / 1000 - 180,
                horizontalAccuracy: Double(random.int(100)))
        }
        var checksum = 0.0
        measure(benchmark, nanosecondsPerFix, operations: fixes.count) {
            for fix in fixes { checksum += policy.coarsen(fix).latitude }
        }
        blackHole(checksum)
    }
}

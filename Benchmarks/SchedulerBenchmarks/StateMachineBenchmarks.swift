import Benchmark
import LocationEngine

/// The pure core: the cost of the scheduling itself, without the inbox and the actor.
func registerStateMachineBenchmarks(n: Int) {
    Benchmark("Core: submit + complete one-shot, n=\(n)", configuration: .init(metrics: [.wallClock, .mallocCountTotal, nanosecondsPerRequest])) { benchmark in
        var machine = Machine()
        measure(benchmark, operations: n) {
            for index in 0..<n {
                deliver(machine.submitOneShot(
                    RequestID(rawValue: UInt64(index + 1)), accuracy: .block, timeout: .seconds(60),
                    delayUntilAuthorized: false, purposeKey: nil, madeAt: nil, handler: { _ in }, now: .zero))  // every event's actions are taken before the next event
            }
            deliver(machine.receiveFix(preciseFix, age: .zero, now: EngineInstant(nanoseconds: 1)))
        }
    }

    Benchmark("Core: cancel, n=\(n)", configuration: .init(metrics: [.wallClock, .mallocCountTotal, nanosecondsPerRequest])) { benchmark in
        var machine = machineWithPendingOneShots(n, accuracy: { index in accuracies[index % 5] }, timeout: { _ in .seconds(60) })
        measure(benchmark, operations: n) {
            for index in 0..<n {
                deliver(machine.withdraw(RequestID(rawValue: UInt64(index + 1)), .cancel, now: .zero))
            }
        }
    }

    Benchmark("Core: one fix completing n one-shots, n=\(n)", configuration: .init(metrics: [.wallClock, .mallocCountTotal, nanosecondsPerRequest])) { benchmark in
        var machine = machineWithPendingOneShots(n, accuracy: { index in accuracies[index % 5] }, timeout: { _ in .seconds(60) })
        measure(benchmark, operations: n) {
            deliver(machine.receiveFix(preciseFix, age: .zero, now: EngineInstant(nanoseconds: 1)))
        }
    }

    Benchmark("Core: one fix fanned out to n subscribers, n=\(n)", configuration: .init(metrics: [.wallClock, .mallocCountTotal, nanosecondsPerRequest])) { benchmark in
        var machine = Machine()
        for index in 0..<n {
            deliver(machine.subscribe(RequestID(rawValue: UInt64(index + 1)), options: SubscriptionOptions(), madeAt: nil, handler: { _, _ in }, now: .zero))
        }
        measure(benchmark, operations: n) {
            deliver(machine.receiveFix(preciseFix, age: .zero, now: EngineInstant(nanoseconds: 1)))
        }
    }

    Benchmark("Core: timeout expiry of n requests, n=\(n)", configuration: .init(metrics: [.wallClock, .mallocCountTotal, nanosecondsPerRequest])) { benchmark in
        var machine = machineWithPendingOneShots(n, accuracy: { _ in .room }, timeout: { index in .milliseconds(Int64(1 + index % 10_000)) })
        measure(benchmark, operations: n) {
            deliver(machine.advanceTime(now: EngineInstant(.seconds(11))))
        }
    }

    Benchmark("Core: fix satisfying none of n pending, n=\(n)", configuration: .init(metrics: [.wallClock, .mallocCountTotal, nanosecondsPerFix], scalingFactor: .kilo)) { benchmark in
        var machine = machineWithPendingOneShots(n, accuracy: { index in index % 2 == 0 ? .room : .house }, timeout: { _ in .seconds(600) })
        var delivered = 0
        measure(benchmark, nanosecondsPerFix, operations: benchmark.scaledIterations.count) {
            for iteration in benchmark.scaledIterations {
                delivered += deliver(machine.receiveFix(coarseFix, age: .zero, now: EngineInstant(nanoseconds: Int64(iteration + 1))))
            }
        }
        precondition(delivered == 0, "the coarse fix completed something")
    }
}

/// A machine with `n` pending one-shots (IDs 1…n), built outside the measured part.
func machineWithPendingOneShots(_ n: Int, accuracy: (Int) -> LocationAccuracy, timeout: (Int) -> Duration) -> Machine {
    var machine = Machine()
    for index in 0..<n {
        deliver(machine.submitOneShot(
            RequestID(rawValue: UInt64(index + 1)), accuracy: accuracy(index), timeout: timeout(index),
            delayUntilAuthorized: false, purposeKey: nil, madeAt: nil, handler: { _ in }, now: .zero))
    }
    return machine
}

/// Carries out an event's effects, calling every handler they name, as the engine does after each
/// event. Returns how many handlers it called.
@discardableResult
func deliver(_ effects: Machine.Effects) -> Int {
    var delivered = 0
    for index in 0..<effects.count {
        switch effects[index] {
        case .completeOneShots(let recipients, let result):
            for recipient in recipients { recipient.handler(result) }
            delivered += recipients.count
        case .notifySubscriptions(let recipients, let event):
            for recipient in recipients { recipient.handler(recipient.id, event) }
            delivered += recipients.count
        default:
            break
        }
    }
    return delivered
}

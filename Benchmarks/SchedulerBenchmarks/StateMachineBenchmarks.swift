import Benchmark
import LocationEngine

/// The pure core: the cost of the scheduling itself, without the inbox and the actor.
func registerStateMachineBenchmarks(n: Int) {
    Benchmark("Core: submit + complete one-shot, n=\(n)", configuration: .init(metrics: [.wallClock, .mallocCountTotal, nanosecondsPerRequest])) { benchmark in
        var machine = Machine()
        var actions: [Machine.Action] = []
        measure(benchmark, operations: n) {
            for index in 0..<n {
                machine.submitOneShot(
                    RequestID(rawValue: UInt64(index + 1)), accuracy: .block, timeout: .seconds(60),
                    handler: { _ in }, now: .zero, into: &actions)
            }
            machine.receiveFix(preciseFix, now: EngineInstant(nanoseconds: 1), into: &actions)
            deliver(actions)
        }
        blackHole(actions.count)
    }

    Benchmark("Core: cancel, n=\(n)", configuration: .init(metrics: [.wallClock, .mallocCountTotal, nanosecondsPerRequest])) { benchmark in
        var machine = machineWithPendingOneShots(n, accuracy: { index in accuracies[index % 5] }, timeout: { _ in .seconds(60) })
        var actions: [Machine.Action] = []
        measure(benchmark, operations: n) {
            for index in 0..<n {
                machine.cancel(RequestID(rawValue: UInt64(index + 1)), now: .zero, into: &actions)
                actions.removeAll(keepingCapacity: true)
            }
        }
    }

    Benchmark("Core: one fix completing n one-shots, n=\(n)", configuration: .init(metrics: [.wallClock, .mallocCountTotal, nanosecondsPerRequest])) { benchmark in
        var machine = machineWithPendingOneShots(n, accuracy: { index in accuracies[index % 5] }, timeout: { _ in .seconds(60) })
        var actions: [Machine.Action] = []
        measure(benchmark, operations: n) {
            machine.receiveFix(preciseFix, now: EngineInstant(nanoseconds: 1), into: &actions)
            deliver(actions)
        }
    }

    Benchmark("Core: one fix fanned out to n subscribers, n=\(n)", configuration: .init(metrics: [.wallClock, .mallocCountTotal, nanosecondsPerRequest])) { benchmark in
        var machine = Machine()
        var actions: [Machine.Action] = []
        for index in 0..<n {
            machine.subscribe(RequestID(rawValue: UInt64(index + 1)), options: SubscriptionOptions(), handler: { _, _ in }, now: .zero, into: &actions)
        }
        actions.removeAll(keepingCapacity: true)
        measure(benchmark, operations: n) {
            machine.receiveFix(preciseFix, now: EngineInstant(nanoseconds: 1), into: &actions)
            deliver(actions)
        }
    }

    Benchmark("Core: timeout expiry of n requests, n=\(n)", configuration: .init(metrics: [.wallClock, .mallocCountTotal, nanosecondsPerRequest])) { benchmark in
        var machine = machineWithPendingOneShots(n, accuracy: { _ in .room }, timeout: { index in .milliseconds(Int64(1 + index % 10_000)) })
        var actions: [Machine.Action] = []
        measure(benchmark, operations: n) {
            machine.advanceTime(now: EngineInstant(.seconds(11)), into: &actions)
            deliver(actions)
        }
    }

    Benchmark("Core: fix satisfying none of n pending, n=\(n)", configuration: .init(metrics: [.wallClock, .mallocCountTotal, nanosecondsPerFix], scalingFactor: .kilo)) { benchmark in
        var machine = machineWithPendingOneShots(n, accuracy: { index in index % 2 == 0 ? .room : .house }, timeout: { _ in .seconds(600) })
        var actions: [Machine.Action] = []
        measure(benchmark, nanosecondsPerFix, operations: benchmark.scaledIterations.count) {
            for iteration in benchmark.scaledIterations {
                machine.receiveFix(coarseFix, now: EngineInstant(nanoseconds: Int64(iteration + 1)), into: &actions)
            }
        }
        precondition(actions.isEmpty, "the coarse fix completed something")
    }
}

/// A machine with `n` pending one-shots (IDs 1…n), built outside the measured part.
func machineWithPendingOneShots(_ n: Int, accuracy: (Int) -> LocationAccuracy, timeout: (Int) -> Duration) -> Machine {
    var machine = Machine()
    var actions: [Machine.Action] = []
    for index in 0..<n {
        machine.submitOneShot(
            RequestID(rawValue: UInt64(index + 1)), accuracy: accuracy(index), timeout: timeout(index),
            handler: { _ in }, now: .zero, into: &actions)
    }
    return machine
}

/// Calls every handler the actions name, as the engine does after a transition.
func deliver(_ actions: [Machine.Action]) {
    for action in actions {
        switch action {
        case .completeOneShots(let recipients, let result):
            for recipient in recipients { recipient.handler(result) }
        case .notifySubscriptions(let recipients, let event):
            for recipient in recipients { recipient.handler(recipient.id, event) }
        default:
            break
        }
    }
}

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
            for action in actions {
                if case .completeOneShots(let handlers, let result) = action { for recipient in handlers { recipient.handler(result) } }
            }
        }
        blackHole(actions.count)
    }

    Benchmark("Core: cancel, n=\(n)", configuration: .init(metrics: [.wallClock, .mallocCountTotal, nanosecondsPerRequest])) { benchmark in
        var machine = Machine()
        var actions: [Machine.Action] = []
        for index in 0..<n {
            machine.submitOneShot(
                RequestID(rawValue: UInt64(index + 1)), accuracy: accuracies[index % 5], timeout: .seconds(60),
                handler: { _ in }, now: .zero, into: &actions)
        }
        actions.removeAll(keepingCapacity: true)
        measure(benchmark, operations: n) {
            for index in 0..<n {
                machine.cancel(RequestID(rawValue: UInt64(index + 1)), now: .zero, into: &actions)
                actions.removeAll(keepingCapacity: true)
            }
        }
    }

    Benchmark("Core: one fix completing n one-shots, n=\(n)", configuration: .init(metrics: [.wallClock, .mallocCountTotal, nanosecondsPerRequest])) { benchmark in
        var machine = Machine()
        var actions: [Machine.Action] = []
        for index in 0..<n {
            machine.submitOneShot(
                RequestID(rawValue: UInt64(index + 1)), accuracy: accuracies[index % 5], timeout: .seconds(60),
                handler: { _ in }, now: .zero, into: &actions)
        }
        actions.removeAll(keepingCapacity: true)
        measure(benchmark, operations: n) {
            machine.receiveFix(preciseFix, now: EngineInstant(nanoseconds: 1), into: &actions)
            for action in actions {
                if case .completeOneShots(let handlers, let result) = action { for recipient in handlers { recipient.handler(result) } }
            }
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
            for action in actions {
                if case .notifySubscriptions(let handlers, let event) = action { for recipient in handlers { recipient.handler(recipient.id, event) } }
            }
        }
    }

    Benchmark("Core: timeout expiry of n requests, n=\(n)", configuration: .init(metrics: [.wallClock, .mallocCountTotal, nanosecondsPerRequest])) { benchmark in
        var machine = Machine()
        var actions: [Machine.Action] = []
        for index in 0..<n {
            machine.submitOneShot(
                RequestID(rawValue: UInt64(index + 1)), accuracy: .room, timeout: .milliseconds(Int64(1 + index % 10_000)),
                handler: { _ in }, now: .zero, into: &actions)
        }
        actions.removeAll(keepingCapacity: true)
        measure(benchmark, operations: n) {
            machine.advanceTime(now: EngineInstant(.seconds(11)), into: &actions)
            for action in actions {
                if case .completeOneShots(let handlers, let result) = action { for recipient in handlers { recipient.handler(result) } }
            }
        }
    }

    Benchmark("Core: fix satisfying none of n pending, n=\(n)", configuration: .init(metrics: [.wallClock, .mallocCountTotal, nanosecondsPerFix], scalingFactor: .kilo)) { benchmark in
        var machine = Machine()
        var actions: [Machine.Action] = []
        for index in 0..<n {
            machine.submitOneShot(
                RequestID(rawValue: UInt64(index + 1)), accuracy: index % 2 == 0 ? .room : .house, timeout: .seconds(600),
                handler: { _ in }, now: .zero, into: &actions)
        }
        actions.removeAll(keepingCapacity: true)
        measure(benchmark, nanosecondsPerFix, operations: benchmark.scaledIterations.count) {
            for iteration in benchmark.scaledIterations {
                machine.receiveFix(coarseFix, now: EngineInstant(nanoseconds: Int64(iteration + 1)), into: &actions)
            }
        }
        precondition(actions.isEmpty, "the coarse fix completed something")
    }
}

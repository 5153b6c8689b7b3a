import LocationEngine
import LocationEngineTestKit

/// The probe's scripted day on the manual clock, in 1 ms steps: requests arrive in bursts (2 s on, 3 s
/// off), one-shots with the engine benchmarks' accuracies and 0.1–2 s timeouts (most time out, as a fix
/// comes once a second), a tenth of the callback ones cancelled a step later, a third awaited by a task of
/// their own, a subscription every 5 s that a caller cancels 3 s later, and a fix every second while the
/// source runs. Seeded: the same operations at the same instants on every run.
struct Workload {
    /// The operations made so far: requests, cancels and fixes.
    private(set) var operations = 0
    private var random = SplitMix64(seed: 0x6C6F_6362_656E_6368)
    private var toCancel: [RequestID] = []
    private var subscriptions: [(id: RequestID, endsAt: Int64)] = []
    private static let accuracies: [LocationAccuracy] = [.city, .neighborhood, .block, .house, .room]

    /// Makes the operations due at millisecond `now` of the day (the clock has just moved there).
    mutating func step(
        at now: Int64, engine: LocationEngine<ManualClock>, source: ScriptedLocationSource, executor: SerialTaskExecutor
    ) {
        for id in toCancel { engine.cancel(id) }
        operations += toCancel.count
        toCancel.removeAll(keepingCapacity: true)
        if now % 1000 == 0, source.emit(fix()) { operations += 1 }
        if now % 5000 == 0 {
            subscriptions.append((engine.updates(SubscriptionOptions()) { _, _ in }, now + 3000))
            operations += 1
        }
        while let first = subscriptions.first, first.endsAt <= now {
            engine.cancel(first.id)
            subscriptions.removeFirst()
            operations += 1
        }
        guard now % 5000 < 2000, random.oneIn(4) else { return }
        let accuracy = Self.accuracies[random.int(Self.accuracies.count)]
        let timeout = Duration.milliseconds(100 * (1 + random.int(20)))
        operations += 1
        if random.oneIn(3) {
            Task(executorPreference: executor) { _ = try? await engine.location(accuracy: accuracy, timeout: timeout) }
            return
        }
        let id = engine.location(accuracy: accuracy, timeout: timeout) { _ in }
        if random.oneIn(10) { toCancel.append(id) }
    }

    /// A fix 3–100 m accurate near one place.
    private mutating func fix() -> Location {
        let accuracy = 3 + Double(random.int(98))
        return Location(
            latitude: 52.52 + Double(random.int(1000)) * 1e-6, longitude: 13.40 + Double(random.int(1000)) * 1e-6,
            horizontalAccuracy: accuracy)
    }
}

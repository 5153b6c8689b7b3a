import LocationEngine
import LocationEngineTestKit
import NIOConcurrencyHelpers
import Testing

/// 100,000+ mixed requests through the real engine under the virtual clock.
@Suite("Load")
struct LoadTests {
    static let levels: [LocationAccuracy] = [.city, .neighborhood, .block, .house, .room]

    @Test("mixed load: every request ends exactly once, cancelled ones never deliver, the source ends off")
    func mixedLoad() async {
        var rng = SplitMix64(seed: 0x10CA_7E)
        let clock = ManualClock()
        let source = ScriptedLocationSource()
        let engine = LocationEngine(source: source, clock: clock, configuration: .init(linger: .seconds(2)), logger: quietLogger)
        Task { try await engine.run() }
        let ledger = Ledger()
        var known: [RequestID] = []
        let target = 100_000
        var step = 0
        let reentrantBudget = ReentrantBudget(10_000)

        @Sendable func oneShotHandler(_ reentrant: Bool) -> @Sendable (LocationResult) -> Void {
            { result in
                ledger.oneShotEnded(result, at: clock.now.offset)
                // Re-entrant submissions from inside a handler.
                if reentrant, reentrantBudget.take() {
                    let id = engine.location(accuracy: .city, timeout: .seconds(3), handler: oneShotHandler(false))
                    ledger.submitted(id, .oneShot(accuracy: .city, timeout: .seconds(3)), at: clock.now.offset)
                    let victim = RequestID(rawValue: result.requestID.rawValue &+ 7)
                    ledger.issuedCancel(victim, at: clock.now.offset)
                    engine.cancel(victim)
                }
            }
        }

        while known.count < target {
            for _ in 0..<400 {
                let roll = rng.int(100)
                let now = clock.now.offset
                switch roll {
                case 0..<65:
                    let accuracy: LocationAccuracy =
                        rng.oneIn(10)
                        ? .custom(metres: Double(rng.int(3000) + 1), maximumAge: .seconds(Int64(rng.int(120))))
                        : Self.levels[rng.int(5)]
                    let timeout: Duration? = rng.oneIn(8) ? nil : .milliseconds(Int64(100 + rng.int(30_000)))
                    let id = engine.location(accuracy: accuracy, timeout: timeout, handler: oneShotHandler(rng.oneIn(20)))
                    ledger.submitted(id, .oneShot(accuracy: accuracy, timeout: timeout), at: now)
                    known.append(id)
                case 65..<72:
                    let kinds: [SubscriptionKind] = [.standard, .standard, .passive, .significantChange, .heading]
                    let options = SubscriptionOptions(
                        kind: kinds[rng.int(5)],
                        accuracy: rng.oneIn(2) ? nil : Self.levels[rng.int(5)],
                        distanceFilter: rng.oneIn(3) ? 50 : 0,
                        minimumInterval: rng.oneIn(3) ? .seconds(2) : .zero,
                        maximumUpdates: rng.oneIn(2) ? rng.int(5) + 1 : nil,
                        duration: rng.oneIn(2) ? .seconds(Int64(rng.int(60) + 1)) : nil)
                    let id = engine.updates(options) { id, event in ledger.subscriptionEvent(id, event, at: clock.now.offset) }
                    ledger.submitted(id, .subscription(options), at: now)
                    known.append(id)
                case 72..<86:
                    guard !known.isEmpty else { continue }
                    let id = known[rng.int(known.count)]
                    ledger.issuedCancel(id, at: now)
                    engine.cancel(id)
                default:
                    guard !known.isEmpty else { continue }
                    let id = known[rng.int(known.count)]
                    ledger.issuedForceComplete(id, at: now)
                    engine.forceComplete(id)
                }
            }
            step += 1
            clock.advance(by: .milliseconds(100))
            await engine.sync()
            if step % 5 == 0 {
                let metres = [3.0, 8, 14, 40, 90, 400, 900, 2500, 4500, 8000][rng.int(10)]
                let location = Location(
                    latitude: 48 + Double(rng.int(1000)) / 100_000, longitude: 11,
                    horizontalAccuracy: metres, course: rng.oneIn(2) ? nil : Double(rng.int(360)))
                source.emit(location, age: rng.oneIn(10) ? .seconds(30) : .zero)
            }
            if step % 37 == 0 { source.emitTransientError(SourceError(code: "load.transient", message: "scripted")) }
            await engine.sync()
        }

        // Wind down: end what is left, let every timeout and the linger pass.
        for id in known {
            ledger.issuedForceComplete(id, at: clock.now.offset)
            engine.forceComplete(id)
        }
        await engine.sync()
        for _ in 0..<40 {
            clock.advance(by: .seconds(1))
            await engine.sync()
        }

        let stats = await engine.statistics()
        let summary = ledger.finish(stats)
        #expect(summary.violationCount == 0, "first violations: \(summary.violations.prefix(10))")
        #expect(summary.outcomes.values.reduce(summary.cancelled, +) >= target, "every request made ended or was cancelled")
        #expect(stats.pendingOneShots == 0 && stats.activeSubscriptions == 0)
        #expect(!source.isRunning, "the source ends off")
        #expect(stats.sourceStarts == stats.sourceStops)
        #expect(stats.oneShotsSucceeded > 1_000 && stats.oneShotsTimedOut > 1_000 && stats.oneShotsForceCompleted > 1_000,
            "the mix exercised every ending: \(stats)")
        #expect(stats.subscriptionUpdates > 1_000)
    }
}

/// A shared countdown for re-entrant submissions.
final class ReentrantBudget: Sendable {
    private let remaining: NIOLockedValueBox<Int>
    init(_ count: Int) { remaining = NIOLockedValueBox(count) }
    func take() -> Bool {
        remaining.withLockedValue {
            guard $0 > 0 else { return false }
            $0 -= 1
            return true
        }
    }
}

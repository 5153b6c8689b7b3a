import LocationEngine
import LocationEngineTestKit
import NIOConcurrencyHelpers
import Testing

/// Many engines at once on the cooperative pool, each driven only by its own `run()` loop (no `sync()`):
/// every wake-up between a caller's command, the loop's drain and the timer must arrive, or an awaited
/// result never comes and the test does not finish.
@Suite("Many engines at once: no lost wake-up")
struct ManyEnginesStressTests {
    /// An authorization provider whose changes the test pushes (as a system settings change would).
    final class PushedAuthorization: AuthorizationProvider {
        private let sink = NIOLockedValueBox<AuthorizationChangeSink?>(nil)
        func currentState() -> AuthorizationState { .authorizedAlways }
        func start(changes: AuthorizationChangeSink) { sink.withLockedValue { $0 = changes } }
        func requestAuthorization(_ prompt: AuthorizationPrompt, reply: AuthorizationReply) {}
        func requestTemporaryFullAccuracy(_ prompt: FullAccuracyPrompt, reply: AuthorizationReply) {}
        func confirmLocationButton(current: AuthorizationState, reply: AuthorizationReply) {}
        func push(_ state: AuthorizationState) { sink.withLockedValue { $0 }?(state) }
    }

    /// One engine's cycles: async requests force-completed, cancelled, ended by a downgrade to reduced
    /// accuracy, by a revocation, and by their timeout; each result awaited.
    static func cycle(engine: LocationEngine<ManualClock>, clock: ManualClock, user: PushedAuthorization, cycles: Int) async throws {
        for _ in 0..<cycles {
            let forced = engine.locationRequest(accuracy: .block, timeout: nil)
            let cancelled = engine.locationRequest(accuracy: .block, timeout: nil)
            let downgraded = engine.locationRequest(accuracy: .house, timeout: nil)
            engine.forceComplete(forced.id)
            engine.cancel(cancelled.id)
            #expect(try await forced.result().status == .forceCompleted)
            await #expect(throws: CancellationError.self) { try await cancelled.result() }

            user.push(.authorizedWhenInUse(accuracy: .reduced))
            #expect(try await downgraded.result().status == .accuracyReduced)
            user.push(.authorizedAlways)

            let revoked = engine.locationRequest(accuracy: .city, timeout: nil)
            await eventually("the request to revoke is pending") { await engine.statistics().pendingOneShots == 1 }
            user.push(.denied)
            #expect(try await revoked.result().status == .unauthorized(.denied))
            user.push(.authorizedAlways)

            // A timeout: the loop's timer, on the engine's own manual clock, must wake it.
            let timed = engine.locationRequest(accuracy: .room, timeout: .seconds(1))
            await eventually("the request to time out is pending") { await engine.statistics().pendingOneShots == 1 }
            clock.advance(by: .seconds(1))
            #expect(try await timed.result().status == .timedOut)
        }
    }

    @Test("eight engines, each cycling async requests, force-completes, cancels and authorization changes, all finish")
    func eightEngines() async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<8 {
                let clock = ManualClock()
                let user = PushedAuthorization()
                let engine = LocationEngine(
                    source: ScriptedLocationSource(), clock: clock,
                    configuration: .init(linger: .zero, authorizationProvider: user, usage: AuthorizationTests.declared), logger: quietLogger)
                group.addTask {
                    try await withThrowingTaskGroup(of: Void.self) { lifetime in
                        lifetime.addTask { try await engine.run() }
                        try await Self.cycle(engine: engine, clock: clock, user: user, cycles: 400)
                        await engine.shutdown()
                        try await lifetime.waitForAll()
                    }
                }
            }
            try await group.waitForAll()
        }
    }
}

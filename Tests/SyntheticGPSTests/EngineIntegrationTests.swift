import LocationEngine
import LocationEngineTestKit
import TestSupport
import Testing
@testable import SyntheticGPS

/// The engine's power policy, observed end to end through the synthetic receiver in virtual time.
@Suite struct EngineIntegrationTests {
    /// Moves the source's virtual time and the engine's clock together, one second at a time.
    private func run(
        _ seconds: Int, source: SyntheticLocationSource, clock: ManualClock, engine: LocationEngine<ManualClock>
    ) async {
        for _ in 0..<seconds {
            source.advance(by: .seconds(1))
            clock.advance(by: .seconds(1))
            await engine.sync()
        }
    }

    @Test func aBlockRequestRunsTheReceiverInMediumAndASubsequentRoomRequestInBest() async throws {
        let clock = ManualClock()
        let source = SyntheticLocationSource(scenario: .drive(seed: 3))
        let engine = LocationEngine(source: source, clock: clock, logger: silentLogger)
        Task { try await engine.run() }

        let block = Task { try await engine.location(accuracy: .block, timeout: .seconds(120)) }
        for _ in 0..<10_000 where source.mode == nil {
            await engine.sync()
            await Task.yield()
        }
        #expect(source.mode == .medium, "block (100 m) needs the medium mode, no more")
        await run(130, source: source, clock: clock, engine: engine)
        let coarse = try await withDeadline(seconds: 60) { try await block.value }
        #expect(coarse.status == .success)
        #expect(coarse.location!.horizontalAccuracy <= 100)

        let room = Task { try await engine.location(accuracy: .room, timeout: .seconds(120)) }
        for _ in 0..<10_000 where source.mode != .best {
            await engine.sync()
            await Task.yield()
        }
        #expect(source.mode == .best)
        await run(130, source: source, clock: clock, engine: engine)
        let fine = try await withDeadline(seconds: 60) { try await room.value }
        #expect(fine.status == .success)
        #expect(fine.location!.horizontalAccuracy <= 5)
        #expect(fine.location!.course != nil)

        // With no request left the engine stops the source after its linger: off produces nothing.
        await run(30, source: source, clock: clock, engine: engine)
        #expect(source.mode == nil)
        await engine.shutdown()
    }
}

@_spi(Internals) import LocationEngine
import LocationEngineTestKit
import Testing
@testable import SyntheticGPS

/// The synthetic source with a receiver persona: it describes the receiver to the engine, waits where the
/// engine's restart-aware policy tells it, and meters its own current.
@Suite struct MeteredSourceTests {
    @Test func aMediaTekStandsByAtTheBreakEvenAndItsMeterSaysSo() async throws {
        let clock = ManualClock()
        let source = SyntheticLocationSource(scenario: .stationary(seed: 3), persona: .mediatek)
        let profile = try #require(source.capabilities.powerProfile)
        // A 2 s hot start acquires at 82.5 mW in place of tracking at 66 mW: 33 mJ against 66 − 6.6 mW of
        // tracking over standby, 0.56 s.
        let breakEven = try #require(PowerDownDecider(profile: profile).breakEven(from: .on, to: .standby, mode: .best))
        #expect(abs(Double(breakEven.saturatingNanoseconds) / 1e9 - 33 / 59.4) < 1e-3)
        var configuration = LocationEngineConfiguration()
        configuration.powerDown = .restartAware(trust: 1)
        let engine = LocationEngine(source: source, clock: clock, configuration: configuration)
        Task { try await engine.run() }
        let request = Task { try await engine.location(accuracy: .room, timeout: .seconds(120)) }
        for _ in 0..<10_000 where source.mode == nil {
            await engine.sync()
            await Task.yield()
        }
        var elapsed = Duration.zero
        while await engine.statistics().pendingOneShots > 0 && elapsed < .seconds(120) {
            elapsed += .milliseconds(100)
            source.advance(to: elapsed)
            clock.advance(to: ManualClock.Instant(offset: elapsed))
            await engine.sync()
        }
        #expect(try await request.value.status == .success)
        let acquiring = try #require(source.energyMeter?.seconds[.acquisition])
        #expect(acquiring > 0)
        // Still on just before the break-even, in standby after it.
        let demandEnded = elapsed
        for step in [breakEven - .milliseconds(50), breakEven + .milliseconds(50)] {
            source.advance(to: demandEnded + step)
            clock.advance(to: ManualClock.Instant(offset: demandEnded + step))
            await engine.sync()
        }
        #expect(source.mode == nil)
        let statistics = await engine.statistics()
        #expect(statistics.idleState == .standby && statistics.powerDownsToStandby == 1)
        source.advance(to: demandEnded + .seconds(60))
        let meter = try #require(source.energyMeter)
        #expect(meter.phase == .standby && meter.current == 2)
        #expect(abs((meter.seconds[.standby] ?? 0) - (60 - breakEven.seconds)) < 0.1)
        await engine.shutdown()
    }

    @Test func theProfilesFollowThePersonas() {
        #expect(ReceiverPersona.plain.powerProfile == nil)
        let ublox = ReceiverPersona.ublox.powerProfile!
        #expect(abs(ublox.off - 0.06) < 1e-9 && abs(ublox.trackingPower(.best) - 87) < 1e-9)
        let mediatek = ReceiverPersona.mediatek.powerProfile!
        #expect(mediatek.off == mediatek.standby, "over a serial line a MediaTek goes no deeper than standby")
        // Periodic standby for the medium mode: 2 s at 20 mA, 3 s at 2 mA.
        #expect(abs(ReceiverPersona.mediatek.trackingCurrent(.medium) - 9.2) < 1e-9)
        #expect(SyntheticLocationSource(scenario: .stationary(seed: 1)).capabilities.powerProfile == nil)
    }
}

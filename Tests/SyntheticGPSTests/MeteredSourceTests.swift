@_spi(Internals) import LocationEngine
import LocationEngineTestKit
import TestSupport
import NIOConcurrencyHelpers
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
        let engine = LocationEngine(source: source, clock: clock, configuration: configuration, logger: silentLogger)
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
        #expect(try await withDeadline(seconds: 60) { try await request.value }.status == .success)
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

/// The engine's own energy figure against the receiver's meter: the engine counts what the receiver confirmed.
@Suite struct ConfirmedEnergyTests {
    /// Runs one-shots with gaps between them (short, past the break-even, past the ephemerides' validity) and
    /// returns the engine's energy figure, the meter's, and the engine's statistics.
    static func run(
        _ persona: ReceiverPersona, fault: ReceiverFault?, hidingConfirmations: Bool = false, citySubscription: Duration? = nil
    ) async throws -> (engine: Double, meter: Double, SchedulerStatistics) {
        let clock = ManualClock()
        let source = SyntheticLocationSource(scenario: .stationary(seed: 3), persona: persona, fault: fault)
        let engine = LocationEngine(
            source: hidingConfirmations ? UnconfirmingSource(base: source) : source, clock: clock, configuration: LocationEngineConfiguration(),
            logger: silentLogger)
        Task { try await engine.run() }
        var elapsed = Duration.zero
        // The source and the clock move together: in 100 ms steps while the receiver runs, and from one of the
        // engine's wake-ups (or the receiver's confirmations) to the next while it is down (each step down
        // happens at its instant). The clock first, so that what the source reports is taken at its instant.
        func advance(by duration: Duration) async {
            let end = elapsed + duration
            while elapsed < end {
                var next = min(end, elapsed + .milliseconds(100))
                if source.mode == nil {
                    var wakeup = await engine.nextWakeup()?.offset ?? end
                    if let due = source.nextConfirmationDue, due > elapsed { wakeup = min(wakeup, due) }
                    next = min(end, max(next, wakeup))
                }
                elapsed = next
                await engine.sync(advancingTo: ManualClock.Instant(offset: elapsed))
                source.advance(to: elapsed)
                await engine.sync(advancingTo: ManualClock.Instant(offset: elapsed))
            }
        }
        if let citySubscription {
            // A city-level subscription: the receiver runs in a duty-cycled mode for as long.
            let id = engine.updates(SubscriptionOptions(accuracy: .city)) { _, _ in }
            await engine.sync(advancingTo: ManualClock.Instant(offset: elapsed))
            await advance(by: citySubscription)
            engine.cancel(id)
        }
        for (accuracy, gap) in [(LocationAccuracy.room, Duration.seconds(30)), (.block, .seconds(300)), (.city, .seconds(9000)), (.room, .seconds(60))] {
            let succeeded = await engine.statistics().oneShotsSucceeded
            // Submitted here and now (the callback form), so time moves only once the request is in.
            _ = engine.location(accuracy: accuracy, timeout: .seconds(120)) { _ in }
            var waited = Duration.zero
            while await engine.statistics().oneShotsSucceeded == succeeded, waited < .seconds(130) {
                await advance(by: .milliseconds(100))
                waited += .milliseconds(100)
            }
            #expect(await engine.statistics().oneShotsSucceeded == succeeded + 1)
            await advance(by: gap)
        }
        let statistics = await engine.statistics()
        let meter = try #require(source.energyMeter)
        await engine.shutdown()
        return (try #require(statistics.receiverEnergy), meter.energy, statistics)
    }

    @Test(arguments: [ReceiverPersona.mediatek, .ublox], [ReceiverFault?.none] + ReceiverFault.allCases.map(Optional.some))
    func theEnginesEnergyFigureIsTheMetersWithinOnePercent(persona: ReceiverPersona, fault: ReceiverFault?) async throws {
        let (engine, meter, statistics) = try await Self.run(persona, fault: fault, citySubscription: .seconds(120))
        #expect(abs(engine - meter) / meter < 0.01, "engine \(engine) J, meter \(meter) J")
        #expect(statistics.powerDownsToStandby + statistics.powerDownsToOff > 0, "the engine sent it down")
        // Refused, the receiver stayed on: it never restarted (the engine knows).
        #expect((statistics.lastRestartCondition == nil) == (fault == .refusesPowerDown))
    }

    @Test func aRefusedPowerSaveIsCostedAsTheContinuousTrackingTheReceiverKept() async throws {
        // The city subscription runs in a duty-cycled mode, which this receiver refuses.
        let refused = try await Self.run(.ublox, fault: .refusesPowerSave, citySubscription: .seconds(600))
        #expect(abs(refused.engine - refused.meter) / refused.meter < 0.01, "engine \(refused.engine) J, meter \(refused.meter) J")
        // Taking each command to have worked, the engine would have counted the power save it asked for.
        let assumed = try await Self.run(.ublox, fault: .refusesPowerSave, hidingConfirmations: true, citySubscription: .seconds(600))
        #expect(assumed.engine < 0.99 * assumed.meter, "engine \(assumed.engine) J, meter \(assumed.meter) J")
        // Planned from the setting the receiver kept, the power save is asked for again after a doubling backoff
        // (5 s, 10 s, … 5 min), not on every request: over the 600 s subscription at most 7 refusals (the backoffs
        // before the seventh add up to 315 s, the next is 300 s).
        #expect((1...7).contains(refused.2.sourceModesRefused), "\(refused.2.sourceModesRefused) refusals")
        #expect(assumed.2.sourceModesRefused == 0, "nothing confirmed, nothing refused")
    }

    @Test func aRefusedPowerDownCostsWhatTrackingCosts() async throws {
        let obeyed = try await Self.run(.mediatek, fault: nil)
        let refused = try await Self.run(.mediatek, fault: .refusesPowerDown)
        #expect(refused.engine > 5 * obeyed.engine, "obeyed \(obeyed.engine) J, refused \(refused.engine) J")
        // Taking each command to have worked, the engine would have counted the refused receiver as obeying.
        let assumed = try await Self.run(.mediatek, fault: .refusesPowerDown, hidingConfirmations: true)
        #expect(abs(assumed.engine - obeyed.engine) / obeyed.engine < 0.02 && assumed.meter > 5 * assumed.engine)
    }

    @Test(arguments: [ReceiverFault?.none, .refusesPowerDown])
    func theMeterCountsTheStartsThatAcquire(fault: ReceiverFault?) throws {
        let source = SyntheticLocationSource(scenario: .stationary(seed: 3), persona: .mediatek, fault: fault)
        let recorder = EventRecorder()
        for (on, off) in [(Duration.seconds(0), Duration.seconds(60)), (.seconds(70), .seconds(80)), (.seconds(90), .seconds(100))] {
            source.advance(to: on)
            source.start(mode: .best, events: recorder.sink)
            source.advance(to: off)
            source.stop()
        }
        let meter = try #require(source.energyMeter)
        // A receiver that refused to power down never stopped tracking: only its first start acquired.
        #expect(meter.acquiringStarts == (fault == nil ? 3 : 1))
        let joules = ReceiverPowerPhase.allCases.map { meter.energy(in: $0) }.reduce(0, +)
        #expect(abs(joules - meter.energy) < 1e-9)
    }
}

/// What a faulty receiver confirms, and in what order.
@Suite struct FaultConfirmationTests {
    @Test("a receiver whose waking bytes were lost is set up once, in the latest setting asked: a mode changed meanwhile is never confirmed before the older one")
    func aWakeRetryConfirmsTheLatestSetting() {
        let source = SyntheticLocationSource(scenario: .stationary(seed: 3), persona: .mediatek, fault: .losesWakingBytes)
        let confirmed = NIOLockedValueBox<[(PowerMode, Duration)]>([])
        source.start(mode: .best, events: SourceEventSink { event in
            if case .receiverTracking(let mode, let age) = event { confirmed.withLockedValue { $0.append((mode, age)) } }
        })
        source.advance(to: .milliseconds(400))
        source.setMode(.medium)
        #expect(confirmed.withLockedValue { $0.isEmpty }, "nothing is set up before the driver's retry")
        source.advance(to: .seconds(5))
        let confirmations = confirmed.withLockedValue { $0 }
        #expect(confirmations.map(\.0) == [.medium], "the setting the receiver tracks in, once")
        // Once set up, a change is confirmed at once again.
        source.setMode(.high)
        #expect(confirmed.withLockedValue { $0.map(\.0) } == [.medium, .high])
    }
}

/// A source that confirms nothing: the synthetic receiver with its reports of where it went dropped.
private struct UnconfirmingSource: LocationSource {
    let base: SyntheticLocationSource
    var capabilities: SourceCapabilities {
        var capabilities = base.capabilities
        capabilities.confirmsReceiverState = false
        return capabilities
    }
    func start(mode: PowerMode, events: SourceEventSink) {
        base.start(mode: mode, events: SourceEventSink { event in
            if case .receiverState = event { return }
            if case .receiverTracking = event { return }
            events.send(event)
        })
    }
    func setMode(_ mode: PowerMode) { base.setMode(mode) }
    func stop() { base.stop() }
    func stop(into state: ReceiverPowerProfile.IdleState) { base.stop(into: state) }
}

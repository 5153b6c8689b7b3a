@_spi(Internals) import LocationEngine
import LocationEngineTestKit
import LocbenchModel
import SyntheticGPS

/// How a run's time passes.
enum ClockKind: String, CaseIterable, Sendable {
    /// A manual clock moved by the runner: as fast as the machine allows, results independent of load.
    case virtual
    /// The continuous clock and real timers: measures timeout lateness for real.
    case wall
}

/// What one run measured.
struct RunMeasurements: Sendable {
    var design: String
    var wallSeconds: Double
    var cpuSeconds: Double
    /// Context switches of the whole process during the run (every thread: the engine's, the
    /// submitters', the clock driver's).
    var contextSwitches: ContextSwitches
    /// Times the engine's loop parked and was woken (`nil`: not the engine): the hand-offs the code makes,
    /// whatever the machine's load.
    var loopWakeups: Int?
    var timelineSeconds: Double
    var submitSeconds: Double
    var operationsSubmitted: Int
    var maxPending: Int
    var heapBytesPerPending: Double
    /// Heap above the run's baseline when pending peaked.
    var heapBytesAtPeak: Int
    var heapFromJemalloc: Bool
    var outcomes: [String: Int]
    var subscriptionUpdates: Int
    var latency: LatencySummary
    var latencyBuckets: [(upperMicroseconds: UInt64, count: UInt64)]
    var lateness: LatencySummary
    var latenessBuckets: [(upperMicroseconds: UInt64, count: UInt64)]
    /// Submission → success of the one-shots that waited for a fix, by level.
    var timeToAnswer: [String: LatencySummary]
    /// One-shots that succeeded from the cache when made (no delivery delay to measure).
    var answeredFromCache: Int
    var sourceStarts: Int
    var sourceStops: Int
    var sourceModeChanges: Int
    var timeInModes: [PowerMode: Int64]
    var sourceOffAtEnd: Bool
    var violations: [String]
    var violationCount: Int
    var timeline: [(seconds: Double, pending: Int)]
    /// The stretches the source spent in each mode, on the run's timeline.
    var sourceSegments: [Demand]
    /// The least on-time and energy any design could have spent on this run's demand.
    var oracle: PowerOracle
    /// The energy the synthetic receiver metered, joules (`nil`: no metered receiver).
    var meteredJoules: Double?
    /// The engine's own figure of the receiver's energy, joules (`nil`: not the engine, or no power profile).
    var ownEnergyJoules: Double?
    /// Every restart into continuous tracking (every such start but the first): start → first fix, how long the
    /// receiver was down, and the first-fix delay the power-down added.
    var restarts: [RecordingSource.RestartDelay]
    /// Authorization and temporary-full-accuracy prompts the design made.
    var authorizationPrompts: Int
    /// Authorization changes the design reported.
    var authorizationChanges: Int
    /// Deliveries checked to be coarse under reduced accuracy.
    var coarseDeliveriesChecked: Int
}

/// Drives one ``LocationService`` through a ``WorkloadPlan``, checking invariants as it goes.
struct Runner {
    let plan: WorkloadPlan
    let linger: Duration
    let progress: Progress?
    /// The engine's authorization picture at the start (from `--authorization`).
    var initialAuthorization: AuthorizationState = .authorizedAlways

    /// A virtual-clock run: the clock jumps to the next operation, fix or deadline, whichever is first.
    func runVirtual(
        design: String, label: String,
        makeService: (ManualClock, RecordingSource) -> any LocationService,
        source: SyntheticLocationSource,
        clock: ManualClock
    ) async -> RunMeasurements {
        // Latency is measured on the virtual timeline too: a fix's delivery delay as the run's clock sees it.
        let virtualNow: @Sendable () -> Int64 = { clock.now.offset.saturatingNanoseconds }
        let ledger = Ledger(plan: plan, now: virtualNow, initialAuthorization: initialAuthorization)
        let recording = RecordingSource(
            source, ledger: ledger, now: { clock.now.offset.saturatingNanoseconds }, fixInterval: .seconds(source.scenario.fixInterval),
            catchUp: { source.advance(to: clock.now.offset) })
        let service = makeService(clock, recording)
        var state = RunState(ledger: ledger, service: service, design: design, label: label, windDownGrace: .seconds(130))
        let tick: Int64 = 100_000_000
        var time: Int64 = 0
        while true {
            await state.submitDue(plan, through: time, stamp: { time }, progress: progress)
            let observed = await service.settleAndObserve()
            await state.sample(at: time, pending: observed.pending)
            if state.isDone(plan, at: time) { break }
            var wakeup = observed.nextWakeup
            if state.shouldWindDown(plan, at: time) {
                await state.windDown()
                wakeup = await service.nextWakeup()
            }
            var next = (time / tick + 1) * tick
            if state.nextOperation < plan.operations.count {
                let due = max(time + 1, plan.operations[state.nextOperation].at)
                // Idle (nothing pending, source off): nothing changes until the next operation, so jump to it.
                next = state.pending == 0 && recording.currentMode == nil ? due : min(next, due)
            }
            if let deadline = wakeup, deadline > time { next = min(next, deadline) }
            if let confirmation = source.nextConfirmationDue?.saturatingNanoseconds, confirmation > time { next = min(next, confirmation) }
            time = next
            // The clock first: fixes the source emits now are stamped (and processed) at `time`.
            clock.advance(to: ManualClock.Instant(offset: .nanoseconds(time)))
            source.advance(to: .nanoseconds(time))
        }
        // Let the linger (or the restart-aware policy's stay-on, at most a few break-evens) pass; the source must end off.
        let end = time + max(linger, .seconds(120)).saturatingNanoseconds + 1_000_000_000
        while time < end {
            var next = min(end, await service.nextWakeup().map { max($0, time + 1) } ?? end)
            if let confirmation = source.nextConfirmationDue?.saturatingNanoseconds, confirmation > time { next = min(next, confirmation) }
            time = next
            clock.advance(to: ManualClock.Instant(offset: .nanoseconds(time)))
            source.advance(to: .nanoseconds(time))
            await service.settle()
        }
        return await state.finish(recording: recording, end: time, checkAgainstFixes: true, meteredJoules: source.energyMeter?.energy)
    }

    /// A wall-clock run: operations are submitted when their time comes; timers are real.
    func runWall(design: String, label: String, makeService: (RecordingSource) -> any LocationService, source: any LocationSource, start: ContinuousClock.Instant) async -> RunMeasurements {
        let now: @Sendable () -> Int64 = { start.duration(to: .now).saturatingNanoseconds }
        let ledger = Ledger(plan: plan, now: now, initialAuthorization: initialAuthorization)
        let recording = RecordingSource(source, ledger: ledger, now: now)
        let service = makeService(recording)
        var state = RunState(ledger: ledger, service: service, design: design, label: label, windDownGrace: .seconds(5))
        while !state.isDone(plan, at: now()) {
            let time = now()
            await state.submitDue(plan, through: time, stamp: now, progress: progress)
            await state.sample(at: time)
            if state.shouldWindDown(plan, at: time) { await state.windDown() }
            var wait: Int64 = 5_000_000
            if state.nextOperation < plan.operations.count { wait = min(wait, max(0, plan.operations[state.nextOperation].at - time)) }
            try? await Task.sleep(for: .nanoseconds(wait))
        }
        // Let the linger (or the restart-aware policy's stay-on, at most a few break-evens) pass, as on the virtual
        // clock, bounded alike; the source must end off. A fixed linger's wait alone ended small runs while the
        // restart-aware policy still kept the receiver on.
        let deadline = ContinuousClock.now + max(linger, .seconds(120)) + .seconds(1)
        try? await Task.sleep(for: linger + .milliseconds(500))
        while recording.currentMode != nil, ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(100)) }
        let metered = (source as? SyntheticLocationSource)?.energyMeter?.energy
        return await state.finish(recording: recording, end: now(), checkAgainstFixes: false, meteredJoules: metered)
    }
}

import LocationEngine
import NIOConcurrencyHelpers

/// The synthetic receiver as a `LocationSource` for the engine.
///
/// In manual drive (the default) nothing happens until the owner moves time:
/// ```swift
/// let source = SyntheticLocationSource(scenario: .drive(seed: 7))
/// let engine = LocationEngine(source: source, clock: manualClock)   // the engine starts the source
/// source.advance(by: .seconds(30))   // every fix due in those 30 s goes to the sink, synchronously
/// ```
/// In real-time drive (``SourceDrive/realTime(_:)``) an internal task emits each fix when the clock
/// reaches it, until ``stop()``.
///
/// Power follows the engine: ``start(mode:events:)`` powers the receiver on (its time to first fix
/// depends on how long it was off, measured on the drive's time base), ``setMode(_:)`` changes
/// accuracy and rate, ``stop()`` powers it off — no fixes while off. Losing a fix (a tunnel) is
/// reported once as a transient error with code `"synthetic.noFix"`; the wait for a first fix (after a
/// start, or a switch between network and satellite positioning) is not a loss and is not reported.
///
/// With a ``ReceiverPersona`` the source behaves, for power, like that receiver under its driver: it describes
/// the receiver to the engine (`SourceCapabilities.powerProfile`, so the engine's restart-aware policy
/// applies), waits in the idle state the engine chooses (``stop(into:)``) and meters its own current
/// (``energyMeter``): acquisition until the first fix after a start, tracking or power save by mode,
/// standby or backup while stopped (a plain receiver keeps tracking). Before its first start it waits as if
/// stopped into backup (`off`). Its low and lowest modes are the receiver's duty-cycled GNSS, so its ephemerides
/// age only while it is powered down (``SyntheticReceiver/networkModesKeepEphemerides``): a restart is hot after
/// less than the ephemerides stay valid, as the persona's ``ReceiverPersona/powerProfile`` tells the engine.
public final class SyntheticLocationSource: LocationSource {
    /// Fixes carry a course; with a persona, the receiver's power profile.
    public let capabilities: SourceCapabilities
    /// The receiver whose current is metered, if any.
    public let persona: ReceiverPersona?

    private struct State: Sendable {
        var receiver: SyntheticReceiver
        var sink: SourceEventSink?
        var virtualNow = 0.0
        var task: Task<Void, Never>?
        var generation: UInt64 = 0
        var hadFix = false
        var lastEpoch: SyntheticEpoch?
        var meter: ReceiverEnergyMeter?
        var meteredUntil = 0.0
        /// Until when the receiver acquires after its last start (metered at acquisition current).
        var acquisitionUntil = 0.0
        /// Where the receiver waits while stopped.
        var idle = ReceiverPowerProfile.IdleState.off
        /// The last session's sink, kept after a stop for reporting where the receiver went.
        var reportSink: SourceEventSink?
        /// The mode it kept tracking in when it refused a power-down (``ReceiverFault/refusesPowerDown``).
        var trackingAfterRefusal: PowerMode?
        /// Confirmations not reported yet (a ``fault`` that delays them), in order of when they are due.
        /// Each with when the receiver got where it reports (its age is counted from then when it is sent).
        var pendingReports: [(due: Double, reached: Double, event: SourceEvent)] = []
    }

    private let state: NIOLockedValueBox<State>
    private let timeBase: TimeBase?
    /// How the persona's receiver misbehaves, if it does (metered as it behaves, reported as it confirms).
    public let fault: ReceiverFault?

    /// A source for `scenario`, powered off, whose time is moved by `drive`; with `persona`, metering that
    /// receiver's current, describing it to the engine and reporting the setting it confirms at each start and
    /// change of mode and where it goes at each stop (`SourceCapabilities.confirmsReceiverState`). With
    /// `fault`, the receiver misbehaves so (see ``ReceiverFault``).
    public init(scenario: Scenario, drive: SourceDrive = .manual, persona: ReceiverPersona? = nil, fault: ReceiverFault? = nil) {
        self.fault = persona == nil ? nil : fault
        var initial = State(receiver: SyntheticReceiver(scenario: scenario, mode: nil))
        // A persona serves the network modes with its duty-cycled GNSS, which keeps the ephemerides fresh.
        initial.receiver.networkModesKeepEphemerides = persona != nil
        initial.meter = persona.map { ReceiverEnergyMeter(supplyVoltage: $0.currentProfile.supplyVoltage) }
        state = NIOLockedValueBox(initial)
        self.persona = persona
        // Without a persona nothing describes the receiver's cold start: the scenario's says how long its first
        // start may take, so that the engine does not judge a cold start silent.
        let coldStart: Duration? = persona == nil ? .seconds(scenario.startCondition.timeToFirstFix.upperBound) : nil
        capabilities = SourceCapabilities(
            providesCourse: true, powerProfile: persona?.powerProfile, confirmsReceiverState: persona != nil, firstFixTime: coldStart,
            firstFixByMode: Self.firstFixTimes(fixInterval: scenario.fixInterval))
        switch drive.kind {
        case .manual: timeBase = nil
        case .clock(let make): timeBase = make()
        }
    }

    /// How soon the receiver's first fix comes in each mode once it can fix, as it tells the engine: its run
    /// window comes first, so a network mode answers once its locator is ready (at most 1.5 s) and a satellite
    /// mode within a hot start (at most 3 s), each on the next epoch of the scenario's grid.
    static func firstFixTimes(fixInterval: Double) -> [PowerMode: Duration] {
        var times: [PowerMode: Duration] = [:]
        for mode in PowerMode.allCases {
            let ready = PowerModeProfile.standard(mode).usesSatellites ? StartCondition.hot.timeToFirstFix.upperBound : SyntheticReceiver.networkReadiness.upperBound
            // Bounded by a year: an interval no tool allows must still not trap the conversion to a Duration.
            times[mode] = .seconds(ready + min(max(0, fixInterval), 31_557_600))
        }
        return times
    }

    /// The scenario being simulated.
    public var scenario: Scenario { state.withLockedValue { $0.receiver.scenario } }

    /// Time since the source was created on its time base.
    public var elapsed: Duration { .seconds(currentTime()) }

    /// The most recent epoch the receiver produced (with its ground truth), fix or not.
    public var lastEpoch: SyntheticEpoch? { state.withLockedValue { $0.lastEpoch } }

    /// The receiver's power mode, or `nil` while stopped.
    public var mode: PowerMode? { state.withLockedValue { $0.receiver.mode } }

    /// Powers the receiver on in `mode` now (on the drive's time base) and reports to `events` until ``stop()``.
    public func start(mode: PowerMode, events: SourceEventSink) {
        let now = currentTime()
        let (replaced, due) = state.withLockedValue { state in
            meter(&state, to: now)
            let condition = state.receiver.gnssStoppedAt.map { StartCondition(offFor: now - $0) } ?? state.receiver.scenario.startCondition
            let setting = setting(for: mode, keeping: state.trackingAfterRefusal ?? .best)
            state.receiver.powerOn(mode: setting, at: now)
            // A start in a network mode gets its fixes from the network, but the receiver it stands for (in a
            // periodic mode) acquires too: for the middle of its start condition's time to first fix.
            let range = condition.timeToFirstFix
            state.acquisitionUntil =
                PowerModeProfile.standard(mode).usesSatellites ? state.receiver.gnssReadyAt : now + (range.lowerBound + range.upperBound) / 2
            // It never stopped tracking: no acquisition to meter.
            let woke = state.trackingAfterRefusal == nil
            if woke { state.meter?.countAcquiringStart() } else { state.acquisitionUntil = now }
            state.trackingAfterRefusal = nil
            // A setting confirmed late belongs to the session it was asked in.
            state.pendingReports.removeAll { if case .receiverTracking = $0.event { true } else { false } }
            state.sink = events
            state.reportSink = events
            state.hadFix = false
            let due = confirm(.receiverTracking(setting), &state, at: now + (woke && fault == .losesWakingBytes ? ReceiverFault.wakeRetry : 0))
            return (restartTask(&state), due)
        }
        replaced?.cancel()
        reportDue(due)
    }

    /// Switches the running receiver to `mode` now: its accuracy and fix interval change from the next epoch.
    public func setMode(_ mode: PowerMode) {
        let now = currentTime()
        let (replaced, due) = state.withLockedValue { state -> (Task<Void, Never>?, [SourceEvent]) in
            guard let current = state.receiver.mode else { return (nil, []) }
            meter(&state, to: now)
            let mode = setting(for: mode, keeping: current)
            let due = confirm(.receiverTracking(mode), &state, at: now)
            guard mode != current else { return (nil, due) }
            state.receiver.setMode(mode, at: now)
            // A persona's network modes are its duty-cycled GNSS, which keeps tracking: leaving them starts no
            // acquisition. Without a persona the meter is not read.
            if persona == nil, PowerModeProfile.standard(mode).usesSatellites, !PowerModeProfile.standard(current).usesSatellites {
                state.acquisitionUntil = state.receiver.gnssReadyAt
            }
            // Between network and satellite positioning the receiver acquires afresh: the gap before
            // its first fix is not a lost fix, and is not reported as one.
            if PowerModeProfile.standard(current).usesSatellites != PowerModeProfile.standard(mode).usesSatellites {
                state.hadFix = false
            }
            return (restartTask(&state), due)
        }
        replaced?.cancel()
        reportDue(due)
    }

    /// Powers the receiver off now; nothing more is reported. Idempotent. (With a persona, into backup:
    /// ``stop(into:)`` with `off`.)
    public func stop() { stop(into: .off) }

    /// Powers the receiver down now into `state` (metered as the persona waits there; the synthetic receiver
    /// restarts hot or warm by how long it was down, whichever state); nothing more is reported. Again while
    /// stopped, it moves the receiver to `state`.
    public func stop(into idle: ReceiverPowerProfile.IdleState) {
        let now = currentTime()
        let (task, due) = state.withLockedValue { state in
            meter(&state, to: now)
            if fault == .refusesPowerDown {
                state.trackingAfterRefusal = state.trackingAfterRefusal ?? state.receiver.mode
            }
            state.idle = idle == .on ? .standby : idle
            state.receiver.powerOff(at: now)
            state.sink = nil
            state.generation &+= 1
            defer { state.task = nil }
            let confirmed: ReceiverPowerProfile.IdleState = persona == .plain || state.trackingAfterRefusal != nil ? .on : state.idle
            return (state.task, confirm(.receiverState(confirmed), &state, at: now))
        }
        task?.cancel()
        reportDue(due)
    }

    /// Moves manual time to `elapsed` (since the source was created) and synchronously sends every
    /// fix due up to and including it, in order, if the source is started. Earlier times are ignored.
    ///
    /// - Precondition: the source was created with ``SourceDrive/manual``.
    public func advance(to elapsed: Duration) {
        precondition(timeBase == nil, "SyntheticLocationSource.advance(to:) needs a .manual drive; this source follows its clock")
        let target = elapsed.seconds
        let (reports, events, sink) = state.withLockedValue { state -> ([SourceEvent], [SourceEvent], SourceEventSink?) in
            guard target > state.virtualNow else { return ([], [], nil) }
            state.virtualNow = target
            return (Self.takeReports(&state, dueBy: target), Self.collect(&state, through: target), state.sink)
        }
        reportDue(reports)
        if let sink { for event in events { sink.send(event) } }
    }

    /// Moves manual time forward by `duration`; see ``advance(to:)``.
    public func advance(by duration: Duration) {
        let now = state.withLockedValue { $0.virtualNow }
        advance(to: .seconds(now) + duration)
    }

    /// When the next confirmation held back by the receiver's ``fault`` is due, on the drive's time base
    /// (`nil`: none): a manual drive that jumps over idle stretches advances to it, so that it is reported in time.
    public var nextConfirmationDue: Duration? {
        // Rounded up to the nanosecond: advancing to it takes the confirmation.
        state.withLockedValue { $0.pendingReports.first.map { .nanoseconds(Int64(($0.due * 1e9).rounded(.up))) } }
    }

    /// The receiver's meter, read up to now (`nil` without a persona).
    public var energyMeter: ReceiverEnergyMeter? {
        let now = currentTime()
        return state.withLockedValue { state in
            meter(&state, to: now)
            return state.meter
        }
    }

    // MARK: - Internals

    /// The setting the receiver takes when asked for `mode`: with ``ReceiverFault/refusesPowerSave``, a
    /// power-save mode is refused and it keeps `kept`.
    private func setting(for mode: PowerMode, keeping kept: PowerMode) -> PowerMode {
        guard fault == .refusesPowerSave, ReceiverPersona.powerSaveInterval(mode) != nil else { return mode }
        return ReceiverPersona.powerSaveInterval(kept) == nil ? kept : .best
    }

    /// Queues a confirmation the receiver gives at `instant` (later with ``ReceiverFault/answersLate``) and
    /// returns those due now (called with the lock held). A source without a persona confirms nothing.
    private func confirm(_ event: SourceEvent, _ state: inout State, at instant: Double) -> [SourceEvent] {
        guard persona != nil else { return [] }
        let late = fault == .answersLate ? ReceiverFault.lateBy : 0
        let due = instant + late
        let now = timeBase?.now() ?? state.virtualNow
        if case .receiverTracking = event,
            let setup = state.pendingReports.lastIndex(where: { report in
                if case .receiverTracking = report.event { report.reached > instant } else { false }
            })
        {
            // Not set up yet (its waking bytes lost): the receiver is set up once, when the driver reaches it
            // again, in the latest setting asked — it cannot confirm this one first and the older one after.
            state.pendingReports[setup].event = event
            return Self.takeReports(&state, dueBy: now)
        }
        // A receiver whose answer comes late took the command when it was sent (for a sleep: silent since
        // then): its confirmation is as old as that when it is sent.
        state.pendingReports.append((due, instant, event))
        state.pendingReports.sort { $0.due < $1.due }
        if let timeBase, due > now {
            // On a clock, a confirmation due later is sent when the clock reaches it.
            Task { [weak self] in
                try? await timeBase.sleep(due)
                guard let self else { return }
                let reports = self.state.withLockedValue { Self.takeReports(&$0, dueBy: timeBase.now()) }
                self.reportDue(reports)
            }
            return []
        }
        return Self.takeReports(&state, dueBy: now)
    }

    /// Removes and returns the confirmations due by `instant`, in order, each as old as the evidence then is.
    private static func takeReports(_ state: inout State, dueBy instant: Double) -> [SourceEvent] {
        guard let first = state.pendingReports.first, first.due <= instant else { return [] }
        let split = state.pendingReports.firstIndex { $0.due > instant } ?? state.pendingReports.count
        defer { state.pendingReports.removeFirst(split) }
        return state.pendingReports[..<split].map { report in
            let age = Duration.seconds(max(0, instant - report.reached))
            switch report.event {
            case .receiverState(let idle, _): return .receiverState(idle, age: age)
            case .receiverTracking(let mode, _): return .receiverTracking(mode, age: age)
            default: return report.event
            }
        }
    }

    /// Sends confirmations to the last session's sink (taken after a stop too: a power-down is confirmed after it).
    private func reportDue(_ reports: [SourceEvent]) {
        guard !reports.isEmpty, let sink = state.withLockedValue({ $0.reportSink }) else { return }
        for report in reports { sink.send(report) }
    }

    /// Meters the time since the last reading (called with the lock held).
    private func meter(_ state: inout State, to now: Double) {
        guard let persona, var meter = state.meter, now > state.meteredUntil else { return }
        var from = state.meteredUntil
        if let mode = state.receiver.mode {
            let ready = state.acquisitionUntil
            if from < ready {
                let end = min(ready, now)
                meter.record(.acquisition, current: persona.currentProfile.acquisition, for: end - from)
                from = end
            }
            let phase: ReceiverPowerPhase = ReceiverPersona.powerSaveInterval(mode) == nil ? .tracking : .powerSave
            meter.record(phase, current: persona.trackingCurrent(mode), for: now - from)
        } else if let mode = state.trackingAfterRefusal {
            let phase: ReceiverPowerPhase = ReceiverPersona.powerSaveInterval(mode) == nil ? .tracking : .powerSave
            meter.record(phase, current: persona.trackingCurrent(mode), for: now - from)
        } else {
            let phase: ReceiverPowerPhase =
                switch (persona, state.idle) {
                case (.plain, _), (_, .on): .tracking
                case (.mediatek, _): .standby
                case (.ublox, .standby): .powerSave
                case (.ublox, .off): .backup
                }
            meter.record(phase, current: persona.idleCurrent(state.idle), for: now - from)
        }
        state.meter = meter
        state.meteredUntil = now
    }

    private func currentTime() -> Double {
        if let timeBase { return timeBase.now() }
        return state.withLockedValue { $0.virtualNow }
    }

    /// Runs the receiver up to `elapsed` and turns its epochs into events (called with the lock held; no I/O).
    private static func collect(_ state: inout State, through elapsed: Double) -> [SourceEvent] {
        guard state.sink != nil else { return [] }
        var events: [SourceEvent] = []
        var hadFix = state.hadFix
        var last = state.lastEpoch
        state.receiver.epochs(through: elapsed) { epoch in
            last = epoch
            if let location = epoch.location {
                events.append(.location(location, age: .zero))
                hadFix = true
            } else if hadFix {
                hadFix = false
                events.append(
                    .transientError(SourceError(code: "synthetic.noFix", message: "the receiver lost its fix (sky blocked)"))
                )
            }
        }
        state.hadFix = hadFix
        state.lastEpoch = last
        return events
    }

    /// With a clock drive, replaces the pacing task (a new mode may change when the next fix is due)
    /// and returns the old one for the caller to cancel after leaving the lock (cancelling may resume
    /// a clock's continuation, which must not happen under the lock).
    private func restartTask(_ state: inout State) -> Task<Void, Never>? {
        guard let timeBase else { return nil }
        let old = state.task
        state.generation &+= 1
        let generation = state.generation
        state.task = Task { [weak self] in
            await self?.run(timeBase: timeBase, generation: generation)
        }
        return old
    }

    private func run(timeBase: TimeBase, generation: UInt64) async {
        while !Task.isCancelled {
            let due = state.withLockedValue { state in
                state.generation == generation ? state.receiver.nextEpochTime : nil
            }
            guard let due else { return }
            do { try await timeBase.sleep(due) } catch { return }
            let now = max(due, timeBase.now())
            let (events, sink) = state.withLockedValue { state -> ([SourceEvent], SourceEventSink?) in
                guard state.generation == generation else { return ([], nil) }
                return (Self.collect(&state, through: now), state.sink)
            }
            if let sink { for event in events { sink.send(event) } }
        }
    }
}

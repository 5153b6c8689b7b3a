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
public final class SyntheticLocationSource: LocationSource {
    /// Fixes carry a course.
    public let capabilities = SourceCapabilities(providesCourse: true)

    private struct State: Sendable {
        var receiver: SyntheticReceiver
        var sink: SourceEventSink?
        var virtualNow = 0.0
        var task: Task<Void, Never>?
        var generation: UInt64 = 0
        var hadFix = false
        var lastEpoch: SyntheticEpoch?
    }

    private let state: NIOLockedValueBox<State>
    private let timeBase: TimeBase?

    /// A source for `scenario`, powered off, whose time is moved by `drive`.
    public init(scenario: Scenario, drive: SourceDrive = .manual) {
        state = NIOLockedValueBox(State(receiver: SyntheticReceiver(scenario: scenario, mode: nil)))
        switch drive.kind {
        case .manual: timeBase = nil
        case .clock(let make): timeBase = make()
        }
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
        let replaced = state.withLockedValue { state in
            state.receiver.powerOn(mode: mode, at: now)
            state.sink = events
            state.hadFix = false
            return restartTask(&state)
        }
        replaced?.cancel()
    }

    /// Switches the running receiver to `mode` now: its accuracy and fix interval change from the next epoch.
    public func setMode(_ mode: PowerMode) {
        let now = currentTime()
        let replaced = state.withLockedValue { state -> Task<Void, Never>? in
            guard let current = state.receiver.mode else { return nil }
            state.receiver.setMode(mode, at: now)
            // Between network and satellite positioning the receiver acquires afresh: the gap before
            // its first fix is not a lost fix, and is not reported as one.
            if PowerModeProfile.standard(current).usesSatellites != PowerModeProfile.standard(mode).usesSatellites {
                state.hadFix = false
            }
            return restartTask(&state)
        }
        replaced?.cancel()
    }

    /// Powers the receiver off now; nothing more is reported. Idempotent.
    public func stop() {
        let now = currentTime()
        let task = state.withLockedValue { state in
            state.receiver.powerOff(at: now)
            state.sink = nil
            state.generation &+= 1
            defer { state.task = nil }
            return state.task
        }
        task?.cancel()
    }

    /// Moves manual time to `elapsed` (since the source was created) and synchronously sends every
    /// fix due up to and including it, in order, if the source is started. Earlier times are ignored.
    ///
    /// - Precondition: the source was created with ``SourceDrive/manual``.
    public func advance(to elapsed: Duration) {
        precondition(timeBase == nil, "SyntheticLocationSource.advance(to:) needs a .manual drive; this source follows its clock")
        let target = elapsed.seconds
        let (events, sink) = state.withLockedValue { state -> ([SourceEvent], SourceEventSink?) in
            guard target > state.virtualNow else { return ([], nil) }
            state.virtualNow = target
            return (Self.collect(&state, through: target), state.sink)
        }
        if let sink { for event in events { sink.send(event) } }
    }

    /// Moves manual time forward by `duration`; see ``advance(to:)``.
    public func advance(by duration: Duration) {
        let now = state.withLockedValue { $0.virtualNow }
        advance(to: .seconds(now) + duration)
    }

    // MARK: - Internals

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

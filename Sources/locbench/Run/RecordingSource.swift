import LocationEngine
import LocbenchModel
import NIOConcurrencyHelpers

/// A fix as the source emitted it, on the run's timeline.
struct RecordedFix: Sendable {
    var at: Int64
    var horizontalAccuracy: Double
}

/// Wraps the benchmark's source to see what the engine does to it and what it emits: the power-mode
/// timeline (for the duty cycle and the energy estimate), every fix (for the invariant check) and
/// the moment each fix leaves the source (for fix-to-delivery latency).
final class RecordingSource: LocationSource, @unchecked Sendable {  // Mutable state is behind `state`.
    struct State {
        var modeChanges: [(at: Int64, mode: PowerMode?)] = []
        var fixes: [RecordedFix] = []
    }

    let base: any LocationSource
    let ledger: Ledger
    private let now: @Sendable () -> Int64
    private let state = NIOLockedValueBox(State())

    init(_ base: any LocationSource, ledger: Ledger, now: @escaping @Sendable () -> Int64) {
        self.base = base
        self.ledger = ledger
        self.now = now
    }

    var capabilities: SourceCapabilities { base.capabilities }

    func start(mode: PowerMode, events: SourceEventSink) {
        record(mode)
        let now = self.now
        let sink = SourceEventSink { [state, ledger] event in
            if case .location(let location, _) = event {
                let fix = RecordedFix(at: now(), horizontalAccuracy: location.horizontalAccuracy)
                state.withLockedValue { $0.fixes.append(fix) }
                ledger.fixLeftSource()
            }
            events.send(event)
        }
        base.start(mode: mode, events: sink)
    }

    func setMode(_ mode: PowerMode) {
        record(mode)
        base.setMode(mode)
    }

    func stop() {
        record(nil)
        base.stop()
    }

    private func record(_ mode: PowerMode?) {
        let time = now()
        state.withLockedValue { $0.modeChanges.append((time, mode)) }
    }

    var fixes: [RecordedFix] { state.withLockedValue { $0.fixes } }
    var modeChanges: [(at: Int64, mode: PowerMode?)] { state.withLockedValue { $0.modeChanges } }
    /// The source's mode now, `nil` when off.
    var currentMode: PowerMode? { state.withLockedValue { $0.modeChanges.last?.mode ?? nil } }

    /// The stretches the source spent in each mode (a level is a mode's raw value), up to `end`.
    func segments(until end: Int64) -> [Demand] {
        let changes = modeChanges
        return changes.indices.compactMap { index in
            guard let mode = changes[index].mode else { return nil }
            let until = index + 1 < changes.count ? changes[index + 1].at : end
            return Demand(TimelineInterval(start: changes[index].at, end: until), level: mode.rawValue)
        }
    }

    /// Time spent in each mode up to `end`.
    func timeInModes(until end: Int64) -> [PowerMode: Int64] {
        segments(until: end).reduce(into: [:]) { $0[PowerMode(rawValue: $1.level)!, default: 0] += $1.interval.length }
    }
}

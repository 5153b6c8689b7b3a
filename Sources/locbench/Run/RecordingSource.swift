import LocationEngine
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

    /// Time spent in each mode up to `end`.
    func timeInModes(until end: Int64) -> [PowerMode: Int64] {
        var result: [PowerMode: Int64] = [:]
        let changes = modeChanges
        for (index, change) in changes.enumerated() {
            guard let mode = change.mode else { continue }
            let until = index + 1 < changes.count ? changes[index + 1].at : end
            result[mode, default: 0] += max(0, until - change.at)
        }
        return result
    }
}

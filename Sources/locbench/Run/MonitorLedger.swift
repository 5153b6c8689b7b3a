import LocationEngine
import LocbenchModel
import NIOConcurrencyHelpers

/// What the engine reported to the monitors of a geofence run, checked as it arrives: every transition on the
/// run's timeline, and every monitor's ending — exactly one, with nothing after it.
final class MonitorLedger: Sendable {
    private struct State {
        var reports: [ReportedTransition] = []
        var endings: [Int]
        var ends: [SubscriptionEnd?]
        var violations: [String] = []
        var sourceErrors = 0
    }

    private let state: NIOLockedValueBox<State>
    private let now: @Sendable () -> Double

    /// A ledger for `count` monitors (fence indices `0..<count`), stamping deliveries with `now` (seconds).
    init(count: Int, now: @escaping @Sendable () -> Double) {
        state = NIOLockedValueBox(State(endings: [Int](repeating: 0, count: count), ends: [SubscriptionEnd?](repeating: nil, count: count)))
        self.now = now
    }

    /// The handler of fence `fence`'s monitor.
    func handler(for fence: Int) -> @Sendable (RequestID, RegionEvent) -> Void {
        { [self] id, event in record(fence, id, event) }
    }

    private func record(_ fence: Int, _ id: RequestID, _ event: RegionEvent) {
        let at = now()
        state.withLockedValue { state in
            if state.endings[fence] > 0 {
                state.violations.append("monitor \(id) of fence \(fence): \(event) after it ended (\(state.ends[fence].map { "\($0)" } ?? "?"))")
            }
            switch event {
            case .transition(let change):
                if case .determined(.unknown) = change.transition {
                    state.violations.append("monitor \(id) of fence \(fence): determined(unknown)")
                }
                state.reports.append(
                    ReportedTransition(
                        fence: fence, kind: ReportedTransition.Kind(change.transition), seconds: at,
                        estimatedCrossing: change.estimatedCrossing.map { Double($0.nanoseconds) / 1e9 }))
            case .sourceError:
                state.sourceErrors += 1
            case .ended(let end):
                state.endings[fence] += 1
                state.ends[fence] = end
            }
        }
    }

    /// Every transition delivered, in delivery order.
    var reports: [ReportedTransition] { state.withLockedValue { $0.reports } }

    /// Transient source errors the monitors heard (the receiver losing its fix).
    var sourceErrors: Int { state.withLockedValue { $0.sourceErrors } }

    /// What broke the rules: events after an ending, and — once every monitor was force-completed — any monitor
    /// that did not end exactly once, force-completed.
    func violations(afterForceCompletingAll: Bool) -> [String] {
        state.withLockedValue { state in
            var found = state.violations
            guard afterForceCompletingAll else { return found }
            for fence in state.endings.indices {
                if state.endings[fence] != 1 {
                    found.append("monitor of fence \(fence) ended \(state.endings[fence]) times (expected exactly once)")
                } else if state.ends[fence] != .forceCompleted {
                    found.append("monitor of fence \(fence) ended \(state.ends[fence].map { "\($0)" } ?? "?") (expected forceCompleted)")
                }
            }
            return found
        }
    }
}

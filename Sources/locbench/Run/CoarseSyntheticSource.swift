import Foundation
import LocationEngine
import NIOConcurrencyHelpers
import SyntheticGPS

/// A coarse network source for the several-sources run: the synthetic scenario's positions as a Wi-Fi or IP
/// locator gives them — one every `everyNth` epoch (5 s at 1 Hz), 400 m off in a direction that turns with
/// each fix, reported ±600 m — with a reach of 1 km and the cost of a few milliwatts. It wraps a synthetic
/// source of its own on the run's manual clock (``advance(to:)``), which meters nothing: the run's energy is the
/// GNSS receiver's.
final class CoarseSyntheticSource: LocationSource, Sendable {
    static let capabilitiesForBench = SourceCapabilities(providesCourse: false, reach: 1000, cost: SourceCost(watts: 0.02))

    let capabilities = CoarseSyntheticSource.capabilitiesForBench
    private let base: SyntheticLocationSource
    private let everyNth: Int
    private let epochs = NIOLockedValueBox(0)

    init(scenario: Scenario, everyNth: Int = 5) {
        base = SyntheticLocationSource(scenario: scenario, drive: .manual, persona: .plain)
        self.everyNth = max(1, everyNth)
    }

    /// Moves the source's time to `elapsed` (its fixes due by then are emitted).
    func advance(to elapsed: Duration) { base.advance(to: elapsed) }

    func start(mode: PowerMode, events: SourceEventSink) {
        let everyNth = everyNth
        let epochs = epochs
        base.start(mode: .best, events: SourceEventSink { event in
            guard case .location(let location, let age) = event else { return }
            let n = epochs.withLockedValue { count -> Int in
                count += 1
                return count
            }
            guard n % everyNth == 0 else { return }
            // 400 m off, turning 37° a fix: the error of a locator that sees different access points.
            let bearing = Double(n) * 37 * .pi / 180
            var coarse = Location(
                latitude: location.latitude + 400 * cos(bearing) / 111_320,
                longitude: location.longitude + 400 * sin(bearing) / (111_320 * cos(location.latitude * .pi / 180)),
                horizontalAccuracy: 600)
            coarse.utcTime = location.utcTime
            events.location(coarse, age: age)
        })
    }

    func setMode(_ mode: PowerMode) {}

    func stop() { base.stop() }
}

/// A GNSS source that fails for good at a chosen instant of the run (``fail(_:)``): what a receiver unplugged
/// mid-run looks like to the engine — the running session ends with a fatal error, and so does every later start.
final class FailingSource: LocationSource, Sendable {
    let base: SyntheticLocationSource
    private let sink = NIOLockedValueBox<SourceEventSink?>(nil)
    private let unplugged = NIOLockedValueBox<SourceError?>(nil)
    /// Every start and change of mode the engine asked for, in order.
    let modes = NIOLockedValueBox<[PowerMode]>([])

    /// Brings the base source up to the run's clock before each command (as the main workload's recording source
    /// does): an engine timer firing as the clock moves commands the source before the run moves it, and the source
    /// would date the command, and meter it, at its previous instant.
    private let catchUp: @Sendable () -> Void

    init(_ base: SyntheticLocationSource, catchUp: @escaping @Sendable () -> Void) {
        self.base = base
        self.catchUp = catchUp
    }

    var capabilities: SourceCapabilities { base.capabilities }

    /// The wrapped source's lifetime is this one's.
    func run() async { await base.run() }

    func start(mode: PowerMode, events: SourceEventSink) {
        catchUp()
        sink.withLockedValue { $0 = events }
        modes.withLockedValue { $0.append(mode) }
        if let error = unplugged.withLockedValue({ $0 }) { return events.fatalError(error) }
        base.start(mode: mode, events: events)
    }

    func setMode(_ mode: PowerMode) {
        catchUp()
        modes.withLockedValue { $0.append(mode) }
        base.setMode(mode)
    }

    func stop() {
        catchUp()
        base.stop()
    }

    func stop(into state: ReceiverPowerProfile.IdleState) {
        catchUp()
        base.stop(into: state)
    }

    /// The receiver is gone: a fatal error now (it runs), and at every later start.
    func fail(_ error: SourceError) {
        unplugged.withLockedValue { $0 = error }
        guard let events = sink.withLockedValue({ $0 }) else { return }
        base.stop()
        events.fatalError(error)
    }
}

import LocationEngine
import LocationEngineTestKit
import NIOConcurrencyHelpers
import Testing
@testable import SyntheticGPS

/// Collects what a source sends.
final class EventRecorder: Sendable {
    private let events = NIOLockedValueBox<[SourceEvent]>([])

    var sink: SourceEventSink { SourceEventSink { event in self.events.withLockedValue { $0.append(event) } } }

    /// The locations received so far.
    var locations: [Location] {
        events.withLockedValue { events in
            events.compactMap { if case .location(let location, _) = $0 { location } else { nil } }
        }
    }

    /// The codes of the transient errors received so far.
    var transientCodes: [String] {
        events.withLockedValue { events in
            events.compactMap { if case .transientError(let error) = $0 { error.code } else { nil } }
        }
    }

    func removeAll() { events.withLockedValue { $0.removeAll() } }
}

@Suite struct SourceTests {
    @Test func manualTimeEmitsExactlyTheReceiversFixes() {
        let source = SyntheticLocationSource(scenario: .drive(seed: 5))
        #expect(source.capabilities.providesCourse)
        let recorder = EventRecorder()
        source.start(mode: .best, events: recorder.sink)
        source.advance(to: .seconds(30))
        let expected = epochs(.drive(seed: 5), until: 30.5).compactMap(\.location)
        #expect(recorder.locations == expected)
        #expect(recorder.locations.count >= 27)
        #expect(source.lastEpoch?.elapsed == 30)
        source.advance(by: .milliseconds(500))
        #expect(recorder.locations.count == expected.count, "nothing is due between whole seconds")
    }

    @Test func offProducesNothingAndRestartsDependOnTimeOff() {
        let source = SyntheticLocationSource(scenario: .stationary(seed: 3))
        let recorder = EventRecorder()
        source.advance(to: .seconds(100))
        #expect(source.lastEpoch == nil, "not started: nothing happens")
        source.start(mode: .best, events: recorder.sink)
        source.advance(to: .seconds(160))
        source.stop()
        let countAtStop = recorder.locations.count
        source.advance(to: .seconds(400))
        #expect(recorder.locations.count == countAtStop, "off produces nothing")
        #expect(source.mode == nil)

        // Off for 240 s: hot start, a fix within three seconds.
        recorder.removeAll()
        source.start(mode: .best, events: recorder.sink)
        source.advance(to: .seconds(403))
        #expect(!recorder.locations.isEmpty)
        source.stop()

        // Off for five hours: warm start, no fix for at least 25 s.
        recorder.removeAll()
        source.advance(to: .seconds(403 + 5 * 3600))
        source.start(mode: .best, events: recorder.sink)
        source.advance(by: .seconds(24))
        #expect(recorder.locations.isEmpty)
        source.advance(by: .seconds(15))
        #expect(!recorder.locations.isEmpty)
    }

    @Test func modesAreObservableThroughTheSource() {
        let source = SyntheticLocationSource(scenario: .drive(seed: 8))
        let recorder = EventRecorder()
        source.start(mode: .lowest, events: recorder.sink)
        source.advance(to: .seconds(600))
        let coarse = recorder.locations
        #expect(coarse.count == 10, "one fix a minute")
        #expect(coarse.allSatisfy { $0.horizontalAccuracy > 1000 && $0.course == nil })

        recorder.removeAll()
        source.setMode(.high)
        source.advance(to: .seconds(660))
        let fine = recorder.locations
        #expect(fine.count >= 50)
        #expect(fine.allSatisfy { $0.course != nil && $0.speed != nil })
        let median = fine.map(\.horizontalAccuracy).sorted()[fine.count / 2]
        #expect(median < PowerMode.high.targetAccuracy, "high mode aims for 10 m; median \(median) m")
        #expect(recorder.transientCodes.isEmpty, "acquiring satellites after network fixes is not a lost fix")
    }

    @Test func aLostFixIsReportedOnceAsTransient() {
        let source = SyntheticLocationSource(scenario: .tunnel(seed: 2))
        let recorder = EventRecorder()
        source.start(mode: .best, events: recorder.sink)
        source.advance(to: .seconds(600))
        #expect(recorder.transientCodes == ["synthetic.noFix", "synthetic.noFix"], "tunnels at 120 s and 420 s")
    }

    @Test func realTimeDriveFollowsItsClock() async {
        let clock = ManualClock()
        let source = SyntheticLocationSource(scenario: .drive(seed: 5), drive: .realTime(clock))
        let recorder = EventRecorder()
        source.start(mode: .best, events: recorder.sink)
        for _ in 0..<30 {
            await waitForSleeper(clock)
            clock.advance(by: .seconds(1))
        }
        await waitForSleeper(clock)
        // The fixes of the first 30 s, exactly as in manual time.
        #expect(recorder.locations == epochs(.drive(seed: 5), until: 30.5).compactMap(\.location))
        source.stop()
        // Stopping cancels the pacing task: it no longer sleeps on the clock, and nothing more arrives.
        for _ in 0..<100_000 where clock.sleeperCount != 0 { await Task.yield() }
        #expect(clock.sleeperCount == 0)
        clock.advance(by: .seconds(10))
        for _ in 0..<1_000 { await Task.yield() }
        #expect(recorder.locations.count == epochs(.drive(seed: 5), until: 30.5).compactMap(\.location).count)
    }

    /// Yields until the source's task is asleep on `clock` (it has emitted everything due).
    private func waitForSleeper(_ clock: ManualClock) async {
        for _ in 0..<100_000 where clock.sleeperCount == 0 {
            await Task.yield()
        }
        #expect(clock.sleeperCount == 1)
    }
}

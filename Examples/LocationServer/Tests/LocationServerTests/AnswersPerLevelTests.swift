import LocationEngine
import LocationEngineTestKit
import NIOConcurrencyHelpers
import SyntheticGPS
import Testing

@testable import LocationServer

/// A fresh server's default source answers every accuracy level in time: the synthetic receiver as
/// `location-server` makes it (the drive scenario, one fix a second, starting hot), on virtual time, one
/// one-shot per fresh engine with the default timeout, as `GET /location?accuracy=…` makes it.
@Suite("Answers in time: a fresh server's default receiver answers every level")
struct AnswersPerLevelTests {
    static let levels: [LocationAccuracy] = [.room, .house, .block, .neighborhood, .city]

    /// The result of one one-shot at `accuracy` on a fresh engine over the server's default source, and the
    /// virtual time it took.
    static func answer(_ accuracy: LocationAccuracy) async throws -> (result: LocationResult, after: Duration) {
        let choice = try #require(try LocationServerCommand.parse([]).sourceChoices().first)
        guard case .synthetic(let name, let fixRate, let seed) = choice else {
            Issue.record("the server's default source is \(choice), not the synthetic receiver")
            throw CancellationError()
        }
        var scenario = try Scenario.named(name, seed: seed)
        scenario.fixInterval = 1 / fixRate
        let clock = ManualClock()
        let source = SyntheticLocationSource(scenario: scenario, drive: .manual)
        let engine = LocationEngine(source: source, clock: clock, configuration: LocationEngineConfiguration(linger: .zero))
        let ended = NIOLockedValueBox<(LocationResult, Duration)?>(nil)
        let start = clock.now
        engine.location(accuracy: accuracy) { result in ended.withLockedValue { $0 = (result, start.duration(to: clock.now)) } }
        await engine.sync()
        var elapsed = Duration.zero
        while ended.withLockedValue({ $0 }) == nil {
            elapsed += .milliseconds(100)
            clock.advance(to: start.advanced(by: elapsed))
            source.advance(to: elapsed)
            await engine.sync()
        }
        await engine.shutdown()
        return ended.withLockedValue { $0 }!
    }

    @Test("every level, room to city, succeeds within 10 s with the default timeout; a coarser level never answers more than a second after a finer one")
    func everyLevelInTime() async throws {
        var times: [Duration] = []
        for level in Self.levels {
            let (result, after) = try await Self.answer(level)
            #expect(result.status == .success, "\(level): \(result)")
            #expect(after <= .seconds(10), "\(level) answered after \(after)")
            times.append(after)
        }
        for (finer, coarser) in zip(times, times.dropFirst()) {
            #expect(coarser <= finer + .seconds(1), "\(times)")
        }
    }
}

import LocationEngine
import LocationEngineTestKit
import NIOConcurrencyHelpers
import Testing

/// What the engine does with what its source reports: errors end or notify requests; events from a
/// stopped source are ignored.
@Suite("Source events")
struct SourceEventTests: EngineTestCase {
    let clock = ManualClock()
    let source = ScriptedLocationSource()
    let recorder = Recorder()

    @Test("events a source sends after it was stopped are ignored")
    func staleSourceEventsIgnored() async {
        let leaky = LeakySource()
        let engine = LocationEngine(source: leaky, clock: clock, configuration: .init(linger: .zero), logger: quietLogger)
        Task { try await engine.run() }
        engine.location(accuracy: .block, timeout: nil) { _ in }
        await engine.sync()
        leaky.sinks[0].location(fix(10))
        await engine.sync()
        #expect(leaky.sinks.count == 1)
        let id = engine.location(accuracy: .room, timeout: nil, handler: recorder.oneShot)
        await engine.sync()
        #expect(leaky.sinks.count == 2)
        leaky.sinks[0].location(fix(1))
        await engine.sync()
        #expect(recorder.results(id).isEmpty, "the first session's sink is dead")
        leaky.sinks[1].location(fix(1))
        await engine.sync()
        #expect(recorder.results(id).map(\.status) == [.success])
    }

    @Test("fatal source error ends every one-shot once with the error")
    func fatalError() async {
        let engine = makeEngine()
        let ids = (0..<100).map { _ in
            let id = engine.location(accuracy: .room, timeout: .seconds(10), handler: recorder.oneShot)
            return id
        }
        await engine.sync()
        source.emitFatalError(SourceError(code: "test.gone", message: "unplugged"))
        await engine.sync()
        clock.advance(by: .seconds(20))
        await engine.sync()
        for id in ids {
            #expect(recorder.results(id).map(\.status) == [.failed(SourceError(code: "test.gone", message: "unplugged"))])
        }
        #expect(!source.isRunning)
    }
}

/// A source that keeps every sink it was given, even after `stop()`, as a buggy source might.
final class LeakySource: LocationSource, Sendable {
    private let state = NIOLockedValueBox<[SourceEventSink]>([])
    let capabilities = SourceCapabilities(providesCourse: true)
    var sinks: [SourceEventSink] { state.withLockedValue { $0 } }
    func start(mode: PowerMode, events: SourceEventSink) { state.withLockedValue { $0.append(events) } }
    func setMode(_ mode: PowerMode) {}
    func stop() {}
}

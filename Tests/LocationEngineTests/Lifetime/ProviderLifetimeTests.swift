import LocationEngine
import LocationEngineTestKit
import NIOConcurrencyHelpers
import Testing

/// The authorization provider lives inside the engine's lifetime: started when the engine first runs
/// (or is first synced by hand), stopped when it shuts down, never before or after.
@Suite("Engine lifetime: the authorization provider starts with run() and stops at shutdown")
struct ProviderLifetimeTests {
    let clock = ManualClock()
    let source = ScriptedLocationSource()

    /// Records the engine's calls to start and stop, and pushes changes while started.
    final class RecordingProvider: AuthorizationProvider {
        private let state = NIOLockedValueBox<(calls: [String], sink: AuthorizationChangeSink?)>(([], nil))
        let initial: AuthorizationState
        init(initial: AuthorizationState = .authorizedAlways) { self.initial = initial }
        func currentState() -> AuthorizationState { initial }
        func start(changes: AuthorizationChangeSink) { state.withLockedValue { $0.calls.append("start"); $0.sink = changes } }
        func stop() { state.withLockedValue { $0.calls.append("stop"); $0.sink = nil } }
        func requestAuthorization(_ prompt: AuthorizationPrompt, reply: AuthorizationReply) { state.withLockedValue { $0.calls.append("prompt") } }
        func requestTemporaryFullAccuracy(_ prompt: FullAccuracyPrompt, reply: AuthorizationReply) {
            state.withLockedValue { $0.calls.append("full accuracy prompt") }
        }
        func confirmLocationButton(current: AuthorizationState, reply: AuthorizationReply) { state.withLockedValue { $0.calls.append("button") } }
        var calls: [String] { state.withLockedValue { $0.calls } }
        func push(_ change: AuthorizationState) { state.withLockedValue { $0.sink }?(change) }
    }

    @Test("created: not started; run(): started once; shutdown: stopped once, run() returns")
    func runAndShutdown() async throws {
        let provider = RecordingProvider()
        let engine = LocationEngine(
            source: source, clock: clock, configuration: .init(linger: .zero, authorizationProvider: provider), logger: quietLogger)
        #expect(provider.calls.isEmpty, "nothing starts before run()")
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await engine.run() }
            await eventually("the provider is started") { provider.calls == ["start"] }
            provider.push(.denied)
            await eventually("the change reaches the engine") { await engine.authorizationState == .denied }
            await engine.shutdown()
            try await group.waitForAll()
        }
        #expect(provider.calls == ["start", "stop"])
    }

    @Test("an engine driven by hand starts its provider at the first sync(), and stops it at shutdown")
    func syncedByHand() async {
        let provider = RecordingProvider()
        let engine = LocationEngine(
            source: source, clock: clock, configuration: .init(linger: .zero, authorizationProvider: provider), logger: quietLogger)
        #expect(provider.calls.isEmpty)
        await engine.sync()
        await engine.sync()
        #expect(provider.calls == ["start"])
        await engine.shutdown()
        #expect(provider.calls == ["start", "stop"])
    }

    /// A source that records each time its lifetime begins.
    final class LifetimeRecordingSource: LocationSource {
        let base = ScriptedLocationSource()
        let runs = NIOLockedValueBox(0)
        var capabilities: SourceCapabilities { base.capabilities }
        func start(mode: PowerMode, events: SourceEventSink) { base.start(mode: mode, events: events) }
        func setMode(_ mode: PowerMode) { base.setMode(mode) }
        func stop() { base.stop() }
        func run() async { runs.withLockedValue { $0 += 1 } }
    }

    @Test("an engine shut down before it ever ran starts nothing: not its provider at the shutdown, not its sources' lifetimes at a run() after it")
    func shutDownBeforeRunning() async throws {
        let provider = RecordingProvider()
        let source = LifetimeRecordingSource()
        let engine = LocationEngine(
            source: source, clock: clock, configuration: .init(linger: .zero, authorizationProvider: provider), logger: quietLogger)
        let pending = NIOLockedValueBox<[LocationStatus]>([])
        engine.location(accuracy: .room, timeout: nil) { result in pending.withLockedValue { $0.append(result.status) } }
        await engine.shutdown()
        #expect(pending.withLockedValue { $0 } == [.shutDown], "a pending request still ends, once")
        #expect(provider.calls.isEmpty)
        try await engine.run()
        #expect(source.runs.withLockedValue { $0 } == 0, "run() after the shutdown returns at once")
        #expect(provider.calls.isEmpty)
    }

    @Test("an engine shut down before it ran, with a request that would prompt queued before the shutdown, shows no dialog: its provider was never started")
    func shutDownBeforeRunningPromptsNothing() async throws {
        let provider = RecordingProvider(initial: .notDetermined)
        let engine = LocationEngine(
            source: LifetimeRecordingSource(), clock: clock,
            configuration: .init(linger: .zero, authorizationProvider: provider, usage: UsageDeclarations(whenInUse: "tests")), logger: quietLogger)
        let pending = NIOLockedValueBox<[LocationStatus]>([])
        engine.location(accuracy: .room, timeout: nil) { result in pending.withLockedValue { $0.append(result.status) } }
        engine.locationButtonPressed()
        await engine.shutdown()
        #expect(pending.withLockedValue { $0 } == [.shutDown])
        #expect(provider.calls.isEmpty, "\(provider.calls)")
    }
}

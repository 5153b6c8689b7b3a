import LocationEngine
import LocationEngineTestKit
import Testing

/// The engine actor over several scripted sources on a manual clock: each source started and stopped as
/// the core chooses, each source's events taken as its own, the failed one's requests ended and the others
/// served.
@Suite("Several sources, through the engine")
struct SeveralSourcesEngineTests: EngineTestCase {
    let clock = ManualClock()
    let source = ScriptedLocationSource(capabilities: SourceCapabilities(providesCourse: true, powerProfile: .mt3339, firstFixTime: .seconds(5)))
    let coarse = ScriptedLocationSource(capabilities: SourceCapabilities(providesCourse: false, reach: 1000, cost: SourceCost(watts: 0.005)))
    let recorder = Recorder()

    func makeEngine() -> LocationEngine<ManualClock> {
        var configuration = LocationEngineConfiguration(linger: .zero)
        configuration.powerDown = .fixedLinger
        configuration.fallbackAfter = .seconds(20)
        let engine = LocationEngine(sources: [source, coarse], clock: clock, configuration: configuration, logger: quietLogger)
        Task { try await engine.run() }
        return engine
    }

    @Test("a city request runs the coarse source only and succeeds with its fix; a room request then runs the GNSS")
    func choice() async {
        let engine = makeEngine()
        let city = engine.location(accuracy: .city, timeout: .seconds(60), handler: recorder.oneShot)
        await engine.sync()
        #expect(coarse.isRunning && !source.isRunning, "a coarse request never wakes the GNSS")
        coarse.emit(Location(latitude: 52.52, longitude: 13.405, horizontalAccuracy: 800))
        await engine.sync()
        #expect(recorder.results(city).map(\.status) == [.success])
        #expect(!coarse.isRunning)
        let room = engine.location(accuracy: .room, timeout: .seconds(60), handler: recorder.oneShot)
        await engine.sync()
        #expect(source.isRunning && !coarse.isRunning)
        source.emit(Location(latitude: 52.52, longitude: 13.405, horizontalAccuracy: 3))
        await engine.sync()
        #expect(recorder.results(room).map(\.status) == [.success])
        let statistics = await engine.statistics()
        #expect(statistics.sources.map(\.starts) == [1, 1])
    }

    @Test("indoors: the GNSS silent, the coarse source starts beside it; the GNSS failing ends only what the coarse source cannot serve")
    func fallbackAndFailover() async {
        let engine = makeEngine()
        let house = engine.location(accuracy: .house, timeout: .seconds(120), handler: recorder.oneShot)
        await engine.sync()
        #expect(source.isRunning && !coarse.isRunning)
        await engine.sync(advancingTo: clock.now.advanced(by: .seconds(25)))
        #expect(coarse.isRunning, "the fallback after the first-fix time and 20 s more without a fix")
        let neighbourhood = engine.location(accuracy: .neighborhood, timeout: .seconds(120), handler: recorder.oneShot)
        await engine.sync()
        source.emitFatalError(SourceError(code: "gnss.gone", message: "unplugged"))
        await engine.sync()
        #expect(recorder.results(house).map(\.status) == [.failed(SourceError(code: "gnss.gone", message: "unplugged"))])
        #expect(recorder.results(neighbourhood).isEmpty && coarse.isRunning && !source.isRunning)
        coarse.emit(Location(latitude: 52.52, longitude: 13.405, horizontalAccuracy: 900))
        await engine.sync()
        #expect(recorder.results(neighbourhood).map(\.status) == [.success])
    }

    @Test("a fix from a source the engine did not start, or stopped, is ignored")
    func staleSource() async {
        let engine = makeEngine()
        let city = engine.location(accuracy: .city, timeout: .seconds(60), handler: recorder.oneShot)
        await engine.sync()
        #expect(!source.emit(Location(latitude: 52.52, longitude: 13.405, horizontalAccuracy: 3)), "the GNSS was never started")
        await engine.sync()
        #expect(recorder.results(city).isEmpty)
    }
}

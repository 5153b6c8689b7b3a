import LocationEngine
import LocationEngineTestKit
import Testing

/// The linger through the engine: the source powers down on the engine's own timer.
@Suite("Linger through the engine")
struct LingerTests: EngineTestCase {
    let clock = ManualClock()
    let source = ScriptedLocationSource()
    let recorder = Recorder()

    @Test("linger powers the source down on the virtual clock's timer")
    func lingerViaTimer() async {
        let engine = makeEngine(linger: .seconds(30))
        engine.location(accuracy: .block, timeout: nil) { _ in }
        await engine.sync()
        source.emit(fix(10))
        await engine.sync()
        #expect(source.isRunning)
        clock.advance(by: .seconds(29))
        await engine.sync()
        #expect(source.isRunning)
        clock.advance(by: .seconds(1))
        await engine.sync()
        #expect(!source.isRunning)
        let stats = await engine.statistics()
        #expect(stats.sourceStarts == 1 && stats.sourceStops == 1 && stats.sourceOnTime == .seconds(30))
    }
}

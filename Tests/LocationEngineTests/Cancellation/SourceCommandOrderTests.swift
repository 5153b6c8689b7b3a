import LocationEngine
import LocationEngineTestKit
import Testing

/// A source is commanded in the order the engine decided: a handler that withdraws a request mid-delivery
/// decides commands after the ones of the event being delivered, so it may not have them carried out first
/// (the source would be given a mode after it was stopped, or started after it was stopped and left running).
@Suite("Source commands in the order decided, re-entrantly")
struct SourceCommandOrderTests: EngineTestCase {
    let clock = ManualClock()
    let source = ScriptedLocationSource()
    let recorder = Recorder()

    @Test("a fix completes a room one-shot whose handler cancels the block subscription left: the mode change, then the stop")
    func modeChangeThenStop() async {
        let engine = makeEngine(linger: .zero, running: false)
        let subscription = IDSlot()
        engine.location(accuracy: .room, timeout: nil) { _ in if let id = subscription.id { engine.cancel(id) } }
        subscription.set(engine.updates(SubscriptionOptions(accuracy: .block)) { id, event in recorder.record(event, for: id) })
        await engine.sync()
        #expect(source.commands == [.start(.best)])
        source.emit(fix(5))
        await engine.sync()
        #expect(source.commands == [.start(.best), .setMode(.medium), .stop], "the fix's mode change, then the cancel's stop")
        #expect(!source.isRunning)
        #expect(recorder.events(subscription.id!).isEmpty, "cancelled before its update was handed over")
    }

    @Test("a reduced grant ends a room one-shot whose handler cancels the city one-shot it admitted: the start, then the stop")
    func startThenStop() async {
        let user = SimulatedAuthorizationProvider(.init(authorizationAnswers: [.init(.allowWhileUsing(precise: false), after: .seconds(1))]))
        let engine = makeEngine(
            .init(linger: .zero, authorizationProvider: user, usage: UsageDeclarations(whenInUse: "tests")), running: false)
        let city = IDSlot()
        engine.location(accuracy: .room, timeout: nil) { result in
            recorder.record(result, for: result.requestID)
            if let id = city.id { engine.cancel(id) }
        }
        city.set(engine.location(accuracy: .city, timeout: nil, handler: recorder.oneShot))
        await engine.sync()
        #expect(source.commands.isEmpty, "waiting for the user's answer")
        clock.advance(by: .seconds(1))
        await engine.sync()
        #expect(recorder.allResults.values.flatMap { $0 }.map(\.status) == [.accuracyReduced], "the room one-shot ended; the city one was cancelled")
        #expect(source.commands == [.start(.lowest), .stop], "the grant's start for the city one-shot, then the cancel's stop")
        #expect(!source.isRunning, "nothing asks for fixes: the source is down")
    }
}

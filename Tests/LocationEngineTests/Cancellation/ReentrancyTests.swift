import LocationEngine
import LocationEngineTestKit
import Testing

/// A cancel or force-complete issued from a handler takes effect before any further delivery: a
/// result not yet handed to its handler is dropped (or replaced by the force-completed ending).
@Suite("Cancel means cancel, re-entrantly")
struct ReentrancyTests: EngineTestCase {
    let clock = ManualClock()
    let source = ScriptedLocationSource()
    let recorder = Recorder()

    /// Makes A (whose handler withdraws B) then B, both with these arguments.
    func pair(
        _ engine: LocationEngine<ManualClock>, accuracy: LocationAccuracy = .block, timeout: Duration? = nil,
        withdraw: @escaping @Sendable (RequestID) -> Void
    ) -> (a: RequestID, b: RequestID) {
        let b = IDSlot()
        let a = engine.location(accuracy: accuracy, timeout: timeout) { result in
            recorder.record(result, for: result.requestID)
            if let id = b.id { withdraw(id) }
        }
        b.set(engine.location(accuracy: accuracy, timeout: timeout, handler: recorder.oneShot))
        return (a, b.id!)
    }

    @Test("one-shots completed by the same fix: A's handler cancels B, B gets nothing")
    func sameFixCancel() async {
        let engine = makeEngine()
        let (a, b) = pair(engine) { engine.cancel($0) }
        await engine.sync()
        source.emit(fix(20))
        await engine.sync()
        #expect(recorder.results(a).map(\.status) == [.success])
        #expect(recorder.results(b).isEmpty)
        let statistics = await engine.statistics()
        #expect(statistics.oneShotsSucceeded == 1)
        #expect(statistics.oneShotsCancelled == 1)
    }

    @Test("one-shots completed by the same fix: an awaiting B throws CancellationError")
    func sameFixCancelAsync() async {
        let engine = makeEngine()
        let first = IDSlot()
        engine.location(accuracy: .block, timeout: nil) { _ in if let id = first.id { engine.cancel(id) } }
        let second = engine.locationRequest(accuracy: .block, timeout: nil)
        first.set(second.id)
        await engine.sync()
        source.emit(fix(20))
        await engine.sync()
        await #expect(throws: CancellationError.self) { try await second.result() }
    }

    @Test("timeouts expiring together: A's handler cancels B, or force-completes it")
    func timeoutsTogether() async {
        let engine = makeEngine()
        let (a, b) = pair(engine, timeout: .seconds(5)) { engine.cancel($0) }
        let (c, d) = pair(engine, timeout: .seconds(5)) { engine.forceComplete($0) }
        await engine.sync()
        source.emit(fix(500))
        await engine.sync(advancingBy: .seconds(5))
        #expect(recorder.results(a).map(\.status) == [.timedOut])
        #expect(recorder.results(b).isEmpty)
        #expect(recorder.results(c).map(\.status) == [.timedOut])
        #expect(recorder.results(d).map(\.status) == [.forceCompleted])
        #expect(recorder.results(d).first?.location?.horizontalAccuracy == 500)
        let statistics = await engine.statistics()
        #expect(statistics.oneShotsTimedOut == 2)
        #expect(statistics.oneShotsCancelled == 1)
        #expect(statistics.oneShotsForceCompleted == 1)
    }

    @Test("revocation: A's handler cancels B, which then hears nothing")
    func revocation() async {
        let engine = makeEngine()
        let (a, b) = pair(engine) { engine.cancel($0) }
        await engine.sync()
        engine.updateAuthorization(.denied)
        await engine.sync()
        #expect(recorder.results(a).map(\.status) == [.unauthorized(.denied)])
        #expect(recorder.results(b).isEmpty)
    }

    @Test("subscriptions notified by the same fix: the one cancelled by another's handler gets no more events")
    func subscriptionsSameFix() async {
        let engine = makeEngine()
        let second = IDSlot()
        let first = engine.updates { id, event in
            recorder.record(event, for: id)
            if case .location = event, let other = second.id { engine.cancel(other) }
        }
        second.set(engine.updates(handler: recorder.subscription))
        let forced = IDSlot()
        let third = engine.updates { id, event in
            recorder.record(event, for: id)
            if case .location = event, let other = forced.id { engine.forceComplete(other) }
        }
        forced.set(engine.updates(handler: recorder.subscription))
        await engine.sync()
        source.emit(fix(20))
        source.emit(fix(20, latitude: 48.1))  // in the same batch: the cancel takes effect before it
        await engine.sync()
        // Subscriptions of one fix are notified in no promised order: the withdrawn one may have heard
        // the first fix before the other's handler ran, but nothing after it.
        let firstFix = SubscriptionEvent.location(LocationUpdate(location: fix(20), age: .zero, achievedAccuracy: .block))
        #expect(recorder.events(first).count == 2)
        #expect([[], [firstFix]].contains(recorder.events(second.id!)))
        #expect(recorder.events(third).count == 2)
        #expect([[.ended(.forceCompleted)], [firstFix, .ended(.forceCompleted)]].contains(recorder.events(forced.id!)))
        let statistics = await engine.statistics()
        #expect(statistics.subscriptionsCancelled == 1)
        #expect(statistics.activeSubscriptions == 2)
    }

    @Test("handlers may submit and cancel re-entrantly without deadlock")
    func reentrantHandlers() async {
        let engine = makeEngine()
        let victim = engine.location(accuracy: .room, timeout: nil) { result in
            self.recorder.record(result, for: RequestID(rawValue: 0))
        }
        let followUp = IDSlot()
        engine.location(accuracy: .block, timeout: nil) { [recorder] _ in
            engine.cancel(victim)
            followUp.set(engine.location(accuracy: .block, timeout: nil) { result in
                recorder.record(result, for: RequestID(rawValue: 1))
            })
        }
        await engine.sync()
        source.emit(fix(50))
        await engine.sync()
        #expect(recorder.results(RequestID(rawValue: 1)).map(\.status) == [.success], "the follow-up completes from the cache")
        #expect(recorder.results(RequestID(rawValue: 0)).isEmpty, "the victim was cancelled before the 50 m fix could not satisfy it anyway")
        #expect(followUp.id != nil)
        #expect(await engine.statistics().oneShotsCancelled == 1)
        #expect(!source.isRunning)
    }
}

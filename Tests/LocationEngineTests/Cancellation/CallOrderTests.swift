import LocationEngine
import NIOConcurrencyHelpers
import LocationEngineTestKit
import Testing

/// Withdrawals of one request from one caller take effect in the order they were made: the first one
/// decides the ending, a later one changes nothing — whether the request is pending, ended but not
/// handed out yet, or not submitted yet.
@Suite("Call order: the first withdrawal of a request decides its ending")
struct CallOrderTests: EngineTestCase {
    let clock = ManualClock()
    let source = ScriptedLocationSource()
    let recorder = Recorder()

    @Test("force-complete then cancel, made before the engine runs: force-completed")
    func forceCompleteThenCancelBeforeRunning() async {
        let engine = makeEngine(running: false)
        let id = engine.location(accuracy: .block, timeout: nil, handler: recorder.oneShot)
        engine.forceComplete(id)
        engine.cancel(id)
        await engine.sync()
        #expect(recorder.results(id).map(\.status) == [.forceCompleted])
        let statistics = await engine.statistics()
        #expect(statistics.oneShotsForceCompleted == 1 && statistics.oneShotsCancelled == 0)
    }

    @Test("cancel then force-complete, made before the engine runs: cancelled")
    func cancelThenForceCompleteBeforeRunning() async {
        let engine = makeEngine(running: false)
        let id = engine.location(accuracy: .block, timeout: nil, handler: recorder.oneShot)
        engine.cancel(id)
        engine.forceComplete(id)
        await engine.sync()
        #expect(recorder.results(id).isEmpty, "a cancelled callback hears nothing")
        let statistics = await engine.statistics()
        #expect(statistics.oneShotsCancelled == 1 && statistics.oneShotsForceCompleted == 0)
    }

    @Test("force-complete then cancel of a pending one-shot and a pending subscription: force-completed")
    func forceCompleteThenCancelPending() async {
        let engine = makeEngine()
        let oneShot = engine.location(accuracy: .block, timeout: nil, handler: recorder.oneShot)
        let subscription = engine.updates(handler: recorder.subscription)
        await engine.sync()
        engine.forceComplete(oneShot)
        engine.cancel(oneShot)
        engine.forceComplete(subscription)
        engine.cancel(subscription)
        await engine.sync()
        #expect(recorder.results(oneShot).map(\.status) == [.forceCompleted])
        #expect(recorder.events(subscription) == [.ended(.forceCompleted)])
        let statistics = await engine.statistics()
        #expect(statistics.oneShotsCancelled == 0 && statistics.subscriptionsCancelled == 0)
    }

    @Test("the async form: force-complete then cancel before the engine runs returns force-completed")
    func asyncForceCompleteThenCancel() async throws {
        let engine = makeEngine(running: false)
        let request = engine.locationRequest(accuracy: .block, timeout: nil)
        engine.forceComplete(request.id)
        engine.cancel(request.id)
        await engine.sync()
        #expect(try await request.result().status == .forceCompleted)
    }

    @Test("a request's handle holds its engine: the caller's last reference to the engine gone, the request still ends once", .timeLimit(.minutes(1)))
    func handleHoldsTheEngine() async throws {
        var engine: LocationEngine<ManualClock>? = makeEngine(running: false)
        weak let released = engine
        let request = engine!.locationRequest(accuracy: .block, timeout: .seconds(5))
        engine = nil
        let held = try #require(released, "the handle keeps the engine that must answer it")
        clock.advance(by: .seconds(5))
        await held.sync()
        #expect(try await request.result().status == .timedOut)
    }

    @Test("a subscription's and a monitor's sequences hold their engine: the caller's last reference gone, each still ends", .timeLimit(.minutes(1)))
    func sequencesHoldTheEngine() async throws {
        var engine: LocationEngine<ManualClock>? = makeEngine(running: false)
        weak let released = engine
        let updates = engine!.updates(SubscriptionOptions(duration: .seconds(5)))
        let region = try GeofenceRegion.circle(centre: GeoPoint(latitude: 48.137, longitude: 11.575), radius: 200)
        let regionUpdates = engine!.monitor(region)
        engine = nil
        // Before, the sequences held it weakly: released, the engine dropped both, and their loops never ended.
        let held = try #require(released, "the sequences keep the engine that must end them")
        clock.advance(by: .seconds(5))
        await held.sync()
        // Its duration elapsed: a normal end, which finishes the loop.
        for try await _ in updates {}
        await held.shutdown()
        await #expect(throws: SubscriptionEndedError.self, "the shutdown ends the monitor, abnormally") {
            for try await _ in regionUpdates {}
        }
    }

    @Test("an authorization change, then a cancel, from one caller: the request ends unauthorized, not cancelled")
    func authorizationChangeThenCancel() async {
        let user = ManyEnginesStressTests.PushedAuthorization()
        let engine = makeEngine(.init(linger: .zero, authorizationProvider: user, usage: AuthorizationTests.declared), running: false)
        let id = engine.location(accuracy: .block, timeout: nil, handler: recorder.oneShot)
        await engine.sync()
        user.push(.denied)
        engine.cancel(id)
        await engine.sync()
        #expect(recorder.results(id).map(\.status) == [.unauthorized(.denied)])
        #expect(await engine.statistics().oneShotsCancelled == 0, "the cancel came after the request had ended")
    }

    @Test("a cancel, then an authorization change: cancelled; a later barrier holds back only what came after it")
    func cancelThenAuthorizationChange() async {
        let user = ManyEnginesStressTests.PushedAuthorization()
        let engine = makeEngine(.init(linger: .zero, authorizationProvider: user, usage: AuthorizationTests.declared), running: false)
        let first = engine.location(accuracy: .block, timeout: nil, handler: recorder.oneShot)
        let second = engine.location(accuracy: .block, timeout: nil, handler: recorder.oneShot)
        await engine.sync()
        engine.cancel(first)
        user.push(.denied)
        engine.forceComplete(second)
        await engine.sync()
        #expect(recorder.results(first).isEmpty, "cancelled before the revocation")
        #expect(recorder.results(second).map(\.status) == [.unauthorized(.denied)], "the revocation came before its force-complete")
        let statistics = await engine.statistics()
        #expect(statistics.oneShotsCancelled == 1 && statistics.oneShotsForceCompleted == 0)
    }

    @Test("core: a handler force-completes, then cancels, a later recipient of its delivery: force-completed")
    func coreForceCompleteThenCancelMidDelivery() {
        var h = MachineHarness()
        for index in 0..<30 { h.oneShot("r\(index)", .block) }
        h.whileDelivering = { tag in tag == "r5" ? ([("r25", .forceComplete), ("r25", .cancel), ("r26", .cancel), ("r26", .forceComplete)], .zero) : nil }
        h.fix(50)
        #expect(h.onlyResult("r25")?.status == .forceCompleted)
        #expect(h.results["r26"] == nil)
        #expect(h.cancelled == ["r26"])
        let statistics = h.machine.statistics(now: h.now)
        #expect(statistics.oneShotsForceCompleted == 1)
        #expect(statistics.oneShotsCancelled == 1)
        #expect(statistics.oneShotsSucceeded == 28)
    }

    @Test("a handler ends the session, then cancels a later recipient of its delivery: that recipient hears nothing")
    func cancelBehindABarrierMidDelivery() async {
        let engine = makeEngine()
        let targets = NIOLockedValueBox<[RequestID]>([])
        let first = engine.location(accuracy: .block, timeout: nil) { [recorder] result in
            recorder.oneShot(result)
            engine.endSession()
            for target in targets.withLockedValue({ $0 }) { engine.cancel(target) }
        }
        let second = engine.location(accuracy: .block, timeout: nil, handler: recorder.oneShot)
        let subscription = engine.updates(handler: recorder.subscription)
        targets.withLockedValue { $0 = [second, subscription] }
        await engine.sync()
        source.emit(Location(latitude: 48, longitude: 11, horizontalAccuracy: 20))
        await engine.sync()
        #expect(recorder.results(first).map(\.status) == [.success])
        #expect(recorder.results(second).isEmpty, "cancelled before its result was handed over")
        #expect(recorder.events(subscription).isEmpty, "cancelled before the update was handed over")
        let statistics = await engine.statistics()
        #expect(statistics.oneShotsCancelled == 1 && statistics.subscriptionsCancelled == 1)
    }

    @Test("a handler ends the session, then cancels: a fix queued before the barrier reaches neither the subscription nor the one-shot")
    func cancelBehindABarrierSkipsAFixQueuedBeforeIt() async {
        let engine = makeEngine()
        let targets = NIOLockedValueBox<[RequestID]>([])
        // The first fix (500 m) completes `first` only; its handler queues a second fix (20 m, which would
        // complete `precise`), ends the session, then cancels the other two.
        let first = engine.location(accuracy: .neighborhood, timeout: nil) { [recorder, source] result in
            recorder.oneShot(result)
            source.emit(Location(latitude: 48, longitude: 11.001, horizontalAccuracy: 20))
            engine.endSession()
            for target in targets.withLockedValue({ $0 }) { engine.cancel(target) }
        }
        let subscription = engine.updates(handler: recorder.subscription)
        let precise = engine.location(accuracy: .block, timeout: nil, handler: recorder.oneShot)
        targets.withLockedValue { $0 = [precise, subscription] }
        await engine.sync()
        source.emit(Location(latitude: 48, longitude: 11, horizontalAccuracy: 500))
        await engine.sync()
        #expect(recorder.results(first).map(\.status) == [.success])
        #expect(recorder.results(precise).isEmpty, "cancelled before the second fix was processed")
        let longitudes = recorder.events(subscription).compactMap { event -> Double? in
            if case .location(let update) = event { update.location.longitude } else { nil }
        }
        #expect(!longitudes.contains { $0 > 11.0005 }, "no update from the fix processed after the cancel was made")
        let statistics = await engine.statistics()
        #expect(statistics.oneShotsCancelled == 1 && statistics.subscriptionsCancelled == 1)
        #expect(statistics.oneShotsSucceeded == 1)
        #expect(statistics.subscriptionUpdates == longitudes.count)
    }

    @Test("a cancel made from another caller behind a barrier: the fix queued before the barrier skips the request")
    func cancelBehindABarrierBetweenCommands() async {
        let user = ManyEnginesStressTests.PushedAuthorization()
        let engine = makeEngine(.init(linger: .zero, authorizationProvider: user, usage: AuthorizationTests.declared), running: false)
        let oneShot = engine.location(accuracy: .block, timeout: nil, handler: recorder.oneShot)
        let subscription = engine.updates(handler: recorder.subscription)
        await engine.sync()
        source.emit(Location(latitude: 48, longitude: 11, horizontalAccuracy: 20))
        engine.endSession()
        engine.cancel(oneShot)
        engine.cancel(subscription)
        await engine.sync()
        #expect(recorder.results(oneShot).isEmpty)
        #expect(recorder.events(subscription).isEmpty)
        let statistics = await engine.statistics()
        #expect(statistics.oneShotsCancelled == 1 && statistics.subscriptionsCancelled == 1)
        #expect(statistics.oneShotsSucceeded == 0 && statistics.subscriptionUpdates == 0)
    }

    @Test("a barrier that ends the requests, then cancels of them: the barrier's endings stand")
    func barrierEndingStandsAgainstAHeldCancel() async {
        let user = ManyEnginesStressTests.PushedAuthorization()
        let engine = makeEngine(.init(linger: .zero, authorizationProvider: user, usage: AuthorizationTests.declared), running: false)
        let ended = engine.location(accuracy: .block, timeout: nil, handler: recorder.oneShot)
        let subscription = engine.updates(handler: recorder.subscription)
        await engine.sync()
        // No fix between: the revocation made first decides both endings.
        user.push(.denied)
        engine.cancel(ended)
        engine.cancel(subscription)
        await engine.sync()
        #expect(recorder.results(ended).map(\.status) == [.unauthorized(.denied)])
        #expect(recorder.events(subscription) == [.ended(.unauthorized(.denied))])
        let statistics = await engine.statistics()
        #expect(statistics.oneShotsCancelled == 0 && statistics.subscriptionsCancelled == 0)
    }

    @Test("a timeout falling due while a cancel waits behind a barrier: the one-shot ends cancelled")
    func timeoutBehindAHeldCancel() async {
        let engine = makeEngine(running: false)
        let oneShot = engine.location(accuracy: .block, timeout: .seconds(5), handler: recorder.oneShot)
        await engine.sync()
        engine.endSession()
        engine.cancel(oneShot)
        clock.advance(by: .seconds(10))
        await engine.sync()
        #expect(recorder.results(oneShot).isEmpty, "a cancelled callback hears nothing")
        let statistics = await engine.statistics()
        #expect(statistics.oneShotsCancelled == 1 && statistics.oneShotsTimedOut == 0)
    }

    @Test("a monitor cancelled behind a barrier hears no transition from a fix queued before it")
    func monitorBehindAHeldCancel() async throws {
        let engine = makeEngine(running: false)
        let heard = NIOLockedValueBox<[RegionEvent]>([])
        let region = try GeofenceRegion.circle(centre: GeoPoint(latitude: 48, longitude: 11), radius: 200)
        let monitor = engine.monitor(region) { _, event in heard.withLockedValue { $0.append(event) } }
        await engine.sync()
        source.emit(Location(latitude: 48, longitude: 11, horizontalAccuracy: 5))
        engine.endSession()
        engine.cancel(monitor)
        await engine.sync()
        #expect(heard.withLockedValue { $0 }.isEmpty, "a cancelled monitor hears no transition and no end")
        let statistics = await engine.statistics()
        #expect(statistics.subscriptionsCancelled == 1 && statistics.activeSubscriptions == 0)
    }

    @Test("behind a barrier, a force-complete then a cancel: the first withdrawal counts, the fix queued before the barrier completes the one-shot")
    func heldForceCompleteThenCancel() async {
        let engine = makeEngine(running: false)
        let oneShot = engine.location(accuracy: .block, timeout: nil, handler: recorder.oneShot)
        await engine.sync()
        source.emit(Location(latitude: 48, longitude: 11, horizontalAccuracy: 20))
        engine.endSession()
        engine.forceComplete(oneShot)
        engine.cancel(oneShot)
        await engine.sync()
        #expect(recorder.results(oneShot).map(\.status) == [.success])
        #expect(await engine.statistics().oneShotsCancelled == 0)
    }

    @Test("a revocation, then a cancel of a subscription it ends: unauthorized, even when a handler before it withdraws something")
    func barrierEndingStandsWhenTheHeldCancelIsHandedOverMidDelivery() async {
        let user = ManyEnginesStressTests.PushedAuthorization()
        let engine = makeEngine(.init(linger: .zero, authorizationProvider: user, usage: AuthorizationTests.declared), running: false)
        let oneShot = NIOLockedValueBox<RequestID?>(nil)
        let id = engine.location(accuracy: .block, timeout: nil) { [recorder] result in
            recorder.oneShot(result)
            // Any withdrawal from this handler hands over the cancel held behind the revocation mid-delivery.
            if let own = oneShot.withLockedValue({ $0 }) { engine.cancel(own) }
        }
        oneShot.withLockedValue { $0 = id }
        let subscription = engine.updates(handler: recorder.subscription)
        await engine.sync()
        user.push(.denied)
        engine.cancel(subscription)
        await engine.sync()
        #expect(recorder.results(id).map(\.status) == [.unauthorized(.denied)])
        #expect(recorder.events(subscription) == [.ended(.unauthorized(.denied))], "the revocation was made first")
        #expect(await engine.statistics().subscriptionsCancelled == 0)
    }

    @Test("behind a barrier, a force-complete, then a cancel from a handler of the fix that ended the one-shot: the fix's ending stands")
    func heldForceCompleteBeatsALaterCancelMidDelivery() async {
        let engine = makeEngine(running: false)
        let target = NIOLockedValueBox<RequestID?>(nil)
        let first = engine.location(accuracy: .block, timeout: nil) { [recorder] result in
            recorder.oneShot(result)
            if let target = target.withLockedValue({ $0 }) { engine.cancel(target) }
        }
        let second = engine.location(accuracy: .block, timeout: nil, handler: recorder.oneShot)
        target.withLockedValue { $0 = second }
        await engine.sync()
        source.emit(Location(latitude: 48, longitude: 11, horizontalAccuracy: 20))
        engine.endSession()
        engine.forceComplete(second)
        await engine.sync()
        #expect(recorder.results(first).map(\.status) == [.success])
        #expect(recorder.results(second).map(\.status) == [.success], "the force-complete, made first, skips nothing")
        #expect(await engine.statistics().oneShotsCancelled == 0)
    }

    @Test("a handler force-completes a later recipient, ends the session, then cancels it: force-completed")
    func readyForceCompleteBeforeAHeldCancelMidDelivery() async {
        let engine = makeEngine()
        let target = NIOLockedValueBox<RequestID?>(nil)
        let first = engine.location(accuracy: .block, timeout: nil) { [recorder] result in
            recorder.oneShot(result)
            guard let target = target.withLockedValue({ $0 }) else { return }
            engine.forceComplete(target)
            engine.endSession()
            engine.cancel(target)
        }
        let second = engine.location(accuracy: .block, timeout: nil, handler: recorder.oneShot)
        target.withLockedValue { $0 = second }
        await engine.sync()
        source.emit(Location(latitude: 48, longitude: 11, horizontalAccuracy: 20))
        await engine.sync()
        #expect(recorder.results(first).map(\.status) == [.success])
        #expect(recorder.results(second).map(\.status) == [.forceCompleted], "the first withdrawal made decides")
        let statistics = await engine.statistics()
        #expect(statistics.oneShotsCancelled == 0 && statistics.oneShotsForceCompleted == 1)
    }

    @Test("cancelling an ID the engine never handed out is a no-op: the request that gets it later runs")
    func cancelOfAnUnissuedID() async {
        let engine = makeEngine()
        let first = engine.location(accuracy: .block, timeout: nil, handler: recorder.oneShot)
        engine.cancel(RequestID(engine: first.engine, sequence: 3))
        engine.forceComplete(RequestID(engine: first.engine, sequence: 4))
        let ids = [first] + (0..<3).map { _ in engine.location(accuracy: .block, timeout: nil, handler: recorder.oneShot) }
        #expect(ids.map(\.sequence) == [1, 2, 3, 4])
        await engine.sync()
        source.emit(Location(latitude: 48, longitude: 11, horizontalAccuracy: 20))
        await engine.sync()
        #expect(ids.map { recorder.results($0).map(\.status) } == Array(repeating: [.success], count: 4))
    }

    @Test("an ID another engine handed out names no request: cancelling or force-completing it here changes nothing")
    func anotherEnginesIDIsANoOp() async {
        // The other engine is made first: its IDs are below this one's.
        let other = makeEngine(source: ScriptedLocationSource(), running: false)
        let engine = makeEngine()
        let theirs = (0..<3).map { _ in other.location(accuracy: .block, timeout: nil, handler: recorder.oneShot) }
        let ours = (0..<3).map { _ in engine.location(accuracy: .block, timeout: nil, handler: recorder.oneShot) }
        #expect(ours.map(\.sequence) == theirs.map(\.sequence), "both engines number their requests 1, 2, 3")
        #expect(Set(ours).isDisjoint(with: theirs) && ours[0].engine != theirs[0].engine)
        engine.cancel(theirs[0])
        engine.forceComplete(theirs[1])
        await engine.sync()
        source.emit(Location(latitude: 48, longitude: 11, horizontalAccuracy: 20))
        await engine.sync()
        #expect(ours.map { recorder.results($0).map(\.status) } == Array(repeating: [.success], count: 3))
        let statistics = await engine.statistics()
        #expect(statistics.oneShotsCancelled == 0 && statistics.oneShotsForceCompleted == 0)
        // The other engine's requests are untouched too: its own withdrawals still end them.
        other.cancel(theirs[0])
        other.forceComplete(theirs[1])
        await other.sync()
        #expect(recorder.results(theirs[0]).isEmpty && recorder.results(theirs[1]).map(\.status) == [.forceCompleted])
        await other.shutdown()
    }
}

import LocationEngineTestKit
import Testing

@testable import LocationEngine

/// Each event but a withdrawal first lets what fell due by its instant happen: the cases where that takes
/// more than one pass (the receiver's steps down due together), an authorization change handed over late,
/// and the withdrawal, which is taken as made before its owner handed it over.
@Suite("Catching up with what fell due")
struct CatchUpTests {
    private static func at(_ seconds: Int64) -> EngineInstant { EngineInstant(.seconds(seconds)) }

    /// The receiver's demand ended at 10 s (restart-aware: standby after 1.1 s, off 290 s later), accuracy
    /// then reduced, optionally a one-shot `waiting` for temporary full accuracy until 360 s, and a
    /// revocation due at 305 s: by 400 s both steps down, the revocation and the deadline have fallen due.
    private static func idleWithRevocationAhead(waiting: Bool) -> MachineHarness {
        var h = MachineHarness(
            linger: .seconds(5), purposeKeys: ["k"], powerProfile: RestartAwarePowerTests.profile, powerDown: .restartAware(trust: 1))
        h.advance(by: .seconds(10))
        h.oneShot("first", .house, timeout: nil)
        h.fix(12)
        h.setAccuracy(.reduced)
        if waiting { h.oneShot("waiting", .room, timeout: .seconds(350), purposeKey: "k") }
        h.receive(AuthorizationState(status: .denied, accuracy: .reduced), after: .seconds(295))
        return h
    }

    @Test("a deadline behind a due revocation, both behind two steps down: the revocation ends the request, whether or not the owner passed the time")
    func deadlineBehindRevocationBehindTwoPowerSteps() {
        var passing = Self.idleWithRevocationAhead(waiting: true)
        passing.advance(by: .seconds(390))
        passing.transientError()
        var direct = Self.idleWithRevocationAhead(waiting: true)
        direct.now = direct.now + .seconds(390)
        direct.transientError()
        #expect(passing.results["waiting"]?.map(\.status) == [.unauthorized(.denied)])
        #expect(direct.results["waiting"]?.map(\.status) == [.unauthorized(.denied)])
        #expect(direct.machine.alarmsAreSet)
    }

    @Test("a submission after a due revocation behind two steps down is refused, not served from the cache")
    func submissionAfterRevocationBehindTwoPowerSteps() {
        var passing = Self.idleWithRevocationAhead(waiting: false)
        passing.advance(by: .seconds(390))
        passing.oneShot("late", .city, timeout: .seconds(30))
        var direct = Self.idleWithRevocationAhead(waiting: false)
        direct.now = direct.now + .seconds(390)
        direct.oneShot("late", .city, timeout: .seconds(30))
        #expect(passing.results["late"]?.map(\.status) == [.unauthorized(.denied)])
        #expect(direct.results["late"]?.map(\.status) == [.unauthorized(.denied)])
        #expect(direct.sourceCommands == passing.sourceCommands)
    }

    @Test("an authorization change due later, handed over after a deadline: the timeout's reconcile happens in that event")
    func authorizationChangeSettlesItsCatchUp() {
        var h = MachineHarness()
        h.oneShot("x", .room, timeout: .seconds(5))
        h.now = Self.at(6)
        h.receive(.authorizedWhenInUse(), after: .seconds(10))
        #expect(h.results["x"]?.map(\.status) == [.timedOut])
        #expect(h.sourceCommands == [.start(.best), .stop], "the source stops when its last request times out")
        #expect(h.machine.alarmsAreSet)
    }

    @Test("an authorization change handed over after two steps down fell due leaves the power alarm set")
    func authorizationChangeLeavesThePowerAlarm() {
        var h = MachineHarness(linger: .seconds(5), powerProfile: RestartAwarePowerTests.profile, powerDown: .restartAware(trust: 1))
        h.advance(by: .seconds(10))
        h.oneShot("first", .house, timeout: nil)
        h.fix(12)
        h.now = h.now + .seconds(400)
        h.receive(.authorizedWhenInUse(), after: .seconds(10))
        #expect(h.machine.alarmsAreSet)
        #expect(h.machine.nextWakeup != nil)
    }

    @Test("a change handed over late (due at 3 s, at 10 s) after one scheduled for 8 s: they apply in due order")
    func lateChangeAppliesInDueOrder() {
        var h = MachineHarness()
        h.receive(AuthorizationState(status: .denied, accuracy: .full), after: .seconds(8))
        h.now = Self.at(10)
        h.carryOut(h.machine.receiveAuthorization(AuthorizationState(status: .authorizedAlways, accuracy: .full), due: Self.at(3), answering: nil, now: h.now))
        #expect(h.machine.authorizationState.status == .denied, "the change due at 8 s is the later one")
        #expect(h.pictures.map(\.status) == [.authorizedAlways, .denied])
    }

    @Test("a withdrawal handed over after a deadline, the time not passed: taken as made before it, it wins", arguments: [Withdrawal.cancel, .forceComplete])
    func withdrawalIsTakenAsMadeBefore(_ withdrawal: Withdrawal) {
        var h = MachineHarness()
        h.oneShot("x", .room, timeout: .seconds(5))
        h.now = Self.at(6)
        if withdrawal == .cancel { h.cancel("x") } else { h.forceComplete("x") }
        if withdrawal == .cancel {
            #expect(h.cancelled == ["x"] && h.results["x"] == nil)
        } else {
            #expect(h.results["x"]?.map(\.status) == [.forceCompleted])
        }
    }
}

/// The engine hands withdrawals over before it passes the time: one made before a deadline and handled
/// after it wins.
@Suite("Catching up with what fell due, in the engine")
struct CatchUpEngineTests: EngineTestCase {
    let clock = ManualClock()
    let source = ScriptedLocationSource()
    let recorder = Recorder()

    @Test("a withdrawal handed over after the deadline has passed on the clock: it wins (a cancel delivers nothing)", arguments: [Withdrawal.cancel, .forceComplete])
    func withdrawalAfterDeadline(_ withdrawal: Withdrawal) async {
        let engine = makeEngine(running: false)
        let id = engine.location(accuracy: .room, timeout: .seconds(10), handler: recorder.oneShot)
        await engine.sync()
        clock.advance(by: .seconds(11))
        if withdrawal == .cancel { engine.cancel(id) } else { engine.forceComplete(id) }
        await engine.sync()
        #expect(recorder.results(id).map(\.status) == (withdrawal == .cancel ? [] : [.forceCompleted]))
    }

    /// A room request due at 5 s, and at 1 s a 50 m fix, too coarse for it, which it would carry if it timed out;
    /// synced when `synced`, else left in the inbox.
    func roomRequestWithACoarseFix(_ engine: LocationEngine<ManualClock>, synced: Bool = true) async -> RequestID {
        let request = engine.location(accuracy: .room, timeout: .seconds(5), handler: recorder.oneShot)
        await engine.sync()
        clock.advance(by: .seconds(1))
        source.emit(Location(latitude: 48.137, longitude: 11.575, horizontalAccuracy: 50))
        if synced { await engine.sync() }
        return request
    }

    @Test("a denial reported at 2 s and handled at 10 s applies at 2 s: the request due at 5 s ends unauthorized, carrying no fix")
    func aLateDenialComesBeforeTheDeadlinesAfterIt() async {
        let engine = makeEngine(running: false)
        let id = await roomRequestWithACoarseFix(engine)
        clock.advance(by: .seconds(1))
        engine.updateAuthorization(.denied)
        clock.advance(by: .seconds(8))
        // Before, the engine caught up with the clock before taking the denial: the request timed out at 5 s
        // under the old picture, carrying the 50 m fix, and only then was access denied.
        await engine.sync()
        let results = recorder.results(id)
        #expect(results.map(\.status) == [.unauthorized(.denied)])
        #expect(results.first?.location == nil, "nothing reaches anyone once access is lost")
    }

    @Test("a withdrawal a handler makes while a late denial waits passes no time beyond the denial's instant: the request due after it still ends unauthorized")
    func aWithdrawalDuringADeliveryKeepsTheLateDenialFirst() async {
        let engine = makeEngine(running: false)
        _ = engine.updates(SubscriptionOptions()) { id, event in if case .location = event { engine.cancel(id) } }
        let request = await roomRequestWithACoarseFix(engine, synced: false)
        clock.advance(by: .seconds(1))
        _ = engine.location(accuracy: .city, timeout: .seconds(30), handler: recorder.oneShot)
        engine.updateAuthorization(.denied)
        clock.advance(by: .seconds(8))
        // The fix's delivery runs the subscription's handler, whose cancel was taken at the clock's 10 s: the
        // submission after it caught up to 10 s and timed the request out with the fix, before the denial.
        await engine.sync()
        #expect(recorder.results(request).map(\.status) == [.unauthorized(.denied)])
    }

    @Test("two late changes reported with delays, the later one's instant first: time stops at the earlier instant")
    func lateChangesOutOfOrderStopAtTheEarliest() async {
        let engine = makeEngine(running: false)
        let request = await roomRequestWithACoarseFix(engine)
        // A grant due at 9 s, then a denial due at 2 s (a provider's answers come with delays): the batch's
        // first change is not its earliest.
        engine.submitAuthorization(.authorizedAlways, after: .seconds(8), prompt: nil)
        engine.submitAuthorization(.denied, after: .seconds(1), prompt: nil)
        clock.advance(by: .seconds(9))
        await engine.sync()
        #expect(recorder.results(request).map(\.status) == [.unauthorized(.denied)])
    }

    @Test("a cancel made right after a late grant wins over the timeout the grant started, which ran out before the grant was handled")
    func aCancelBehindALateGrantWinsOverTheTimeoutItStarted() async {
        let user = SimulatedAuthorizationProvider(.init())
        let engine = makeEngine(.init(linger: .zero, authorizationProvider: user, usage: AuthorizationTests.declared), running: false)
        let id = engine.location(accuracy: .city, timeout: .seconds(5), delayUntilAuthorized: true, handler: recorder.oneShot)
        await engine.sync()
        #expect(recorder.results(id).isEmpty, "it waits for an answer")
        engine.updateAuthorization(.authorizedWhenInUse())
        engine.cancel(id)
        clock.advance(by: .seconds(10))
        // Before, the grant's own catching up ran the request's timeout out at 5 s and counted it as the grant's
        // ending, which no cancel behind it replaces: it timed out although cancelled before its deadline.
        await engine.sync()
        #expect(recorder.results(id).isEmpty, "cancelled: its handler is not called")
    }
}

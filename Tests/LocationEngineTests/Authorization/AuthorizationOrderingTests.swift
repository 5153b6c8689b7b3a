import LocationEngine
import LocationEngineTestKit
import NIOConcurrencyHelpers
import Testing

/// Answers that arrive late, changes that are due while other events queue, and prompts that overlap:
/// the picture only ever moves as the user or the provider last decided.
@Suite("Authorization: late answers, overlapping prompts, ordering")
struct AuthorizationOrderingTests {
    typealias User = SimulatedAuthorizationProvider
    let clock = ManualClock()
    let source = ScriptedLocationSource()
    let recorder = Recorder()
    static let declared = AuthorizationTests.declared

    func makeEngine(_ provider: any AuthorizationProvider, usage: UsageDeclarations = declared) -> LocationEngine<ManualClock> {
        let engine = LocationEngine(source: source, clock: clock, configuration: .init(linger: .zero, authorizationProvider: provider, usage: usage), logger: quietLogger)
        Task { try await engine.run() }
        return engine
    }

    func statuses(_ ids: [RequestID]) -> [LocationStatus] { ids.flatMap { recorder.results($0).map(\.status) } }

    @Test("a full-accuracy answer arriving after the session ended cannot bring access back")
    func lateAnswerAfterLapse() async {
        let user = User(.init(
            authorizationAnswers: [.init(.allowOnce(precise: false))], fullAccuracyAnswers: [.init(true, after: .seconds(3))]))
        let engine = makeEngine(user)
        let id = engine.location(accuracy: .house, timeout: nil, purposeKey: "Navigation", handler: recorder.oneShot)
        await engine.sync()
        #expect(user.prompts == [.authorization(.whenInUse), .temporaryFullAccuracy(purposeKey: "Navigation")])
        clock.advance(by: .seconds(1))
        engine.endSession()
        await engine.sync()
        #expect(statuses([id]) == [.unauthorized(.lapsed)])
        clock.advance(by: .seconds(2))
        await engine.sync()
        #expect(await engine.authorizationState == .notDetermined)
    }

    @Test("the end of a session closes its open full-accuracy prompt: the requests waiting for it end, the next session asks anew, and the old prompt's late grant is ignored")
    func sessionEndClosesTheFullAccuracyPrompt() async {
        let user = User(.init(
            initial: .authorizedWhenInUse(accuracy: .reduced),
            fullAccuracyAnswers: [.init(true, after: .seconds(3)), .init(false, after: .seconds(60))]))
        let engine = makeEngine(user)
        let old = engine.location(accuracy: .house, timeout: nil, purposeKey: "Navigation", handler: recorder.oneShot)
        await engine.sync()
        #expect(user.prompts == [.temporaryFullAccuracy(purposeKey: "Navigation")])
        clock.advance(by: .seconds(1))
        engine.endSession()
        await engine.sync()
        #expect(statuses([old]) == [.accuracyReduced])
        let new = engine.location(accuracy: .house, timeout: nil, purposeKey: "Navigation", handler: recorder.oneShot)
        await engine.sync()
        #expect(user.prompts == [.temporaryFullAccuracy(purposeKey: "Navigation"), .temporaryFullAccuracy(purposeKey: "Navigation")])
        // The first prompt's grant comes 3 s after it was shown: that session is over.
        clock.advance(by: .seconds(2))
        await engine.sync()
        #expect(await engine.authorizationState == .authorizedWhenInUse(accuracy: .reduced))
        #expect(statuses([new]).isEmpty, "still waiting for its own prompt's answer")
    }

    @Test("a full-accuracy answer arriving after a revocation cannot bring access back")
    func lateAnswerAfterRevocation() async {
        let user = User(.init(
            initial: .authorizedWhenInUse(accuracy: .reduced), fullAccuracyAnswers: [.init(true, after: .seconds(3))],
            changes: [.init(.denied, after: .seconds(2))]))
        let engine = makeEngine(user)
        let id = engine.location(accuracy: .house, timeout: nil, purposeKey: "Navigation", handler: recorder.oneShot)
        await engine.sync()
        clock.advance(by: .seconds(3))
        await engine.sync()
        #expect(statuses([id]) == [.unauthorized(.denied)])
        #expect(await engine.authorizationState == .denied)
    }

    @Test("a late dismissal of the authorization prompt does not undo a location-button grant")
    func lateDismissAfterButtonGrant() async {
        let user = User(.init(authorizationAnswers: [.init(.dismiss, after: .seconds(5))], locationButtonAnswers: [.init(true)]))
        let engine = makeEngine(user)
        engine.locationButtonPressed()  // first press: confirmed
        await engine.sync()
        engine.endSession()  // the one-time grant lapses
        let id = engine.location(accuracy: .city, timeout: nil, handler: recorder.oneShot)  // prompts; dismissed at 5 s
        await engine.sync()
        engine.locationButtonPressed()  // confirmed before: granted at once
        await engine.sync()
        clock.advance(by: .seconds(5))
        await engine.sync()
        #expect(await engine.authorizationState == .authorizedWhenInUse(oneTime: true))
        #expect(statuses([id]).isEmpty, "still waiting for a fix, not ended as undecided or lapsed")
        source.emit(fix(40))
        await engine.sync()
        #expect(statuses([id]) == [.success])
    }

    @Test("a request made while the location-button confirmation is up waits for it instead of prompting", arguments: [true, false])
    func requestDuringButtonConfirmation(declared: Bool) async {
        let provider = StaticAuthorizationProvider(.notDetermined, confirmsLocationButton: true)
        let engine = makeEngine(provider, usage: declared ? Self.declared : .none)
        engine.locationButtonPressed()
        let id = engine.location(accuracy: .house, timeout: .seconds(10), delayUntilAuthorized: true, handler: recorder.oneShot)
        await engine.sync()
        #expect(await engine.authorizationState == .authorizedWhenInUse(oneTime: true))
        source.emit(fix(4))
        await engine.sync()
        #expect(statuses([id]) == [.success])
    }

    @Test("a declined confirmation lets the deferred authorization request go ahead")
    func declinedButtonThenPrompt() async {
        let user = User(.init(authorizationAnswers: [.init(.allowWhileUsing())], locationButtonAnswers: [.init(false, after: .seconds(1))]))
        let engine = makeEngine(user)
        engine.locationButtonPressed()
        let id = engine.location(accuracy: .city, timeout: nil, handler: recorder.oneShot)
        await engine.sync()
        #expect(user.prompts == [.locationButton])
        clock.advance(by: .seconds(1))
        await engine.sync()
        #expect(user.prompts == [.locationButton, .authorization(.whenInUse)])
        source.emit(fix(40))
        await engine.sync()
        #expect(statuses([id]) == [.success])
    }

    @Test("a change that fell due before a fix arrived applies first: the fix is coarsened")
    func dueChangeBeforeLaterFix() async {
        let user = User(.init(initial: .authorizedAlways, changes: [.init(.authorizedWhenInUse(accuracy: .reduced), after: .seconds(10))]))
        let engine = makeEngine(user)
        let subscription = engine.updates(handler: recorder.subscription)
        await engine.sync()
        clock.advance(by: .seconds(12))
        source.emit(fix(4))
        await engine.sync()
        let updates = recorder.events(subscription).compactMap { event -> Location? in
            if case .location(let update) = event { return update.location }
            return nil
        }
        #expect(updates.count == 1)
        #expect(updates.allSatisfy(ReducedAccuracyPolicy().isCoarse))
    }

    @Test("nextWakeup() includes scheduled authorization changes, so virtual-time drivers reach them")
    func nextWakeupIncludesScheduledChanges() async {
        let engine = makeEngine(User(.init(initial: .authorizedAlways, changes: [.init(.denied, after: .seconds(60))])))
        await engine.sync()
        #expect(await engine.nextWakeup() == clock.now.advanced(by: .seconds(60)))
    }

    @Test("endSession() reverting temporary full accuracy ends requests needing it, without prompting again")
    func temporaryFullAccuracyRevertsQuietly() async {
        let user = User(.init(initial: .authorizedWhenInUse(accuracy: .reduced), fullAccuracyAnswers: [.init(true)]))
        let engine = makeEngine(user)
        let first = engine.location(accuracy: .house, timeout: nil, purposeKey: "Navigation", handler: recorder.oneShot)
        await engine.sync()
        #expect(await engine.authorizationState.accuracy == .full)
        engine.endSession()
        await engine.sync()
        #expect(statuses([first]) == [.accuracyReduced])
        #expect(user.prompts == [.temporaryFullAccuracy(purposeKey: "Navigation")])
        let next = engine.location(accuracy: .house, timeout: nil, purposeKey: "Navigation", handler: recorder.oneShot)
        await engine.sync()
        #expect(user.prompts.count == 2, "the next session may ask again")
        #expect(statuses([next]) == [])
    }

    @Test("delay-until-authorized also covers the wait for temporary full accuracy")
    func delayedTimeoutWaitsForFullAccuracy() async {
        let user = User(.init(initial: .authorizedWhenInUse(accuracy: .reduced), fullAccuracyAnswers: [.init(true, after: .seconds(30))]))
        let engine = makeEngine(user)
        let id = engine.location(
            accuracy: .house, timeout: .seconds(10), delayUntilAuthorized: true, purposeKey: "Navigation", handler: recorder.oneShot)
        await engine.sync()
        clock.advance(by: .seconds(30))
        await engine.sync()
        #expect(statuses([id]).isEmpty)
        clock.advance(by: .seconds(10))
        await engine.sync()
        #expect(statuses([id]) == [.timedOut])
    }

    @Test("only a reply's first answer counts, whatever its delay")
    func firstAnswerCounts() async {
        struct Indecisive: AuthorizationProvider {
            func currentState() -> AuthorizationState { .notDetermined }
            func requestAuthorization(_ prompt: AuthorizationPrompt, reply: AuthorizationReply) {
                reply(.authorizedWhenInUse(), after: .seconds(5))
                reply(.denied, after: .seconds(1))
            }
            func requestTemporaryFullAccuracy(_ prompt: FullAccuracyPrompt, reply: AuthorizationReply) {}
            func confirmLocationButton(current: AuthorizationState, reply: AuthorizationReply) {}
        }
        let engine = makeEngine(Indecisive())
        let id = engine.location(accuracy: .city, timeout: nil, handler: recorder.oneShot)
        await engine.sync()
        clock.advance(by: .seconds(5))
        await engine.sync()
        #expect(await engine.authorizationState == .authorizedWhenInUse())
        #expect(statuses([id]).isEmpty)
    }

    @Test("after shutdown, authorization updates finish at once and changes are ignored")
    func afterShutdown() async {
        let engine = makeEngine(User(.init(initial: .authorizedAlways, changes: [.init(.denied, after: .seconds(1))])))
        await engine.shutdown()
        await engine.sync()
        var seen: [AuthorizationState] = []
        for await state in engine.authorizationUpdates() { seen.append(state) }
        #expect(seen == [.authorizedAlways])
        clock.advance(by: .seconds(1))
        await engine.sync()
        #expect(await engine.authorizationState == .authorizedAlways)
    }

    @Test("a full-accuracy grant answered after a revocation stays void even once access is back")
    func lateGrantAfterRevocationAndRestore() async {
        let user = User(.init(
            initial: .authorizedWhenInUse(accuracy: .reduced), fullAccuracyAnswers: [.init(true, after: .seconds(3))],
            changes: [.init(.denied, after: .seconds(1)), .init(.authorizedWhenInUse(accuracy: .reduced), after: .seconds(2))]))
        let engine = makeEngine(user)
        engine.location(accuracy: .house, timeout: nil, purposeKey: "Navigation", handler: recorder.oneShot)
        await engine.sync()
        clock.advance(by: .seconds(3))
        await engine.sync()
        #expect(await engine.authorizationState == .authorizedWhenInUse(accuracy: .reduced))
    }

    @Test("a full-accuracy grant answered after the session ended does not carry into the next grant")
    func lateGrantIntoNextSession() async {
        let user = User(.init(
            authorizationAnswers: [.init(.allowOnce(precise: false))], fullAccuracyAnswers: [.init(true, after: .seconds(3))]))
        let engine = makeEngine(user)
        engine.location(accuracy: .house, timeout: nil, purposeKey: "Navigation", handler: recorder.oneShot)
        await engine.sync()
        clock.advance(by: .seconds(1))
        engine.endSession()
        await engine.sync()
        clock.advance(by: .seconds(1))
        engine.location(accuracy: .city, timeout: nil, handler: recorder.oneShot)  // asks again: allow once, reduced
        await engine.sync()
        clock.advance(by: .seconds(1))
        await engine.sync()
        #expect(await engine.authorizationState == .authorizedWhenInUse(accuracy: .reduced, oneTime: true))
    }

    @Test("an unanswered location-button confirmation holds requests only until access changes; then they prompt again")
    func unansweredButtonConfirmation() async {
        let user = User(.init(
            authorizationAnswers: [.init(.allowWhileUsing())],
            changes: [.init(AuthorizationState(status: .notDetermined, servicesEnabled: false), after: .seconds(1)),
                      .init(.notDetermined, after: .seconds(2))]))
        let engine = makeEngine(user)
        engine.locationButtonPressed()  // never answered
        let first = engine.location(accuracy: .city, timeout: nil, handler: recorder.oneShot)
        await engine.sync()
        #expect(user.prompts == [.locationButton])
        clock.advance(by: .seconds(2))
        await engine.sync()
        #expect(statuses([first]) == [.unauthorized(.servicesDisabled)])
        let second = engine.location(accuracy: .city, timeout: nil, handler: recorder.oneShot)
        await engine.sync()
        #expect(user.prompts == [.locationButton, .authorization(.whenInUse)])
        source.emit(fix(40))
        await engine.sync()
        #expect(statuses([second]) == [.success])
    }

    @Test("a reduction that falls due applies on the engine's own timer; lastKnownLocation() then reads it coarse")
    func lastKnownLocationAfterDueReduction() async {
        let engine = makeEngine(User(.init(
            initial: .authorizedAlways, changes: [.init(.authorizedWhenInUse(accuracy: .reduced), after: .seconds(10))])))
        engine.updates(handler: recorder.subscription)
        await engine.sync()
        source.emit(fix(4))
        await engine.sync()
        #expect(await engine.lastKnownLocation()?.location == fix(4))
        clock.advance(by: .seconds(12))
        // No sync(): the engine's timer was armed for the change and applies it by itself.
        await eventually("the due reduction applied") { await engine.authorizationState.accuracy == .reduced }
        let known = await engine.lastKnownLocation()?.location
        #expect(known.map(ReducedAccuracyPolicy().isCoarse) == true)
    }

    @Test("changes apply in the order of their due times, whatever order they arrive in")
    func changesInDueOrder() async {
        let engine = makeEngine(User(.init(initial: .authorizedAlways, changes: [.init(.denied, after: .seconds(5))])))
        await engine.sync()
        clock.advance(by: .seconds(6))
        engine.updateAuthorization(.authorizedWhenInUse())  // reported at 6 s, after the denial due at 5 s
        await engine.sync()
        #expect(await engine.authorizationState == .authorizedWhenInUse())
    }

    @Test("a dismissal changes nothing, not even the accuracy the prompt saw")
    func dismissalChangesNothing() async {
        let user = User(.init(
            authorizationAnswers: [.init(.dismiss, after: .seconds(5))],
            changes: [.init(AuthorizationState(status: .notDetermined, accuracy: .reduced), after: .seconds(1))]))
        let engine = makeEngine(user)
        let id = engine.location(accuracy: .city, timeout: nil, handler: recorder.oneShot)
        await engine.sync()
        clock.advance(by: .seconds(5))
        await engine.sync()
        #expect(statuses([id]) == [.unauthorized(.undecided)])
        #expect(await engine.authorizationState == AuthorizationState(status: .notDetermined, accuracy: .reduced))
    }

    @Test("a confirmation made from denied does not let a later press from not determined skip its own")
    func confirmationFromDeniedDoesNotCount() async {
        let user = User(.init(initial: .denied, locationButtonAnswers: [.init(true)]))
        let engine = makeEngine(user)
        engine.locationButtonPressed()  // denied → not determined
        await engine.sync()
        engine.locationButtonPressed()  // from not determined: asks again
        await engine.sync()
        #expect(user.prompts == [.locationButton, .locationButton])
        #expect(await engine.authorizationState == .authorizedWhenInUse(oneTime: true))
    }
}

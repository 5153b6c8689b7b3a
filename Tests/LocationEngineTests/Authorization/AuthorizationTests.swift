import LocationEngine
import LocationEngineTestKit
import NIOConcurrencyHelpers
import Testing

/// The authorization model end to end: a simulated user answers the engine's
/// prompts after scripted delays on a manual clock.
@Suite("Authorization and privacy, through the engine")
struct AuthorizationTests {
    typealias User = SimulatedAuthorizationProvider
    let clock = ManualClock()
    let source = ScriptedLocationSource()
    let recorder = Recorder()
    static let declared = UsageDeclarations(
        whenInUse: "Shows where you are on the map.", always: "Tracks your runs in the background.",
        temporaryFullAccuracyPurposes: ["Navigation": "Turn-by-turn directions need your precise location."])

    func makeEngine(
        _ user: User, usage: UsageDeclarations = declared, preferred: AuthorizationLevel = .whenInUse,
        onChange: (@Sendable (AuthorizationState) -> Void)? = nil
    ) -> LocationEngine<ManualClock> {
        let engine = LocationEngine(
            source: source, clock: clock,
            configuration: .init(
                linger: .zero, authorizationProvider: user, usage: usage, preferredAuthorization: preferred,
                onAuthorizationChange: onChange), logger: quietLogger)
        Task { try await engine.run() }
        return engine
    }

    func statuses(_ ids: [RequestID]) -> [LocationStatus] { ids.flatMap { recorder.results($0).map(\.status) } }

    @Test("10,000 requests while not determined make exactly one prompt; the answer admits them all")
    func onePromptForTenThousand() async {
        let user = User(.init(authorizationAnswers: [.init(.allowWhileUsing(), after: .seconds(2))]))
        let engine = makeEngine(user)
        let ids = (0..<10_000).map { _ in
            engine.location(accuracy: .block, timeout: nil, handler: recorder.oneShot)
        }
        let subscription = engine.updates(handler: recorder.subscription)
        await engine.sync()
        #expect(user.prompts == [.authorization(.whenInUse)])
        #expect(source.commands.isEmpty, "nothing powers the source before authorization")
        clock.advance(by: .seconds(2))
        await engine.sync()
        #expect(await engine.authorizationState == .authorizedWhenInUse())
        #expect(source.emit(fix(40)))
        await engine.sync()
        #expect(statuses(ids) == Array(repeating: .success, count: 10_000))
        #expect(recorder.events(subscription).count == 1)
        #expect(user.prompts.count == 1)
    }

    @Test("the level asked for follows the declarations: always only when wanted and declared")
    func levelFollowsDeclarations() async {
        for (usage, preferred, expected) in [
            (Self.declared, AuthorizationLevel.always, AuthorizationLevel.always),
            (Self.declared, .whenInUse, .whenInUse),
            (UsageDeclarations(whenInUse: "map"), .always, .whenInUse),
            (UsageDeclarations(always: "runs"), .whenInUse, .always),
        ] {
            let user = User(.init(authorizationAnswers: [.init(.allowAlways())]))
            let engine = makeEngine(user, usage: usage, preferred: preferred)
            engine.location(accuracy: .city, timeout: nil) { _ in }
            await engine.sync()
            #expect(user.prompts == [.authorization(expected)])
            #expect(await engine.authorizationState.status == (expected == .always ? .authorizedAlways : .authorizedWhenInUse))
        }
    }

    @Test("nothing declared: the first request ends with a clear configuration error, nobody is prompted, nothing hangs")
    func noDeclarations() async {
        let user = User(.init(authorizationAnswers: [.init(.allowWhileUsing())]))
        let engine = makeEngine(user, usage: .none)
        let first = engine.location(accuracy: .city, timeout: nil, handler: recorder.oneShot)
        let delayed = engine.location(accuracy: .city, timeout: .seconds(5), delayUntilAuthorized: true, handler: recorder.oneShot)
        let subscription = engine.updates(handler: recorder.subscription)
        await engine.sync()
        #expect(statuses([first, delayed]) == [.misconfigured(.noUsageDeclared), .misconfigured(.noUsageDeclared)])
        #expect(recorder.events(subscription) == [.ended(.misconfigured(.noUsageDeclared))])
        #expect(user.prompts.isEmpty)
        let second = engine.location(accuracy: .city, timeout: nil, handler: recorder.oneShot)
        await engine.sync()
        #expect(statuses([second]) == [.misconfigured(.noUsageDeclared)])
        #expect("\(ConfigurationError.noUsageDeclared)".contains("usage.whenInUse"))
        #expect(await engine.statistics().pendingOneShots == 0)
    }

    @Test("pre-authorized deployments need no declarations (nothing is ever asked)")
    func preAuthorizedNeedsNoDeclarations() async {
        let engine = makeEngine(User(.init(initial: .authorizedAlways)), usage: .none)
        let id = engine.location(accuracy: .city, timeout: nil, handler: recorder.oneShot)
        await engine.sync()
        source.emit(fix(40))
        await engine.sync()
        #expect(statuses([id]) == [.success])
    }

    @Test("delay-until-authorized: the timeout starts when the user answers")
    func delayUntilAuthorized() async {
        let user = User(.init(authorizationAnswers: [.init(.allowWhileUsing(), after: .seconds(30))]))
        let engine = makeEngine(user)
        let delayed = engine.location(accuracy: .room, timeout: .seconds(10), delayUntilAuthorized: true, handler: recorder.oneShot)
        let plain = engine.location(accuracy: .room, timeout: .seconds(10), handler: recorder.oneShot)
        await engine.sync()
        clock.advance(by: .seconds(10))
        await engine.sync()
        #expect(statuses([plain]) == [.timedOut])
        clock.advance(by: .seconds(20))
        await engine.sync()
        clock.advance(by: .seconds(9))
        await engine.sync()
        #expect(statuses([delayed]).isEmpty)
        clock.advance(by: .seconds(1))
        await engine.sync()
        #expect(statuses([delayed]) == [.timedOut])
    }

    @Test("denied, restricted, services disabled: requests end at once with that status")
    func refusedStates() async {
        for (state, failure) in [
            (AuthorizationState.denied, AuthorizationFailure.denied),
            (.restricted, .restricted),
            (AuthorizationState(status: .authorizedAlways, servicesEnabled: false), .servicesDisabled),
        ] {
            let recorder = Recorder()
            let engine = makeEngine(User(.init(initial: state)))
            let id = engine.location(accuracy: .city, timeout: nil, handler: recorder.oneShot)
            let subscription = engine.updates(handler: recorder.subscription)
            await engine.sync()
            #expect(recorder.results(id).map(\.status) == [.unauthorized(failure)])
            #expect(recorder.events(subscription) == [.ended(.unauthorized(failure))])
        }
        #expect(source.commands.isEmpty)
    }

    @Test("a denial by the user ends every waiting request with denied")
    func userDenies() async {
        let user = User(.init(authorizationAnswers: [.init(.deny, after: .seconds(1))]))
        let engine = makeEngine(user)
        let id = engine.location(accuracy: .city, timeout: nil, handler: recorder.oneShot)
        let subscription = engine.updates(handler: recorder.subscription)
        await engine.sync()
        clock.advance(by: .seconds(1))
        await engine.sync()
        #expect(statuses([id]) == [.unauthorized(.denied)])
        #expect(recorder.events(subscription) == [.ended(.unauthorized(.denied))])
    }

    @Test("a dismissed prompt ends the waiting requests as undecided; the next request asks again")
    func dismissed() async {
        let user = User(.init(authorizationAnswers: [.init(.dismiss), .init(.allowWhileUsing())]))
        let engine = makeEngine(user)
        let id = engine.location(accuracy: .city, timeout: nil, handler: recorder.oneShot)
        await engine.sync()
        #expect(statuses([id]) == [.unauthorized(.undecided)])
        let next = engine.location(accuracy: .city, timeout: nil, handler: recorder.oneShot)
        await engine.sync()
        #expect(user.prompts.count == 2)
        source.emit(fix(40))
        await engine.sync()
        #expect(statuses([next]) == [.success])
    }

    @Test("allow once lasts for the session: endSession() lapses it, pending requests end, the next request asks again")
    func allowOnceLapses() async {
        let user = User(.init(authorizationAnswers: [.init(.allowOnce())]))
        let engine = makeEngine(user)
        let first = engine.location(accuracy: .city, timeout: nil, handler: recorder.oneShot)
        await engine.sync()
        source.emit(fix(40))
        await engine.sync()
        #expect(statuses([first]) == [.success])
        #expect(await engine.authorizationState == .authorizedWhenInUse(oneTime: true))
        let pending = engine.location(accuracy: .room, timeout: nil, handler: recorder.oneShot)
        let subscription = engine.updates(handler: recorder.subscription)
        await engine.sync()
        engine.endSession()
        await engine.sync()
        #expect(statuses([pending]) == [.unauthorized(.lapsed)])
        #expect(recorder.results(pending).first?.location == nil)
        #expect(recorder.events(subscription).last == .ended(.unauthorized(.lapsed)))
        #expect(await engine.authorizationState == .notDetermined)
        #expect(user.engineChanges == [.notDetermined])
        #expect(!source.isRunning)
        let again = engine.location(accuracy: .city, timeout: nil, handler: recorder.oneShot)
        await engine.sync()
        #expect(user.prompts.count == 2)
        #expect(statuses([again]).isEmpty, "the cache was forgotten with the lapse")
    }

    @Test("endSession() leaves a lasting grant alone")
    func endSessionKeepsLastingGrant() async {
        let engine = makeEngine(User(.init(initial: .authorizedWhenInUse())))
        let id = engine.location(accuracy: .room, timeout: nil, handler: recorder.oneShot)
        engine.endSession()
        await engine.sync()
        source.emit(fix(3))
        await engine.sync()
        #expect(statuses([id]) == [.success])
    }

    @Test("location button from not determined: the first press asks to confirm, later presses grant at once")
    func locationButtonFromNotDetermined() async {
        let user = User(.init(locationButtonAnswers: [.init(true, after: .seconds(1))]))
        let engine = makeEngine(user, usage: .none)
        engine.locationButtonPressed()
        engine.locationButtonPressed()  // a second tap while the confirmation is up asks nothing more
        await engine.sync()
        #expect(user.prompts == [.locationButton])
        clock.advance(by: .seconds(1))
        await engine.sync()
        #expect(await engine.authorizationState == .authorizedWhenInUse(oneTime: true))
        let id = engine.location(accuracy: .city, timeout: nil, handler: recorder.oneShot)
        await engine.sync()
        source.emit(fix(40))
        await engine.sync()
        #expect(statuses([id]) == [.success])
        engine.endSession()
        await engine.sync()
        #expect(await engine.authorizationState == .notDetermined, "a button grant is one-time")
        engine.locationButtonPressed()
        await engine.sync()
        #expect(await engine.authorizationState == .authorizedWhenInUse(oneTime: true))
        #expect(user.prompts == [.locationButton], "confirmed once, granted at once afterwards")
        #expect(user.engineChanges == [.notDetermined, .authorizedWhenInUse(oneTime: true)])
    }

    @Test("location button declined: nothing changes, and the next press asks again")
    func locationButtonDeclined() async {
        let user = User(.init(locationButtonAnswers: [.init(false)]))
        let engine = makeEngine(user)
        engine.locationButtonPressed()
        await engine.sync()
        engine.locationButtonPressed()
        await engine.sync()
        #expect(await engine.authorizationState == .notDetermined)
        #expect(user.prompts == [.locationButton, .locationButton])
    }

    @Test("location button after a denial: the user may go back to not determined, and the next request asks")
    func locationButtonFromDenied() async {
        let user = User(.init(
            initial: .denied, authorizationAnswers: [.init(.allowWhileUsing())], locationButtonAnswers: [.init(true)]))
        let engine = makeEngine(user)
        let refused = engine.location(accuracy: .city, timeout: nil, handler: recorder.oneShot)
        engine.locationButtonPressed()
        await engine.sync()
        #expect(statuses([refused]) == [.unauthorized(.denied)])
        #expect(await engine.authorizationState == .notDetermined)
        let id = engine.location(accuracy: .city, timeout: nil, handler: recorder.oneShot)
        await engine.sync()
        #expect(user.prompts == [.locationButton, .authorization(.whenInUse)])
        source.emit(fix(40))
        await engine.sync()
        #expect(statuses([id]) == [.success])
    }

    @Test("location button when already authorized, restricted or disabled: a plain call, nothing asked or changed")
    func locationButtonNoOp() async {
        for state in [AuthorizationState.authorizedAlways, .restricted, AuthorizationState(status: .denied, servicesEnabled: false)] {
            let user = User(.init(initial: state, locationButtonAnswers: [.init(true)]))
            let engine = makeEngine(user)
            engine.locationButtonPressed()
            await engine.sync()
            #expect(await engine.authorizationState == state)
            #expect(user.prompts.isEmpty)
            #expect(user.engineChanges.isEmpty)
        }
        let engine = makeEngine(User(.init(initial: .authorizedAlways)))
        engine.locationButtonPressed()
        let id = engine.location(accuracy: .city, timeout: nil, handler: recorder.oneShot)
        await engine.sync()
        source.emit(fix(40))
        await engine.sync()
        #expect(statuses([id]) == [.success])
    }

    @Test("temporary full accuracy granted: asked once for many requests, they proceed precisely, and it reverts at endSession()")
    func temporaryFullAccuracyGranted() async {
        let user = User(.init(initial: .authorizedWhenInUse(accuracy: .reduced), fullAccuracyAnswers: [.init(true, after: .seconds(3))]))
        let engine = makeEngine(user)
        let ids = (0..<100).map { _ in
            engine.location(accuracy: .house, timeout: .seconds(60), purposeKey: "Navigation", handler: recorder.oneShot)
        }
        await engine.sync()
        #expect(user.prompts == [.temporaryFullAccuracy(purposeKey: "Navigation")])
        clock.advance(by: .seconds(3))
        await engine.sync()
        #expect(await engine.authorizationState.accuracy == .full)
        #expect(await engine.authorizationState.isFullAccuracyTemporary)
        source.emit(fix(4))
        await engine.sync()
        #expect(statuses(ids) == Array(repeating: .success, count: 100))
        #expect(recorder.results(ids[0]).first?.location == fix(4))
        engine.endSession()
        await engine.sync()
        #expect(await engine.authorizationState == .authorizedWhenInUse(accuracy: .reduced))
    }

    @Test("temporary full accuracy refused: the waiting requests end with the dedicated status and the best coarse fix")
    func temporaryFullAccuracyRefused() async {
        let user = User(.init(initial: .authorizedWhenInUse(accuracy: .reduced), fullAccuracyAnswers: [.init(false, after: .seconds(3))]))
        let engine = makeEngine(user)
        let city = engine.location(accuracy: .city, timeout: nil, handler: recorder.oneShot)
        await engine.sync()
        source.emit(fix(8))
        await engine.sync()
        let keyed = engine.location(accuracy: .house, timeout: .seconds(60), purposeKey: "Navigation", handler: recorder.oneShot)
        let plain = engine.location(accuracy: .house, timeout: .seconds(60), handler: recorder.oneShot)
        await engine.sync()
        #expect(statuses([plain]) == [.accuracyReduced], "no purpose key: the dedicated status at once")
        clock.advance(by: .seconds(3))
        await engine.sync()
        #expect(statuses([city, keyed]) == [.success, .accuracyReduced])
        let coarse = ReducedAccuracyPolicy().coarsen(fix(8))
        #expect(recorder.results(keyed).first?.location == coarse)
        #expect(recorder.results(city).first?.location == coarse)
        #expect(user.prompts == [.temporaryFullAccuracy(purposeKey: "Navigation")])
    }

    @Test("an undeclared purpose key ends the request with a configuration error")
    func undeclaredPurposeKey() async throws {
        let engine = makeEngine(User(.init(initial: .authorizedWhenInUse(accuracy: .reduced))))
        let result = try await engine.location(accuracy: .house, timeout: nil, purposeKey: "Typo")
        #expect(result.status == .misconfigured(.undeclaredPurposeKey("Typo")))
        do {
            for try await _ in engine.updates(SubscriptionOptions(accuracy: .room, purposeKey: "Typo")) {}
            Issue.record("the sequence should throw")
        } catch let error as SubscriptionEndedError {
            #expect(error.reason == .misconfigured(.undeclaredPurposeKey("Typo")))
        }
    }

    @Test("authorization changes are published as an async sequence and a callback")
    func changesObservable() async {
        let seen = NIOLockedValueBox<[AuthorizationState]>([])
        let user = User(.init(
            authorizationAnswers: [.init(.allowWhileUsing(precise: false), after: .seconds(1))],
            changes: [.init(.denied, after: .seconds(60))]))
        let engine = makeEngine(user) { state in seen.withLockedValue { $0.append(state) } }
        let updates = engine.authorizationUpdates()
        engine.location(accuracy: .city, timeout: nil) { _ in }
        await engine.sync()
        clock.advance(by: .seconds(1))
        await engine.sync()
        clock.advance(by: .seconds(59))
        await engine.sync()
        await engine.shutdown()
        await engine.sync()
        var observed: [AuthorizationState] = []
        for await state in updates { observed.append(state) }
        let expected: [AuthorizationState] = [.notDetermined, .authorizedWhenInUse(accuracy: .reduced), .denied]
        #expect(observed == expected)
        #expect(seen.withLockedValue { $0 } == Array(expected.dropFirst()))
    }

    @Test("a cancel made in onAuthorizationChange takes effect before the change's endings are handed out, as from any handler: even the first recipient hears nothing")
    func aCancelFromTheAuthorizationCallbackComesFirst() async {
        let user = User(.init(initial: .authorizedAlways, changes: [.init(.restricted, after: .seconds(30))]))
        let target = IDSlot()
        let engineSlot = NIOLockedValueBox<LocationEngine<ManualClock>?>(nil)
        let engine = makeEngine(user) { state in
            guard state == .restricted, let id = target.id else { return }
            engineSlot.withLockedValue { $0 }?.cancel(id)
        }
        engineSlot.withLockedValue { $0 = engine }
        let first = engine.location(accuracy: .room, timeout: nil, handler: recorder.oneShot)
        let second = engine.location(accuracy: .room, timeout: nil, handler: recorder.oneShot)
        let subscription = engine.updates(handler: recorder.subscription)
        target.set(first)
        await engine.sync()
        clock.advance(by: .seconds(30))
        await engine.sync()
        #expect(statuses([first]).isEmpty, "cancelled before the endings were handed out: its handler hears nothing")
        #expect(statuses([second]) == [.unauthorized(.restricted)])
        #expect(recorder.events(subscription) == [.ended(.unauthorized(.restricted))])
        await engine.shutdown()
    }

    @Test("revocation mid-flight: 10,000 pending requests and 1,000 subscriptions each end exactly once, as revoked")
    func revocationMidFlight() async {
        let user = User(.init(initial: .authorizedAlways, changes: [.init(.restricted, after: .seconds(30))]))
        let engine = makeEngine(user)
        let oneShots = (0..<10_000).map { index in
            engine.location(accuracy: .room, timeout: index % 2 == 0 ? nil : .seconds(3600), handler: recorder.oneShot)
        }
        let subscriptions = (0..<1_000).map { index in
            engine.updates(SubscriptionOptions(kind: index % 3 == 0 ? .passive : .standard), handler: recorder.subscription)
        }
        await engine.sync()
        source.emit(fix(50))
        await engine.sync()
        clock.advance(by: .seconds(30))
        await engine.sync()
        source.emit(fix(3))  // too late: nothing may be delivered after the revocation
        await engine.sync()
        #expect(statuses(oneShots) == Array(repeating: .unauthorized(.restricted), count: 10_000))
        #expect(oneShots.allSatisfy { recorder.results($0).first?.location == nil })
        for id in subscriptions {
            let events = recorder.events(id)
            #expect(events.filter { if case .ended = $0 { true } else { false } } == [.ended(.unauthorized(.restricted))])
            #expect(events.last == .ended(.unauthorized(.restricted)))
        }
        let statistics = await engine.statistics()
        #expect(statistics.pendingOneShots == 0 && statistics.activeSubscriptions == 0)
        #expect(!source.isRunning)
    }

    @Test("the static provider's configuration file: every key, defaults, and clear errors")
    func staticConfigurationFile() throws {
        let provider = try StaticAuthorizationProvider(configuration: """
            # operator's grant
            status = when-in-use
            services = enabled
            accuracy = reduced     # coarse only
            temporary-full-accuracy = grant
            location-button = confirm

            prompt-answer = allow-once
            """)
        #expect(provider.currentState() == .authorizedWhenInUse(accuracy: .reduced))
        #expect(provider.grantsTemporaryFullAccuracy && provider.confirmsLocationButton)
        #expect(provider.promptAnswer == .authorizedWhenInUse && provider.promptAnswerIsOneTime)
        #expect(try StaticAuthorizationProvider(configuration: "").currentState() == .authorizedAlways)
        for (text, line, fragment) in [
            ("status = maybe", 1, "must be one of"),
            ("\n\ncolour = blue", 3, "unknown key"),
            ("status = denied\nstatus = always", 2, "set twice"),
            ("just words", 1, "key = value"),
        ] {
            #expect {
                try StaticAuthorizationProvider(configuration: text)
            } throws: { error in
                guard let error = error as? AuthorizationConfigurationError else { return false }
                return error.line == line && error.message.contains(fragment)
            }
        }
        #expect(throws: AuthorizationConfigurationError.self) {
            try StaticAuthorizationProvider(contentsOfFile: "/nonexistent/authorization.conf")
        }
    }

    @Test("the static provider answers prompts as configured")
    func staticProviderAnswers() async {
        let provider = StaticAuthorizationProvider(.notDetermined, promptAnswer: .denied)
        let configured = LocationEngine(
            source: source, clock: clock,
            configuration: .init(authorizationProvider: provider, usage: Self.declared), logger: quietLogger)
        Task { try await configured.run() }
        let id = configured.location(accuracy: .city, timeout: nil, handler: recorder.oneShot)
        await configured.sync()
        #expect(statuses([id]) == [.unauthorized(.denied)])
    }
}

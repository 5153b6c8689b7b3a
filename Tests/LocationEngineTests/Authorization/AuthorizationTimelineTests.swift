import Testing
@testable import LocationEngine

/// The authorization half of the core's one timeline: prompts, answers, scheduled changes, sessions
/// and the location button, driven without an engine.
@Suite("Authorization timeline, in the scheduler")
struct AuthorizationTimelineTests {
    @Test("a scheduled change is the next wake-up and applies at its instant, after the deadlines due before it")
    func scheduledChangeOnTheTimeline() {
        var h = MachineHarness(picture: .authorizedWhenInUse())
        h.oneShot("early", .block, timeout: .seconds(2))
        h.oneShot("late", .block, timeout: .seconds(8))
        h.receive(.denied, after: .seconds(5))
        #expect(h.machine.nextWakeup == EngineInstant(.seconds(2)))
        h.advance(by: .seconds(3))
        #expect(h.onlyResult("early")?.status == .timedOut)
        #expect(h.machine.nextWakeup == EngineInstant(.seconds(5)))
        h.advance(by: .seconds(10))
        // The revocation at 5 s ended the late one before its own deadline.
        #expect(h.onlyResult("late")?.status == .unauthorized(.denied))
        #expect(h.pictures == [.denied])
        #expect(h.machine.nextWakeup == nil)
    }

    @Test("changes due at one instant apply in the order they were made")
    func sameInstantInArrivalOrder() {
        var h = MachineHarness(picture: .authorizedWhenInUse())
        h.receive(.authorizedWhenInUse(accuracy: .reduced), after: .seconds(1))
        h.receive(.denied, after: .seconds(1))
        h.receive(.authorizedAlways, after: .seconds(1))
        h.advance(by: .seconds(1))
        #expect(h.pictures == [.authorizedWhenInUse(accuracy: .reduced), .denied, .authorizedAlways])
    }

    @Test("the first request asks once with the declared level; the answer admits everyone waiting")
    func promptAndAnswer() {
        var h = MachineHarness(picture: .notDetermined)
        h.oneShot("a", .block)
        h.subscribe("s")
        #expect(h.prompts.map(\.kind) == ["authorization"])
        h.receive(.authorizedWhenInUse(), answering: h.prompts[0].token)
        #expect(h.machine.authorizationState == .authorizedWhenInUse())
        h.fix(50)
        #expect(h.onlyResult("a")?.status == .success)
        #expect(h.events["s"]?.count == 1)
    }

    @Test("a dismissed prompt ends the waiting requests as undecided; the next request asks again")
    func dismissal() {
        var h = MachineHarness(picture: .notDetermined)
        h.oneShot("a", .block)
        h.receive(.notDetermined, answering: h.prompts[0].token)
        #expect(h.onlyResult("a")?.status == .unauthorized(.undecided))
        h.oneShot("b", .block)
        #expect(h.prompts.map(\.kind) == ["authorization", "authorization"])
    }

    @Test("an answer to a prompt that a revocation closed is ignored and counted")
    func staleAnswerIgnored() {
        var h = MachineHarness(picture: .notDetermined)
        h.oneShot("a", .block)
        let token = h.prompts[0].token
        h.receive(.denied)
        h.receive(.authorizedAlways, answering: token)
        #expect(h.machine.authorizationState == .denied)
        #expect(h.machine.statistics(now: h.now).authorizationAnswersIgnored == 1)
        #expect(h.onlyResult("a")?.status == .unauthorized(.denied))
    }

    @Test("nothing declared: the request ends with a configuration error, reported once, nobody is asked")
    func nothingDeclared() {
        var h = MachineHarness(picture: .notDetermined, usage: UsageDeclarations.none)
        h.oneShot("a", .block)
        #expect(h.onlyResult("a")?.status == .misconfigured(.noUsageDeclared))
        #expect(h.prompts.isEmpty)
        #expect(h.configurationErrors == [.noUsageDeclared])
    }

    @Test("the end of a session lapses a one-time grant: pending requests end as lapsed, the provider is told")
    func sessionEnd() {
        var h = MachineHarness(picture: .authorizedWhenInUse(oneTime: true))
        h.oneShot("a", .block)
        h.endSession()
        #expect(h.onlyResult("a")?.status == .unauthorized(.lapsed))
        #expect(h.toldProvider == [.notDetermined])
        // The next request asks again.
        h.oneShot("b", .block)
        #expect(h.prompts.map(\.kind) == ["authorization"])
    }

    @Test("a session's end powers the source down at the event's settle step, carried out ahead of the endings and of telling the provider")
    func sessionEndPowersDownAtTheSettle() {
        var h = MachineHarness(picture: .authorizedWhenInUse(oneTime: true))
        h.oneShot("a", .block)
        #expect(h.machine.isSourceOn)
        let effects = h.machine.endSession(now: h.now).actions
        let told = effects.firstIndex { if case .tellProviderAuthorizationChanged = $0 { true } else { false } }
        let ended = effects.firstIndex { if case .completeOneShots = $0 { true } else { false } }
        let stops = effects.indices.filter { if case .stopSource = effects[$0] { true } else if case .idleSource = effects[$0] { true } else { false } }
        #expect(stops.count == 1, "the source is commanded once: \(effects)")
        if let told, let ended, let stop = stops.first {
            #expect(stop < ended && stop < told, "the event's source commands, from its settle step, go ahead of what else it decided: \(effects)")
        } else {
            Issue.record("the session's end did not end the request, tell the provider and stop the source: \(effects)")
        }
    }

    @Test("two losses of access falling due at one instant are one event: requests end once and the source is powered down once")
    func twoRevocationsAtOneInstant() {
        var h = MachineHarness(picture: .authorizedWhenInUse())
        h.oneShot("a", .block)
        h.subscribe("s", SubscriptionOptions())
        h.receive(.denied, after: .seconds(1))
        h.receive(.restricted, after: .seconds(1))
        let commandsBefore = h.sourceCommands.count
        h.advance(by: .seconds(1))
        #expect(h.onlyResult("a")?.status == .unauthorized(.denied))
        #expect(h.endings("s") == 1)
        #expect(h.sourceCommands.count == commandsBefore + 1, "one command powers the source down: \(h.sourceCommands)")
        #expect(!h.machine.isSourceOn)
    }

    @Test("location button: a confirmation from not determined grants one-time; later presses grant without asking")
    func locationButton() {
        var h = MachineHarness(picture: .notDetermined)
        h.pressLocationButton()
        h.pressLocationButton()  // the confirmation is already up: not asked twice
        #expect(h.prompts.map(\.kind) == ["location button"])
        let granted = AuthorizationState.notDetermined.afterLocationButtonConfirmation
        h.receive(granted, answering: h.prompts[0].token)
        #expect(h.machine.authorizationState == granted)
        h.endSession()
        #expect(h.machine.authorizationState.status == .notDetermined)
        h.pressLocationButton()
        #expect(h.prompts.count == 1)
        #expect(h.machine.authorizationState == granted)
        #expect(h.toldProvider == [.notDetermined, granted])
    }

    @Test("a request made while the location-button confirmation is up waits for it instead of prompting")
    func requestWaitsForTheButton() {
        var h = MachineHarness(picture: .notDetermined)
        h.pressLocationButton()
        h.oneShot("a", .block)
        #expect(h.prompts.map(\.kind) == ["location button"])
        // Declined: the authorization request that waited goes ahead.
        h.receive(.notDetermined, answering: h.prompts[0].token)
        #expect(h.prompts.map(\.kind) == ["location button", "authorization"])
    }

    @Test("restricted or services off: a press changes nothing and is counted")
    func buttonCannotChangeRestricted() {
        var h = MachineHarness(picture: .restricted)
        h.pressLocationButton()
        #expect(h.prompts.isEmpty)
        #expect(h.machine.statistics(now: h.now).locationButtonPressesIgnored == 1)
    }

    @Test("temporary full accuracy: granted admits the waiting request; the grant reverts at the end of the session")
    func temporaryFullAccuracy() {
        var h = MachineHarness(purposeKeys: ["Navigation"], picture: .authorizedWhenInUse(accuracy: .reduced))
        h.oneShot("nav", .house, purposeKey: "Navigation")
        #expect(h.prompts.map(\.kind) == ["full accuracy"])
        h.receive(.authorizedWhenInUse(accuracy: .full), answering: h.prompts[0].token)
        #expect(h.machine.authorizationState.isFullAccuracyTemporary)
        h.fix(5)
        #expect(h.onlyResult("nav")?.status == .success)
        h.endSession()
        #expect(h.machine.authorizationState.accuracy == .reduced)
    }

    @Test("shutdown closes the timeline: nothing scheduled wakes the owner, later answers change nothing")
    func shutdownClosesTheTimeline() {
        var h = MachineHarness(picture: .notDetermined)
        h.oneShot("a", .block)
        h.receive(.denied, after: .seconds(5))
        h.shutdown()
        #expect(h.machine.nextWakeup == nil)
        h.receive(.authorizedAlways, answering: h.prompts[0].token)
        #expect(h.machine.authorizationState == .notDetermined)
        #expect(h.onlyResult("a")?.status == .shutDown)
    }
}

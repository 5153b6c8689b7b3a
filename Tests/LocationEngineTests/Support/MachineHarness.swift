@testable import LocationEngine
import Testing

/// Drives a `SchedulerStateMachine` with string tags as handlers and records what it asks for, so
/// tests read as "events in, actions out".
struct MachineHarness {
    typealias Machine = SchedulerStateMachine<String, String, String>

    enum SourceCommand: Equatable {
        case start(PowerMode)
        case setMode(PowerMode)
        case stop
        case idle(ReceiverPowerProfile.IdleState)
    }

    var machine: Machine
    var now = EngineInstant.zero
    var nextID: UInt64 = 1
    var ids: [String: RequestID] = [:]
    /// Every one-shot result, by tag, in delivery order.
    var results: [String: [LocationResult]] = [:]
    /// Every subscription event, by tag.
    var events: [String: [SubscriptionEvent]] = [:]
    /// Every region transition, by tag.
    var transitions: [String: [GeofenceTransition]] = [:]
    /// The instant (``GeofenceEvent/at``) of each transition in ``transitions``.
    var transitionInstants: [String: [EngineInstant]] = [:]
    /// Tags whose cancellation the machine confirmed.
    var cancelled: [String] = []
    /// One-shot results and subscription endings handed out so far, counted as they are handed out
    /// (the check after every drain stays O(1), however many requests a test makes).
    private var oneShotResultsHandedOut = 0
    private var subscriptionEndingsHandedOut = 0
    /// The first source's commands, in order.
    var sourceCommands: [SourceCommand] = []
    /// Every source's commands, in order, with the source.
    var allSourceCommands: [(source: Int, command: SourceCommand)] = []
    /// Every step down the restart-aware rule took.
    var powerDowns: [PowerDownDecider.Step] = []
    var authorizationRequests = 0
    /// Purpose keys of the temporary-full-accuracy requests the machine asked for.
    var fullAccuracyRequests: [String] = []
    /// Tags in the order their one-shot results came.
    var completionOrder: [String] = []
    /// The subscriptions' tags in the order they were handed events, every event counted.
    var notificationOrder: [String] = []
    /// Prompts the machine opened, in order: what it asked and the token its answer must name.
    var prompts: [(kind: String, token: UInt64)] = []
    /// Every picture the machine moved to.
    var pictures: [AuthorizationState] = []
    /// Pictures the machine changed by itself and told the provider about.
    var toldProvider: [AuthorizationState] = []
    /// Configuration errors the machine reported.
    var configurationErrors: [ConfigurationError] = []
    /// Every fix the machine processed: whether it was accepted.
    var fixesProcessed: [Bool] = []
    /// The earliest deadline of each expiry pass that timed one-shots out.
    var expiryPasses: [EngineInstant] = []
    /// What was handed out, in order: "tag: dwelled" for a region's transition, "tag: ended" for a
    /// subscription's ending, "authorization" for a change of the picture.
    var handedOut: [String] = []
    /// A handler's script: after a recipient tagged so receives something, withdraw these requests (by
    /// tag) and let this much time pass, before the next recipient is taken.
    var whileDelivering: ((String) -> (withdrawals: [(String, Withdrawal)], advanceBy: Duration)?)?

    init(
        linger: Duration = .zero, providesCourse: Bool = true, authorization: AuthorizationGate = .authorized,
        accuracy: AccuracyAuthorization = .full, reducedAccuracy: ReducedAccuracyPolicy = ReducedAccuracyPolicy(),
        purposeKeys: Set<String> = [], picture: AuthorizationState? = nil, usage: UsageDeclarations? = nil,
        powerProfile: ReceiverPowerProfile? = nil, powerDown: PowerDownRule = .restartAware,
        sources: [SourceCapabilities]? = nil, fallbackAfter: Duration = .seconds(30)
    ) {
        var configuration = Machine.Configuration(
            linger: linger,
            sourceCapabilities: SourceCapabilities(providesCourse: providesCourse, powerProfile: powerProfile),
            authorization: picture ?? Self.picture(authorization, accuracy),
            usage: usage ?? UsageDeclarations(
                whenInUse: "tests", temporaryFullAccuracyPurposes: Dictionary(uniqueKeysWithValues: purposeKeys.map { ($0, "tests") })),
            reducedAccuracy: reducedAccuracy)
        configuration.powerDown = powerDown
        if let sources {
            configuration.sourceCapabilities = sources[0]
            configuration.otherSources = Array(sources.dropFirst())
        }
        configuration.fallbackAfter = fallbackAfter
        machine = Machine(configuration: configuration)
    }

    /// An authorization picture with this gate and accuracy.
    static func picture(_ gate: AuthorizationGate, _ accuracy: AccuracyAuthorization) -> AuthorizationState {
        switch gate {
        case .authorized: AuthorizationState(status: .authorizedWhenInUse, accuracy: accuracy)
        case .notDetermined: AuthorizationState(status: .notDetermined, accuracy: accuracy)
        case .unauthorized(.restricted): AuthorizationState(status: .restricted, accuracy: accuracy)
        case .unauthorized(.servicesDisabled): AuthorizationState(status: .authorizedWhenInUse, servicesEnabled: false, accuracy: accuracy)
        case .unauthorized: AuthorizationState(status: .denied, accuracy: accuracy)
        }
    }

    mutating func newID(_ tag: String) -> RequestID {
        let id = RequestID(rawValue: nextID)
        nextID += 1
        ids[tag] = id
        return id
    }

    @discardableResult
    mutating func oneShot(
        _ tag: String, _ accuracy: LocationAccuracy, timeout: Duration? = nil, delayUntilAuthorized: Bool = false, purposeKey: String? = nil
    ) -> RequestID {
        let id = newID(tag)
        carryOut(machine.submitOneShot(
            id, accuracy: accuracy, timeout: timeout, delayUntilAuthorized: delayUntilAuthorized, purposeKey: purposeKey, madeAt: nil, handler: tag,
            now: now))
        return id
    }

    @discardableResult
    mutating func subscribe(_ tag: String, _ options: SubscriptionOptions = SubscriptionOptions()) -> RequestID {
        let id = newID(tag)
        carryOut(machine.subscribe(id, options: options, madeAt: nil, handler: tag, now: now))
        return id
    }

    mutating func fix(_ metres: Double, latitude: Double = 48.0, longitude: Double = 11.0, course: Double? = nil, age: Duration = .zero) {
        fix(Location(latitude: latitude, longitude: longitude, horizontalAccuracy: metres, course: course), age: age)
    }

    mutating func fix(_ location: Location, age: Duration = .zero, source: Int = 0) {
        carryOut(machine.receiveFix(location, age: age, now: now, source: SourceID(source)))
    }

    mutating func advance(by duration: Duration) {
        now = now + duration
        carryOut(machine.advanceTime(now: now))
    }

    mutating func cancel(_ tag: String) {
        carryOut(machine.withdraw(ids[tag]!, .cancel, now: now))
    }

    mutating func forceComplete(_ tag: String) {
        carryOut(machine.withdraw(ids[tag]!, .forceComplete, now: now))
    }

    mutating func transientError(_ code: String = "test.transient", source: Int = 0) {
        carryOut(machine.receiveTransientError(SourceError(code: code, message: "scripted"), now: now, source: SourceID(source)))
    }

    mutating func fatalError(_ code: String = "test.fatal", source: Int = 0) {
        carryOut(machine.receiveFatalError(SourceError(code: code, message: "scripted"), now: now, source: SourceID(source)))
    }

    /// Moves the picture to one with this gate (keeping its accuracy), as a provider's change.
    mutating func authorize(_ gate: AuthorizationGate) {
        receive(Self.picture(gate, machine.authorizationState.accuracy))
    }

    /// Moves the picture to this accuracy (keeping its status), as a provider's change.
    mutating func setAccuracy(_ accuracy: AccuracyAuthorization) {
        var picture = machine.authorizationState
        picture.accuracy = accuracy
        receive(picture)
    }

    /// Answers the open temporary-full-accuracy prompt with a refusal: the picture as it is, reduced.
    mutating func refuseFullAccuracy() {
        guard let prompt = prompts.last(where: { $0.kind == "full accuracy" }) else {
            Issue.record("no temporary-full-accuracy prompt to refuse")
            return
        }
        receive(machine.authorizationState, answering: prompt.token)
    }

    /// Answers the open authorization prompt without a decision (the user dismissed it).
    mutating func dismissAuthorizationPrompt() {
        guard let prompt = prompts.last(where: { $0.kind == "authorization" }) else {
            Issue.record("no authorization prompt to dismiss")
            return
        }
        receive(machine.authorizationState, answering: prompt.token)
    }

    /// A provider's change (no `prompt`) or answer, effective `delay` from now.
    mutating func receive(_ state: AuthorizationState, after delay: Duration = .zero, answering prompt: UInt64? = nil) {
        carryOut(machine.receiveAuthorization(state, due: now + delay, answering: prompt, now: now))
    }

    mutating func endSession() {
        carryOut(machine.endSession(now: now))
    }

    mutating func pressLocationButton() {
        carryOut(machine.pressLocationButton(now: now))
    }

    mutating func shutdown() {
        carryOut(machine.shutdown(now: now))
    }

    private mutating func record(_ command: SourceCommand, _ source: SourceID) {
        if source == .first { sourceCommands.append(command) }
        allSourceCommands.append((source.index, command))
    }

    /// Carries out what an event decided, as an owner does, recording what it was asked to do. After
    /// each recipient, `whileDelivering` may withdraw requests (as a handler would) or let time pass;
    /// what that decides mid-delivery is carried out first, and the delivery then resumes.
    mutating func carryOut(_ effects: Machine.Effects) {
        var walk = EffectsWalk(effects)
        while let action = walk.nextAction() {
            switch action {
            case .completeOneShots(let recipients, let result):
                walk.deliver(
                    action, to: recipients, overtaken: { machine.hasOvertaken ? machine.reached(oneShot: $0, receiving: result) : nil },
                    hand: { recipient in
                        let tag = recipient.handler
                        precondition(ids[tag] == recipient.id, "recipient ID does not match its tag")
                        results[tag, default: []].append(result)
                        oneShotResultsHandedOut += 1
                        completionOrder.append(tag)
                        return handlerScript(after: tag)
                    })
            case .cancelOneShot(let recipient), .cancelSubscription(let recipient), .cancelMonitor(let recipient):
                precondition(ids[recipient.handler] == recipient.id, "recipient ID does not match its tag")
                cancelled.append(recipient.handler)
            case .notifySubscriptions(let recipients, let event):
                walk.deliver(
                    action, to: recipients, overtaken: { machine.hasOvertaken ? machine.reached(subscriber: $0, receiving: event) : nil },
                    hand: { recipient in
                        precondition(ids[recipient.handler] == recipient.id, "recipient ID does not match its tag")
                        events[recipient.handler, default: []].append(event)
                        notificationOrder.append(recipient.handler)
                        if case .ended = event {
                            subscriptionEndingsHandedOut += 1
                            handedOut.append("\(recipient.handler): ended")
                        }
                        return handlerScript(after: recipient.handler)
                    })
            case .notifyMonitors(let recipients, let event):
                walk.deliver(
                    action, to: recipients, overtaken: { machine.hasOvertaken ? machine.reached(monitor: $0, receiving: event) : nil },
                    hand: { recipient in
                        precondition(ids[recipient.handler] == recipient.id, "recipient ID does not match its tag")
                        // Recorded with the subscriptions' events: a monitor hears source errors and its end as they do.
                        switch event {
                        case .ended(let end):
                            events[recipient.handler, default: []].append(.ended(end))
                            subscriptionEndingsHandedOut += 1
                            handedOut.append("\(recipient.handler): ended")
                        case .sourceError(let error): events[recipient.handler, default: []].append(.sourceError(error))
                        case .transition: preconditionFailure("a transition comes as notifyRegion")
                        }
                        return handlerScript(after: recipient.handler)
                    })
            case .notifyRegion(let event, let recipient):
                walk.deliver(
                    action, to: CollectionOfOne(recipient),
                    overtaken: { machine.hasOvertaken ? machine.reached(monitor: $0, receiving: .transition(event)) : nil },
                    hand: { recipient in
                        precondition(ids[recipient.handler] == recipient.id && event.id == recipient.id, "recipient ID does not match its tag")
                        transitions[recipient.handler, default: []].append(event.transition)
                        transitionInstants[recipient.handler, default: []].append(event.at)
                        handedOut.append("\(recipient.handler): \(event.transition)")
                        return handlerScript(after: recipient.handler)
                    })
            case .startSource(let source, let mode): record(.start(mode), source)
            case .setSourceMode(let source, let mode): record(.setMode(mode), source)
            case .stopSource(let source): record(.stop, source)
            case .idleSource(let source, let step):
                record(.idle(step.state), source)
                if source == .first { powerDowns.append(step) }
            case .fixProcessed(let accepted): fixesProcessed.append(accepted)
            case .timeoutsExpired(let earliest): expiryPasses.append(earliest)
            case .requestAuthorization(_, let token):
                authorizationRequests += 1
                prompts.append(("authorization", token))
            case .requestTemporaryFullAccuracy(let prompt, let token):
                fullAccuracyRequests.append(prompt.purposeKey)
                prompts.append(("full accuracy", token))
            case .confirmLocationButton(_, let token): prompts.append(("location button", token))
            case .authorizationChanged(_, let state):
                pictures.append(state)
                handedOut.append("authorization")
            case .tellProviderAuthorizationChanged(let state): toldProvider.append(state)
            case .reportConfigurationError(let error): configurationErrors.append(error)
            }
        }
        checkCountersAgreeWithDeliveries()
    }

    /// The machine's outcome counters must say exactly what the owner was handed: one count per
    /// one-shot result, per subscription ending and per cancellation, never two.
    private func checkCountersAgreeWithDeliveries() {
        let counters = machine.statistics(now: now)
        let counted = counters.oneShotsSucceeded + counters.oneShotsTimedOut + counters.oneShotsForceCompleted
            + counters.oneShotsFailed
        #expect(counted == oneShotResultsHandedOut, "one-shot outcome counters \(counted) vs results handed out \(oneShotResultsHandedOut)")
        #expect(counters.subscriptionsEnded == subscriptionEndingsHandedOut,
                "subscriptions ended \(counters.subscriptionsEnded) vs endings handed out \(subscriptionEndingsHandedOut)")
        #expect(counters.oneShotsCancelled + counters.subscriptionsCancelled == cancelled.count,
                "cancellations counted vs handed out")
    }

    /// What a handler does after `tag` received something: the scripted withdrawals and passing of time,
    /// decided mid-delivery. Returns their effects, to be carried out first, or `nil` if none.
    private mutating func handlerScript(after tag: String) -> Machine.Effects? {
        guard let step = whileDelivering?(tag) else { return nil }
        var effects = Machine.Effects()
        for (target, withdrawal) in step.withdrawals {
            effects.append(contentsOf: machine.withdraw(ids[target]!, withdrawal, now: now, at: .midDelivery))
        }
        if step.advanceBy > .zero {
            now = now + step.advanceBy
            effects.append(contentsOf: machine.advanceTime(now: now, at: .midDelivery))
        }
        return effects.isEmpty ? nil : effects
    }

    /// The single result of a one-shot; fails the test when there is not exactly one.
    func onlyResult(_ tag: String) -> LocationResult? {
        guard let list = results[tag], list.count == 1 else { return nil }
        return list[0]
    }

    /// The locations a subscription received, as horizontal accuracies.
    func deliveredAccuracies(_ tag: String) -> [Double] {
        (events[tag] ?? []).compactMap {
            if case .location(let update) = $0 { return update.location.horizontalAccuracy }
            return nil
        }
    }

    /// The end events a subscription received.
    func ends(_ tag: String) -> [SubscriptionEnd] {
        (events[tag] ?? []).compactMap {
            if case .ended(let end) = $0 { return end }
            return nil
        }
    }

    var sourceMode: PowerMode? { machine.statistics(now: now).sourceMode }
}

@testable import LocationEngine

/// Drives a `SchedulerStateMachine` with string tags as handlers and records what it asks for, so
/// tests read as "events in, actions out".
struct Harness {
    typealias Machine = SchedulerStateMachine<String, String>

    enum SourceCommand: Equatable {
        case start(PowerMode)
        case setMode(PowerMode)
        case stop
    }

    var machine: Machine
    var now = EngineInstant.zero
    var nextID: UInt64 = 1
    var ids: [String: RequestID] = [:]
    /// Every one-shot result, by tag, in delivery order.
    var results: [String: [LocationResult]] = [:]
    /// Every subscription event, by tag.
    var events: [String: [SubscriptionEvent]] = [:]
    /// Tags whose cancellation the machine confirmed.
    var cancelled: [String] = []
    var sourceCommands: [SourceCommand] = []
    var authorizationRequests = 0
    /// Purpose keys of the temporary-full-accuracy requests the machine asked for.
    var fullAccuracyRequests: [String] = []
    /// Tags in the order their one-shot results came.
    var completionOrder: [String] = []
    /// Prompts the machine opened, in order: what it asked and the token its answer must name.
    var prompts: [(kind: String, token: UInt64)] = []
    /// Every picture the machine moved to.
    var pictures: [AuthorizationState] = []
    /// Pictures the machine changed by itself and told the provider about.
    var toldProvider: [AuthorizationState] = []
    /// Configuration errors the machine reported.
    var configurationErrors: [ConfigurationError] = []

    init(
        linger: Duration = .zero, providesCourse: Bool = true, authorization: AuthorizationGate = .authorized,
        accuracy: AccuracyAuthorization = .full, reducedAccuracy: ReducedAccuracyPolicy = ReducedAccuracyPolicy(),
        purposeKeys: Set<String> = [], picture: AuthorizationState? = nil, usage: UsageDeclarations? = nil,
        completionPiece: Int = .max
    ) {
        var configuration = Machine.Configuration(
            linger: linger,
            sourceCapabilities: SourceCapabilities(providesCourse: providesCourse),
            authorization: picture ?? Self.picture(authorization, accuracy),
            usage: usage ?? UsageDeclarations(
                whenInUse: "tests", temporaryFullAccuracyPurposes: Dictionary(uniqueKeysWithValues: purposeKeys.map { ($0, "tests") })),
            reducedAccuracy: reducedAccuracy)
        configuration.completionPiece = completionPiece
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
        var actions: [Machine.Action] = []
        machine.submitOneShot(
            id, accuracy: accuracy, timeout: timeout, delayUntilAuthorized: delayUntilAuthorized, purposeKey: purposeKey, madeAt: nil, handler: tag,
            now: now,
            into: &actions)
        record(actions)
        return id
    }

    @discardableResult
    mutating func subscribe(_ tag: String, _ options: SubscriptionOptions = SubscriptionOptions()) -> RequestID {
        let id = newID(tag)
        var actions: [Machine.Action] = []
        machine.subscribe(id, options: options, handler: tag, now: now, into: &actions)
        record(actions)
        return id
    }

    mutating func fix(_ metres: Double, latitude: Double = 48.0, longitude: Double = 11.0, course: Double? = nil, age: Duration = .zero) {
        fix(Location(latitude: latitude, longitude: longitude, horizontalAccuracy: metres, course: course), age: age)
    }

    mutating func fix(_ location: Location, age: Duration = .zero) {
        var actions: [Machine.Action] = []
        machine.receiveFix(location, age: age, now: now, into: &actions)
        record(actions)
    }

    mutating func advance(by duration: Duration) {
        now = now + duration
        var actions: [Machine.Action] = []
        machine.advanceTime(now: now, into: &actions)
        record(actions)
    }

    /// Moves time on by `duration` and completes the next piece of the fix being completed.
    mutating func continueFix(advancingBy duration: Duration = .zero) {
        now = now + duration
        var actions: [Machine.Action] = []
        machine.continueFixCompletion(now: now, into: &actions)
        record(actions)
    }

    mutating func cancel(_ tag: String) {
        var actions: [Machine.Action] = []
        machine.cancel(ids[tag]!, now: now, into: &actions)
        record(actions)
    }

    mutating func forceComplete(_ tag: String) {
        var actions: [Machine.Action] = []
        machine.forceComplete(ids[tag]!, now: now, into: &actions)
        record(actions)
    }

    mutating func transientError(_ code: String = "test.transient") {
        var actions: [Machine.Action] = []
        machine.receiveTransientError(SourceError(code: code, message: "scripted"), now: now, into: &actions)
        record(actions)
    }

    mutating func fatalError(_ code: String = "test.fatal") {
        var actions: [Machine.Action] = []
        machine.receiveFatalError(SourceError(code: code, message: "scripted"), now: now, into: &actions)
        record(actions)
    }

    mutating func authorize(_ gate: AuthorizationGate) {
        var actions: [Machine.Action] = []
        machine.setAuthorization(gate, now: now, into: &actions)
        record(actions)
    }

    mutating func setAccuracy(_ accuracy: AccuracyAuthorization) {
        var actions: [Machine.Action] = []
        machine.setAccuracyAuthorization(accuracy, now: now, into: &actions)
        record(actions)
    }

    mutating func refuseFullAccuracy() {
        var actions: [Machine.Action] = []
        machine.refuseTemporaryFullAccuracy(now: now, into: &actions)
        record(actions)
    }

    mutating func endAwaitingAuthorization(_ status: LocationStatus, _ end: SubscriptionEnd) {
        var actions: [Machine.Action] = []
        machine.endAwaitingAuthorization(oneShotStatus: status, subscriptionEnd: end, now: now, into: &actions)
        record(actions)
    }

    /// A provider's change (no `prompt`) or answer, effective `delay` from now.
    mutating func receive(_ state: AuthorizationState, after delay: Duration = .zero, answering prompt: UInt64? = nil) {
        var actions: [Machine.Action] = []
        machine.receiveAuthorization(state, due: now + delay, answering: prompt, now: now, into: &actions)
        record(actions)
    }

    mutating func endSession() {
        var actions: [Machine.Action] = []
        machine.endSession(now: now, into: &actions)
        record(actions)
    }

    mutating func pressLocationButton() {
        var actions: [Machine.Action] = []
        machine.pressLocationButton(now: now, into: &actions)
        record(actions)
    }

    mutating func shutdown() {
        var actions: [Machine.Action] = []
        machine.shutdown(now: now, into: &actions)
        record(actions)
    }

    mutating func record(_ actions: [Machine.Action]) {
        for action in actions {
            switch action {
            case .completeOneShots(let recipients, let result):
                for recipient in recipients {
                    let tag = recipient.handler
                    precondition(ids[tag] == recipient.id, "recipient ID does not match its tag")
                    results[tag, default: []].append(result)
                    completionOrder.append(tag)
                }
            case .cancelOneShot(let tag), .cancelSubscription(let tag):
                cancelled.append(tag)
            case .notifySubscriptions(let recipients, let event):
                for recipient in recipients {
                    precondition(ids[recipient.handler] == recipient.id, "recipient ID does not match its tag")
                    events[recipient.handler, default: []].append(event)
                }
            case .startSource(let mode): sourceCommands.append(.start(mode))
            case .setSourceMode(let mode): sourceCommands.append(.setMode(mode))
            case .stopSource: sourceCommands.append(.stop)
            case .requestAuthorization(_, let token):
                authorizationRequests += 1
                prompts.append(("authorization", token))
            case .requestTemporaryFullAccuracy(let prompt, let token):
                fullAccuracyRequests.append(prompt.purposeKey)
                prompts.append(("full accuracy", token))
            case .confirmLocationButton(_, let token): prompts.append(("location button", token))
            case .authorizationChanged(_, let state): pictures.append(state)
            case .tellProviderAuthorizationChanged(let state): toldProvider.append(state)
            case .reportConfigurationError(let error): configurationErrors.append(error)
            }
        }
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

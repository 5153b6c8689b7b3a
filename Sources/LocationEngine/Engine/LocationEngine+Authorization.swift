/// Which of the engine's prompts a provider's reply answers.
enum PromptKind: Sendable, Hashable {
    case authorization
    case temporaryFullAccuracy
    case locationButton
}

/// An authorization change waiting for its time on the engine's clock. Ordered by (due, sequence),
/// so that changes due at the same instant apply in the order they were made (swift-nio's timer order).
struct ScheduledAuthorizationChange: Comparable, Sendable {
    var due: EngineInstant
    var sequence: UInt64
    var state: AuthorizationState
    var prompt: UInt64?

    static func < (lhs: Self, rhs: Self) -> Bool { (lhs.due, lhs.sequence) < (rhs.due, rhs.sequence) }
    static func == (lhs: Self, rhs: Self) -> Bool { lhs.due == rhs.due && lhs.sequence == rhs.sequence }
}

extension LocationEngine {
    // MARK: Public API

    /// The authorization picture the engine works under now.
    public var authorizationState: AuthorizationState { currentAuthorization }

    /// Every change of the authorization picture, starting with the current one (MapLibre's
    /// `didChangeLocationManagerAuthorization`). Keeps the newest 32 for a slow consumer; finishes at
    /// shutdown. Stopping the iteration unregisters it.
    public nonisolated func authorizationUpdates() -> AsyncStream<AuthorizationState> {
        let (stream, continuation) = AsyncStream.makeStream(of: AuthorizationState.self, bufferingPolicy: .bufferingNewest(32))
        let id = observerIDs.withLockedValue { next in
            next += 1
            return next
        }
        submit(.observeAuthorization(id, continuation))
        continuation.onTermination = { [weak self] _ in self?.submit(.stopObservingAuthorization(id)) }
        return stream
    }

    /// Reports a new authorization picture (for hosting code that observes the platform itself rather
    /// than through an ``AuthorizationProvider``). Pending requests react as SEMANTICS §6 says.
    public nonisolated func updateAuthorization(_ state: AuthorizationState) {
        submitAuthorization(state, after: .zero, prompt: nil)
    }

    /// The application's session of use ended (it went to the background, the user logged out): a
    /// one-time grant lapses back to not determined — pending requests end with
    /// ``AuthorizationFailure/lapsed`` and the next request asks again — and temporary full accuracy
    /// reverts to reduced. A refusal of temporary full accuracy no longer stands.
    public nonisolated func endSession() {
        submit(.endSession)
    }

    /// The user pressed a location button (a user gesture, like `CLLocationButton`):
    /// - not determined: the first time, the provider asks the user to confirm and a confirmation
    ///   grants one-time authorization with full accuracy; after a confirmation, later presses grant at
    ///   once without asking;
    /// - denied: the provider asks whether to go back to not determined (so the next request may ask);
    /// - already authorized: nothing changes (requests proceed as usual);
    /// - restricted or services disabled: nothing can change (logged).
    public nonisolated func locationButtonPressed() {
        submit(.locationButton)
    }

    // MARK: Submission (any thread)

    nonisolated func submitAuthorization(_ state: AuthorizationState, after delay: Duration, prompt: UInt64?) {
        submit(.authorization(state, due: now() + max(.zero, delay), prompt: prompt))
    }

    // MARK: Processing (isolated)

    func scheduleAuthorizationChange(_ state: AuthorizationState, due: EngineInstant, prompt: UInt64?) {
        authorizationChangeSequence &+= 1
        scheduledAuthorizationChanges.insert(
            ScheduledAuthorizationChange(due: due, sequence: authorizationChangeSequence, state: state, prompt: prompt))
    }

    /// Applies every scheduled change due by `now`, in order, each at its own instant after the
    /// deadlines due before it.
    func applyDueAuthorizationChanges(upTo now: EngineInstant) {
        while let next = scheduledAuthorizationChanges.min, next.due <= now {
            _ = scheduledAuthorizationChanges.removeMin()
            // What was due before the change is delivered under the picture it happened in.
            machine.advanceTime(now: next.due, into: &actions)
            if !actions.isEmpty { performActions() }
            applyAuthorization(next.state, prompt: next.prompt, now: next.due)
            if !actions.isEmpty { performActions() }
        }
    }

    /// A provider's change or answer takes effect.
    func applyAuthorization(_ state: AuthorizationState, prompt: UInt64?, now: EngineInstant) {
        var kind: PromptKind?
        if let prompt {
            kind = openPrompts.removeValue(forKey: prompt)
            if kind == nil {
                logger.notice("ignoring a second answer to an authorization prompt")
                return
            }
        }
        let previous = currentAuthorization
        setAuthorization(state, now: now)
        switch kind {
        case .authorization?:
            if state.gate == .notDetermined {
                logger.notice("authorization prompt dismissed; waiting requests end")
                machine.endAwaitingAuthorization(
                    oneShotStatus: .unauthorized(.undecided), subscriptionEnd: .unauthorized(.undecided), now: now, into: &actions)
            }
        case .temporaryFullAccuracy?:
            if state.accuracy == .reduced { machine.refuseTemporaryFullAccuracy(now: now, into: &actions) }
        case .locationButton?:
            if state != previous { locationButtonConfirmed = true }
        case nil:
            break
        }
    }

    /// Moves the engine to `state`: the scheduler first learns what lets requests proceed, last what
    /// stops them (so that a revocation ends requests as revoked, not as merely reduced), then observers hear.
    func setAuthorization(_ state: AuthorizationState, now: EngineInstant) {
        guard state != currentAuthorization else { return }
        currentAuthorization = state
        logger.info("authorization changed", metadata: ["authorization": "\(state)"])
        if state.gate == .authorized {
            machine.setAccuracyAuthorization(state.accuracy, now: now, into: &actions)
            machine.setAuthorization(state.gate, now: now, into: &actions)
        } else {
            machine.setAuthorization(state.gate, now: now, into: &actions)
            machine.setAccuracyAuthorization(state.accuracy, now: now, into: &actions)
        }
        for observer in authorizationObservers.values { observer.yield(state) }
        configuration.onAuthorizationChange?(state)
    }

    func endSessionNow(now: EngineInstant) {
        machine.beginNewSession()
        var next = currentAuthorization
        if next.isOneTime && next.isAuthorized {
            next = AuthorizationState(status: .notDetermined, servicesEnabled: next.servicesEnabled)
        } else if next.isFullAccuracyTemporary {
            next.accuracy = .reduced
            next.isFullAccuracyTemporary = false
        }
        guard next != currentAuthorization else { return }
        logger.info("session ended: one-time grants lapse")
        setAuthorization(next, now: now)
        authorizationProvider.engineDidChange(next)
    }

    func locationButtonPressedNow(now: EngineInstant) {
        let state = currentAuthorization
        guard state.servicesEnabled, state.status != .restricted else {
            logger.notice("location button pressed, but access is \(state.gate): nothing can change")
            return
        }
        switch state.status {
        case .authorizedWhenInUse, .authorizedAlways, .restricted:
            return
        case .notDetermined where locationButtonConfirmed:
            let granted = state.afterLocationButtonConfirmation
            setAuthorization(granted, now: now)
            authorizationProvider.engineDidChange(granted)
        case .notDetermined, .denied:
            guard !openPrompts.values.contains(.locationButton) else { return }
            authorizationProvider.confirmLocationButton(current: state, reply: makeReply(.locationButton))
        }
    }

    /// The scheduler needs authorization: ask the provider for the declared level, or end the waiting
    /// requests with a configuration error when nothing is declared (never a silent hang).
    func askForAuthorization() {
        guard let level = configuration.usage.level(preferring: configuration.preferredAuthorization) else {
            logger.error("\(ConfigurationError.noUsageDeclared)")
            machine.endAwaitingAuthorization(
                oneShotStatus: .misconfigured(.noUsageDeclared), subscriptionEnd: .misconfigured(.noUsageDeclared), now: now(),
                into: &actions)
            return
        }
        logger.debug("asking for authorization", metadata: ["level": "\(level)"])
        let prompt = AuthorizationPrompt(
            level: level, usageDescription: configuration.usage.usageDescription(for: level), current: currentAuthorization)
        authorizationProvider.requestAuthorization(prompt, reply: makeReply(.authorization))
    }

    func askForTemporaryFullAccuracy(_ purposeKey: String) {
        logger.debug("asking for temporary full accuracy", metadata: ["purpose": "\(purposeKey)"])
        let prompt = FullAccuracyPrompt(
            purposeKey: purposeKey, purpose: configuration.usage.temporaryFullAccuracyPurposes[purposeKey] ?? "",
            current: currentAuthorization)
        authorizationProvider.requestTemporaryFullAccuracy(prompt, reply: makeReply(.temporaryFullAccuracy))
    }

    func makeReply(_ kind: PromptKind) -> AuthorizationReply {
        nextPromptToken &+= 1
        let token = nextPromptToken
        openPrompts[token] = kind
        return AuthorizationReply { [weak self] state, delay in
            self?.submitAuthorization(state, after: delay, prompt: token)
        }
    }
}

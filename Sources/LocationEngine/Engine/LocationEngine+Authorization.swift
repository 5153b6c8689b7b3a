import NIOConcurrencyHelpers

/// Which of the engine's prompts a provider's reply answers.
enum PromptKind: Sendable, Hashable {
    case authorization
    case temporaryFullAccuracy
    /// A location-button confirmation, asked while the status was this.
    case locationButton(from: AuthorizationState.Status)

    var isLocationButton: Bool {
        if case .locationButton = self { return true }
        return false
    }
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

    /// The authorization picture the engine works under, as of what it has processed (``sync()``
    /// first to include changes already due). Reading it changes nothing.
    public var authorizationState: AuthorizationState {
        currentAuthorization
    }

    /// Every change of the authorization picture, starting with the current one (MapLibre's
    /// `didChangeLocationManagerAuthorization`). Keeps the newest 32 for a slow consumer; finishes at
    /// shutdown. Stopping the iteration unregisters it.
    public nonisolated func authorizationUpdates() -> AsyncStream<AuthorizationState> {
        let (stream, continuation) = AsyncStream.makeStream(of: AuthorizationState.self, bufferingPolicy: .bufferingNewest(32))
        let id = submit { .observeAuthorization($0, continuation) }
        continuation.onTermination = { [weak self] _ in self?.submit(.stopObservingAuthorization(id)) }
        return stream
    }

    /// Reports a new authorization picture (for hosting code that observes the platform itself rather
    /// than through an ``AuthorizationProvider``). Pending requests react as <doc:AuthorizationAndPrivacy> describes.
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

    /// Takes a change or answer into the timeline: it applies in (due, arrival) order with the others,
    /// now if it is due.
    func receiveAuthorization(_ state: AuthorizationState, due: EngineInstant, prompt: UInt64?, now: EngineInstant) {
        guard !machine.isShutDown else { return }
        scheduleAuthorizationChange(state, due: due, prompt: prompt)
        applyDueAuthorizationChanges(upTo: now)
    }

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
    ///
    /// A change the provider observed replaces the picture. An answer changes only what its prompt was
    /// about, and only while that prompt is still open: every change of access (a revocation, the end
    /// of a session, a location-button grant) closes the open prompts, and a change of accuracy the
    /// temporary-full-accuracy ones, so a late
    /// answer can never restore access, undo a grant, or carry over into a later grant period.
    /// Providers report what the user decides afterwards through their change sink.
    func applyAuthorization(_ state: AuthorizationState, prompt: UInt64?, now: EngineInstant) {
        guard !machine.isShutDown else { return }
        guard let prompt else { return setAuthorization(state, now: now) }
        guard let kind = openPrompts.removeValue(forKey: prompt) else {
            logger.notice("ignoring an answer to a prompt that is no longer open")
            return
        }
        let current = currentAuthorization
        switch kind {
        case .authorization:
            guard current.status == .notDetermined else {
                logger.notice("ignoring a stale answer to the authorization prompt")
                return
            }
            // A dismissal changes nothing (not even accuracy the prompt saw).
            if state.status != .notDetermined { setAuthorization(current.withDecision(of: state), now: now) }
            if currentAuthorization.gate == .notDetermined {
                logger.notice("authorization prompt dismissed; waiting requests end")
                machine.endAwaitingAuthorization(
                    oneShotStatus: .unauthorized(.undecided), subscriptionEnd: .unauthorized(.undecided), now: now, into: &actions)
            }
        case .temporaryFullAccuracy:
            guard current.isAuthorized, current.accuracy == .reduced else {
                logger.notice("ignoring a stale answer to the temporary-full-accuracy prompt")
                return
            }
            if state.accuracy == .full {
                setAuthorization(current.afterTemporaryFullAccuracy(granted: true), now: now)
            } else {
                machine.refuseTemporaryFullAccuracy(now: now, into: &actions)
            }
        case .locationButton(let from):
            if current.status == from && state.status != from {
                // Confirmed; from not determined that is the one confirmation later presses skip.
                if from == .notDetermined && state.isAuthorized { locationButtonConfirmed = true }
                setAuthorization(current.withDecision(of: state), now: now)
            }
            // An authorization request that waited for the confirmation goes ahead if still needed.
            if currentAuthorization.gate == .notDetermined && machine.authorizationRequested
                && !openPrompts.values.contains(.authorization)
            {
                askForAuthorization()
            }
        }
    }

    /// Moves the engine to `state`: the scheduler first learns what lets requests proceed, last what
    /// stops them (so that a revocation ends requests as revoked, not as merely reduced), then observers hear.
    func setAuthorization(_ state: AuthorizationState, askingForFullAccuracy: Bool = true, now: EngineInstant) {
        guard state != currentAuthorization else { return }
        // A new period of access closes the prompts of the old one: their answers would be stale. The
        // scheduler resets its own "asked" flags on exactly these transitions (any change of access for
        // the authorization request, any change of accuracy for temporary full accuracy), so nothing
        // is left waiting on a closed prompt.
        if state.gate != currentAuthorization.gate {
            openPrompts.removeAll()
        } else if state.accuracy != currentAuthorization.accuracy {
            openPrompts = openPrompts.filter { $0.value != .temporaryFullAccuracy }
        }
        if currentAuthorization.gate == .authorized && state.gate != .authorized { privacy.noteRevocation() }
        if currentAuthorization.accuracy == .full && state.accuracy == .reduced { privacy.noteReduction() }
        currentAuthorization = state
        logger.info("authorization changed", metadata: ["authorization": "\(state)"])
        if state.gate == .authorized {
            machine.setAccuracyAuthorization(state.accuracy, askingForFullAccuracy: askingForFullAccuracy, now: now, into: &actions)
            machine.setAuthorization(state.gate, now: now, into: &actions)
        } else {
            machine.setAuthorization(state.gate, now: now, into: &actions)
            machine.setAccuracyAuthorization(state.accuracy, askingForFullAccuracy: askingForFullAccuracy, now: now, into: &actions)
        }
        for observer in authorizationObservers.values { observer.yield(state) }
        configuration.onAuthorizationChange?(state)
    }

    func endSessionNow(now: EngineInstant) {
        guard !machine.isShutDown else { return }
        machine.beginNewSession()
        var next = currentAuthorization
        if next.isOneTime && next.status.isGrant {
            next = AuthorizationState(status: .notDetermined, servicesEnabled: next.servicesEnabled)
        } else if next.isFullAccuracyTemporary {
            next.accuracy = .reduced
            next.isFullAccuracyTemporary = false
        }
        guard next != currentAuthorization else { return }
        logger.info("session ended: one-time grants lapse")
        // Requests still needing full accuracy end as the session does, rather than prompting again at once.
        setAuthorization(next, askingForFullAccuracy: false, now: now)
        authorizationProvider.engineDidChange(next)
    }

    func locationButtonPressedNow(now: EngineInstant) {
        guard !machine.isShutDown else { return }
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
            guard !openPrompts.values.contains(where: \.isLocationButton) else { return }
            metrics.prompted(.locationButton)
            authorizationProvider.confirmLocationButton(current: state, reply: makeReply(.locationButton(from: state.status)))
        }
    }

    /// The scheduler needs authorization: ask the provider for the declared level, or end the waiting
    /// requests with a configuration error when nothing is declared (never a silent hang).
    func askForAuthorization() {
        // The user is confirming a location button from not determined: that answer may authorize;
        // ask only if it does not.
        // (The scheduler's request stays outstanding; the confirmation's answer takes it up.)
        if openPrompts.values.contains(.locationButton(from: .notDetermined)) { return }
        guard let level = configuration.usage.level(preferring: configuration.preferredAuthorization) else {
            logger.error("\(ConfigurationError.noUsageDeclared)")
            machine.endAwaitingAuthorization(
                oneShotStatus: .misconfigured(.noUsageDeclared), subscriptionEnd: .misconfigured(.noUsageDeclared), now: now(),
                into: &actions)
            return
        }
        logger.debug("asking for authorization", metadata: ["level": "\(level)"])
        metrics.prompted(.authorization)
        let prompt = AuthorizationPrompt(
            level: level, usageDescription: configuration.usage.usageDescription(for: level), current: currentAuthorization)
        authorizationProvider.requestAuthorization(prompt, reply: makeReply(.authorization))
    }

    func askForTemporaryFullAccuracy(_ purposeKey: String) {
        logger.debug("asking for temporary full accuracy", metadata: ["purpose": "\(purposeKey)"])
        metrics.prompted(.temporaryFullAccuracy)
        let prompt = FullAccuracyPrompt(
            purposeKey: purposeKey, purpose: configuration.usage.temporaryFullAccuracyPurposes[purposeKey] ?? "",
            current: currentAuthorization)
        authorizationProvider.requestTemporaryFullAccuracy(prompt, reply: makeReply(.temporaryFullAccuracy))
    }

    /// Opens a prompt and makes its reply, which forwards only its first answer.
    func makeReply(_ kind: PromptKind) -> AuthorizationReply {
        nextPromptToken &+= 1
        let token = nextPromptToken
        openPrompts[token] = kind
        let answered = NIOLockedValueBox(false)
        return AuthorizationReply { [weak self] state, delay in
            let first = answered.withLockedValue { answered in
                defer { answered = true }
                return !answered
            }
            if first { self?.submitAuthorization(state, after: delay, prompt: token) }
        }
    }
}

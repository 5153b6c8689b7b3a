extension SchedulerStateMachine {
    /// The whole authorization picture the core works under (status, accuracy, one-time grant,
    /// services), as of the last change applied.
    public var authorizationState: AuthorizationState { access.timeline.picture }

    /// What the picture lets the scheduler do: deliver fixes, wait, or refuse.
    var authorization: AuthorizationGate { access.timeline.picture.gate }

    /// The picture's accuracy authorization.
    var accuracyAuthorization: AccuracyAuthorization { access.timeline.picture.accuracy }

    /// A provider's change or answer arrives, effective at `due`: it takes its place on the timeline
    /// and applies, in (due, arrival) order with the other scheduled changes, at once if it is due.
    /// `prompt` is the token of the prompt it answers (from ``SchedulerAction/requestAuthorization(_:prompt:)``
    /// and its siblings), or `nil` for a change the provider observed on its own.
    /// - Complexity: O(log c) for c scheduled changes, plus what the change does.
    public mutating func receiveAuthorization(
        _ state: AuthorizationState, due: EngineInstant, answering prompt: UInt64?, now: EngineInstant
    ) {
        let now = enter(now, "receiveAuthorization")
        guard !isShutDown else { return }
        access.timeline.schedule(state, due: due, prompt: prompt)
        applyDueAuthorizationChanges(upTo: now)
    }

    /// Applies every scheduled change due by `now`, in order, each at its own instant after the
    /// deadlines due before it (what was due before a change happened under the old picture).
    mutating func applyDueAuthorizationChanges(upTo now: EngineInstant) {
        let now = tick(now)
        while let change = access.timeline.popDue(upTo: now) {
            expireDeadlines(now: change.due)
            settleFixCompletion()
            apply(change.state, answering: change.prompt, now: change.due)
        }
    }

    /// The application's session of use ended: a one-time grant lapses back to not determined (pending
    /// requests end with ``AuthorizationFailure/lapsed``), temporary full accuracy reverts to reduced
    /// (requests needing it end rather than prompting again at once), and a refusal of temporary full
    /// accuracy no longer stands. The provider is told of the change the engine made.
    public mutating func endSession(now: EngineInstant) {
        let now = enter(now, "endSession")
        guard !isShutDown else { return }
        beginNewSession()
        var next = access.timeline.picture
        if next.isOneTime && next.status.isGrant {
            next = AuthorizationState(status: .notDetermined, servicesEnabled: next.servicesEnabled)
        } else if next.isFullAccuracyTemporary {
            next.accuracy = .reduced
            next.isFullAccuracyTemporary = false
        }
        guard next != access.timeline.picture else { return }
        setAuthorizationPicture(next, askingForFullAccuracy: false, now: now)
        emit(.tellProviderAuthorizationChanged(next))
    }

    /// The user pressed a location button: grants at once after an earlier confirmation from not
    /// determined; asks for a confirmation from not determined or denied (once at a time); changes
    /// nothing when already authorized, restricted or with services disabled.
    public mutating func pressLocationButton(now: EngineInstant) {
        let now = enter(now, "pressLocationButton")
        guard !isShutDown else { return }
        let state = access.timeline.picture
        guard state.servicesEnabled, state.status != .restricted else {
            counters.locationButtonPressesIgnored += 1
            return
        }
        switch state.status {
        case .authorizedWhenInUse, .authorizedAlways, .restricted:
            return
        case .notDetermined where access.timeline.locationButtonConfirmed:
            let granted = state.afterLocationButtonConfirmation
            setAuthorizationPicture(granted, now: now)
            emit(.tellProviderAuthorizationChanged(granted))
        case .notDetermined, .denied:
            guard !access.timeline.openPrompts.values.contains(where: \.isLocationButton) else { return }
            let token = access.timeline.open(.locationButton(from: state.status))
            emit(.confirmLocationButton(current: state, prompt: token))
        }
    }

    /// A change or answer takes effect.
    ///
    /// A change the provider observed replaces the picture. An answer changes only what its prompt was
    /// about, and only while that prompt is still open: every change of access (a revocation, the end
    /// of a session, a location-button grant) closes the open prompts, and a change of accuracy the
    /// temporary-full-accuracy ones, so a late answer can never restore access, undo a grant, or carry
    /// over into a later grant period. Ignored answers are counted
    /// (``SchedulerStatistics/authorizationAnswersIgnored``).
    mutating func apply(_ state: AuthorizationState, answering prompt: UInt64?, now: EngineInstant) {
        guard let prompt else { return setAuthorizationPicture(state, now: now) }
        guard let kind = access.timeline.openPrompts.removeValue(forKey: prompt) else {
            counters.authorizationAnswersIgnored += 1
            return
        }
        let current = access.timeline.picture
        switch kind {
        case .authorization:
            guard current.status == .notDetermined else {
                counters.authorizationAnswersIgnored += 1
                return
            }
            // A dismissal changes nothing (not even accuracy the prompt saw).
            if state.status != .notDetermined { setAuthorizationPicture(current.withDecision(of: state), now: now) }
            if access.timeline.picture.gate == .notDetermined {
                endAwaitingAuthorization(
                    oneShotStatus: .unauthorized(.undecided), subscriptionEnd: .unauthorized(.undecided), now: now)
            }
        case .temporaryFullAccuracy:
            guard current.isAuthorized, current.accuracy == .reduced else {
                counters.authorizationAnswersIgnored += 1
                return
            }
            if state.accuracy == .full {
                setAuthorizationPicture(current.afterTemporaryFullAccuracy(granted: true), now: now)
            } else {
                refuseTemporaryFullAccuracy(now: now)
            }
        case .locationButton(let from):
            if current.status == from && state.status != from {
                // Confirmed; from not determined that is the one confirmation later presses skip.
                if from == .notDetermined && state.isAuthorized { access.timeline.locationButtonConfirmed = true }
                setAuthorizationPicture(current.withDecision(of: state), now: now)
            }
            // An authorization request that waited for the confirmation goes ahead if still needed.
            if access.timeline.picture.gate == .notDetermined && access.authorizationRequested && !access.timeline.isOpen(.authorization) {
                askForAuthorization(now: now)
            }
        }
    }

    /// Moves to `state`: the scheduler first learns what lets requests proceed, last what stops them (so
    /// that a revocation ends requests as revoked, not as merely reduced). The owner hears of the change
    /// before the endings it causes.
    mutating func setAuthorizationPicture(
        _ state: AuthorizationState, askingForFullAccuracy: Bool = true, now: EngineInstant
    ) {
        let previous = access.timeline.picture
        guard state != previous else { return }
        // A new period of access closes the prompts of the old one: their answers would be stale. The
        // "asked" flags reset on exactly these transitions (any change of access for the authorization
        // request, any change of accuracy for temporary full accuracy), so nothing is left waiting on a
        // closed prompt.
        if state.gate != previous.gate {
            access.timeline.openPrompts.removeAll()
        } else if state.accuracy != previous.accuracy {
            access.timeline.openPrompts = access.timeline.openPrompts.filter { $0.value != .temporaryFullAccuracy }
        }
        access.timeline.picture = state
        emit(.authorizationChanged(from: previous, to: state))
        if state.gate == .authorized {
            accuracyChanged(from: previous.accuracy, askingForFullAccuracy: askingForFullAccuracy, now: now)
            accessChanged(from: previous.gate, now: now)
        } else {
            accessChanged(from: previous.gate, now: now)
            accuracyChanged(from: previous.accuracy, askingForFullAccuracy: askingForFullAccuracy, now: now)
        }
    }

    /// Asks for authorization at the level the application declared, or ends the waiting requests with
    /// ``ConfigurationError/noUsageDeclared`` when nothing is declared (never a silent hang). While the
    /// user confirms a location button from not determined, the request waits for that answer.
    mutating func askForAuthorization(now: EngineInstant) {
        if access.timeline.isOpen(.locationButton(from: .notDetermined)) { return }
        let usage = configuration.usage
        guard let level = usage.level(preferring: configuration.preferredAuthorization) else {
            emit(.reportConfigurationError(.noUsageDeclared))
            endAwaitingAuthorization(
                oneShotStatus: .misconfigured(.noUsageDeclared), subscriptionEnd: .misconfigured(.noUsageDeclared), now: now)
            return
        }
        let token = access.timeline.open(.authorization)
        let prompt = AuthorizationPrompt(level: level, usageDescription: usage.usageDescription(for: level), current: access.timeline.picture)
        emit(.requestAuthorization(prompt, prompt: token))
    }

    /// Asks for temporary full accuracy, showing the declared purpose of `purposeKey`.
    mutating func askForTemporaryFullAccuracy(_ purposeKey: String) {
        let token = access.timeline.open(.temporaryFullAccuracy)
        let prompt = FullAccuracyPrompt(
            purposeKey: purposeKey, purpose: configuration.usage.temporaryFullAccuracyPurposes[purposeKey] ?? "",
            current: access.timeline.picture)
        emit(.requestTemporaryFullAccuracy(prompt, prompt: token))
    }
}

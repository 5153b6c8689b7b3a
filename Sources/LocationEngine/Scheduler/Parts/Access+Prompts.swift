extension SchedulerStateMachine.Access {
    // MARK: The picture

    /// Moves the picture to `state`, returning the one before. A new period of access closes the prompts
    /// of the old one: their answers would be stale. What was asked resets on exactly these transitions
    /// (any change of access for the authorization request, any change of accuracy for temporary full
    /// accuracy), so nothing is left waiting on a closed prompt.
    mutating func replacePicture(with state: AuthorizationState) -> AuthorizationState {
        let previous = timeline.picture
        if state.gate != previous.gate {
            timeline.openPrompts.removeAll()
        } else if state.accuracy != previous.accuracy {
            timeline.openPrompts = timeline.openPrompts.filter { $0.value != .temporaryFullAccuracy }
        }
        timeline.picture = state
        return previous
    }

    /// The picture once the application's session of use ends: a one-time grant lapses back to not
    /// determined, temporary full accuracy reverts to reduced; anything else stays. A refusal of
    /// temporary full accuracy no longer stands.
    mutating func endSession() -> AuthorizationState {
        beginNewSession()
        var next = timeline.picture
        if next.isOneTime && next.status.isGrant {
            next = AuthorizationState(status: .notDetermined, servicesEnabled: next.servicesEnabled)
        } else if next.isFullAccuracyTemporary {
            next.accuracy = .reduced
            next.isFullAccuracyTemporary = false
        }
        return next
    }

    /// A new session of use begins: a refusal of temporary full accuracy no longer stands.
    mutating func beginNewSession() {
        if temporaryFullAccuracy == .refused { temporaryFullAccuracy = .notAsked }
    }

    // MARK: Prompts

    /// What asking for authorization comes to.
    enum AuthorizationAsk {
        /// A location-button confirmation from not determined is open: the request waits for its answer.
        case waitForLocationButton
        /// Nothing is declared: no prompt can be shown.
        case nothingDeclared
        /// Show this prompt.
        case prompt(AuthorizationPrompt, token: UInt64)
    }

    /// The one authorization request of a not-determined period, when a request must wait for
    /// authorization: `nil` when it was made already. Counted when it is made: with nothing declared none is.
    mutating func requestAuthorizationOnce() -> AuthorizationAsk? {
        guard authorizationRequest == .notMade else { return nil }
        let ask = askForAuthorization()
        if case .nothingDeclared = ask {} else { counts.authorizationRequests += 1 }
        return ask
    }

    /// Asks for authorization at the level the application declared (see
    /// ``UsageDeclarations/level(preferring:)``), and records where the request then stands. With nothing
    /// declared the request is not made: it ends (``awaitingAuthorizationEnded()``), and the next one asks
    /// again.
    mutating func askForAuthorization() -> AuthorizationAsk {
        if timeline.isOpen(.locationButton(from: .notDetermined)) {
            authorizationRequest = .waitingForLocationButton
            return .waitForLocationButton
        }
        guard let level = usage.level(preferring: preferredAuthorization) else { return .nothingDeclared }
        authorizationRequest = .shown
        let token = timeline.open(.authorization)
        return .prompt(AuthorizationPrompt(level: level, usageDescription: usage.usageDescription(for: level), current: timeline.picture), token: token)
    }

    /// Requests that need full accuracy wait for it, the first naming `purposeKey`: the one request for
    /// temporary full accuracy of this period, showing that key's declared purpose; `nil` when it is
    /// asked already.
    mutating func requestTemporaryFullAccuracyOnce(_ purposeKey: String) -> (FullAccuracyPrompt, token: UInt64)? {
        guard temporaryFullAccuracy != .asked else { return nil }
        temporaryFullAccuracy = .asked
        counts.fullAccuracyRequests += 1
        let token = timeline.open(.temporaryFullAccuracy)
        let purpose = usage.temporaryFullAccuracyPurposes[purposeKey] ?? ""
        return (FullAccuracyPrompt(purposeKey: purposeKey, purpose: purpose, current: timeline.picture), token)
    }

    /// What a press of the location button comes to (a press that changes nothing is `nil`).
    enum LocationButtonPress {
        /// Confirmed once before from not determined: granted at once.
        case grant(AuthorizationState)
        /// Ask the user to confirm (prompt `token`).
        case confirm(AuthorizationState, token: UInt64)
    }

    /// The user pressed a location button. A press with services off or access restricted is ignored
    /// (and counted); one while authorized, or while a confirmation is open, changes nothing.
    mutating func pressLocationButton() -> LocationButtonPress? {
        let state = timeline.picture
        guard state.servicesEnabled, state.status != .restricted else {
            counts.locationButtonPressesIgnored += 1
            return nil
        }
        switch state.status {
        case .authorizedWhenInUse, .authorizedAlways, .restricted:
            return nil
        case .notDetermined where timeline.locationButtonConfirmed:
            return .grant(state.afterLocationButtonConfirmation)
        case .notDetermined, .denied:
            guard !timeline.openPrompts.values.contains(where: \.isLocationButton) else { return nil }
            return .confirm(state, token: timeline.open(.locationButton(from: state.status)))
        }
    }

    /// What an answer to an open prompt comes to, by the prompt's kind (an answer ignored is `nil`).
    enum Answer {
        /// The authorization prompt was answered with this decision (`nil`: dismissed); if access is
        /// still not determined, the requests waiting for it end undecided.
        case authorization(decided: AuthorizationState?)
        /// Temporary full accuracy was granted (the picture after it) or refused (`nil`).
        case temporaryFullAccuracy(granted: AuthorizationState?)
        /// The location-button confirmation was answered with this decision (`nil`: none); an
        /// authorization request that waited for it goes ahead if still needed.
        case locationButton(decided: AuthorizationState?)
    }

    /// An answer `state` to the prompt `token` arrives. An answer changes only what its prompt was
    /// about, and only while that prompt is open, so a late answer can never restore access, undo a
    /// grant, or carry over into a later grant period. An answer that no longer applies is ignored (and
    /// counted).
    mutating func answer(_ token: UInt64, with state: AuthorizationState) -> Answer? {
        guard let answer = decide(token, state) else {
            counts.authorizationAnswersIgnored += 1
            return nil
        }
        return answer
    }

    private mutating func decide(_ token: UInt64, _ state: AuthorizationState) -> Answer? {
        guard let kind = timeline.openPrompts.removeValue(forKey: token) else { return nil }
        let current = timeline.picture
        switch kind {
        case .authorization:
            guard current.status == .notDetermined else { return nil }
            // A dismissal changes nothing (not even accuracy the prompt saw).
            return .authorization(decided: state.status != .notDetermined ? current.withDecision(of: state) : nil)
        case .temporaryFullAccuracy:
            guard current.isAuthorized, current.accuracy == .reduced else { return nil }
            return .temporaryFullAccuracy(granted: state.accuracy == .full ? current.afterTemporaryFullAccuracy(granted: true) : nil)
        case .locationButton(let from):
            guard current.status == from && state.status != from else { return .locationButton(decided: nil) }
            // Confirmed; from not determined that is the one confirmation later presses skip.
            if from == .notDetermined && state.isAuthorized { timeline.locationButtonConfirmed = true }
            return .locationButton(decided: current.withDecision(of: state))
        }
    }

    /// Whether this period's authorization request waited for a location-button confirmation that is
    /// now answered, and so goes ahead.
    var authorizationRequestIsDue: Bool {
        gate == .notDetermined && authorizationRequest == .waitingForLocationButton
    }
}

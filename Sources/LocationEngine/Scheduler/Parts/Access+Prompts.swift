extension SchedulerStateMachine.Access {
    // MARK: The picture

    /// Moves the picture to `state`, returning the one before. A new period of access closes the prompts
    /// of the old one: their answers would be stale. The "asked" flags reset on exactly these transitions
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

    /// Asks for authorization at the level the application declared (see
    /// ``UsageDeclarations/level(preferring:)``).
    mutating func askForAuthorization(usage: UsageDeclarations, preferring preferred: AuthorizationLevel) -> AuthorizationAsk {
        if timeline.isOpen(.locationButton(from: .notDetermined)) { return .waitForLocationButton }
        guard let level = usage.level(preferring: preferred) else { return .nothingDeclared }
        let token = timeline.open(.authorization)
        return .prompt(AuthorizationPrompt(level: level, usageDescription: usage.usageDescription(for: level), current: timeline.picture), token: token)
    }

    /// Asks for temporary full accuracy, showing the declared purpose of `purposeKey`.
    mutating func askForTemporaryFullAccuracy(_ purposeKey: String, usage: UsageDeclarations) -> (FullAccuracyPrompt, token: UInt64) {
        temporaryFullAccuracy = .asked
        let token = timeline.open(.temporaryFullAccuracy)
        let purpose = usage.temporaryFullAccuracyPurposes[purposeKey] ?? ""
        return (FullAccuracyPrompt(purposeKey: purposeKey, purpose: purpose, current: timeline.picture), token)
    }

    /// What a press of the location button comes to.
    enum LocationButtonPress {
        /// Services are off or access is restricted: the press is ignored (and counted).
        case ignored
        /// Already authorized, or a confirmation is already open.
        case changesNothing
        /// Confirmed once before from not determined: granted at once.
        case grant(AuthorizationState)
        /// Ask the user to confirm (prompt `token`).
        case confirm(AuthorizationState, token: UInt64)
    }

    /// The user pressed a location button.
    mutating func pressLocationButton() -> LocationButtonPress {
        let state = timeline.picture
        guard state.servicesEnabled, state.status != .restricted else { return .ignored }
        switch state.status {
        case .authorizedWhenInUse, .authorizedAlways, .restricted:
            return .changesNothing
        case .notDetermined where timeline.locationButtonConfirmed:
            return .grant(state.afterLocationButtonConfirmation)
        case .notDetermined, .denied:
            guard !timeline.openPrompts.values.contains(where: \.isLocationButton) else { return .changesNothing }
            return .confirm(state, token: timeline.open(.locationButton(from: state.status)))
        }
    }

    /// What an answer to an open prompt comes to, by the prompt's kind.
    enum Answer {
        /// The prompt is closed, or the answer no longer applies: ignored (and counted).
        case ignored
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
    /// grant, or carry over into a later grant period.
    mutating func answer(_ token: UInt64, with state: AuthorizationState) -> Answer {
        guard let kind = timeline.openPrompts.removeValue(forKey: token) else { return .ignored }
        let current = timeline.picture
        switch kind {
        case .authorization:
            guard current.status == .notDetermined else { return .ignored }
            // A dismissal changes nothing (not even accuracy the prompt saw).
            return .authorization(decided: state.status != .notDetermined ? current.withDecision(of: state) : nil)
        case .temporaryFullAccuracy:
            guard current.isAuthorized, current.accuracy == .reduced else { return .ignored }
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
        gate == .notDetermined && authorizationRequested && !timeline.isOpen(.authorization)
    }
}

extension SchedulerStateMachine.Access {
    /// What a change of access asks of the other parts, in the order it must be carried out. Access
    /// decides every consequence of a change from its own facts (the picture before and after, its
    /// prompts, where temporary full accuracy stands) and has already updated them when it hands these
    /// out; the core only routes each one to the part it concerns.
    enum Consequence: Equatable {
        /// Tell the owner that the picture changed (before any ending the change causes).
        case announce(from: AuthorizationState, to: AuthorizationState)
        /// Tell the provider of a change the engine made (a session ended, a button press granted).
        case tellProvider(AuthorizationState)
        /// Show the authorization prompt (token `prompt`).
        case askForAuthorization(AuthorizationPrompt, prompt: UInt64)
        /// Report a configuration error (nothing is declared, so no prompt can be shown).
        case reportConfigurationError(ConfigurationError)
        /// Ask the user to confirm a location button (token `prompt`).
        case confirmLocationButton(current: AuthorizationState, prompt: UInt64)
        /// Access granted: the requests waiting for authorization are admitted.
        case admitAwaitingAuthorization
        /// The authorization request of this not-determined period was answered without a decision, or
        /// cannot be made: the requests waiting for it end so (the next request asks again).
        case endAwaitingAuthorization(LocationStatus, SubscriptionEnd)
        /// Access lost or lapsed: every pending request ends so.
        case endEverything(LocationStatus, SubscriptionEnd)
        /// Access is not granted (any more): the source goes off at once, without lingering.
        case powerOff
        /// Accuracy reduced: admitted requests that coarsened fixes cannot serve wait for temporary full
        /// accuracy (when `mayWait` and they name a purpose key) or end.
        case holdUnservable(mayWait: Bool)
        /// Full accuracy: the requests waiting for it are admitted.
        case admitAwaitingFullAccuracy
        /// Temporary full accuracy was refused, or the session that asked for it ended: the requests waiting
        /// for it end, none asking again.
        case endAwaitingFullAccuracy
        /// What the requests need of the source may have changed.
        case reconcilePower
    }

    /// A provider's change or answer takes its place among the scheduled changes; the earliest
    /// (``AuthorizationTimeline/nextDue``) is authorization's alarm on the core's timeline.
    /// - Complexity: O(log c) for c scheduled changes.
    mutating func schedule(_ state: AuthorizationState, due: EngineInstant, prompt: UInt64?) {
        timeline.schedule(state, due: due, prompt: prompt)
        alarmMoved = true
    }

    /// Takes the earliest scheduled change if it is due by `instant`.
    mutating func takeChange(dueBy instant: EngineInstant) -> ScheduledAuthorizationChange? {
        alarmMoved = true
        return timeline.popDue(upTo: instant)
    }

    /// Forgets every prompt and scheduled change (the engine shut down).
    mutating func close() {
        timeline.close()
        alarmMoved = true
    }

    /// A scheduled change falls due: a change the provider observed replaces the picture; an answer
    /// changes what its prompt was about, while that prompt is open (see ``answer(_:with:)``).
    mutating func apply(_ state: AuthorizationState, answering prompt: UInt64?) -> [Consequence] {
        guard let prompt else { return replace(with: state) }
        switch answer(prompt, with: state) {
        case nil:
            return []
        case .authorization(let decided):
            var consequences = decided.map { replace(with: $0) } ?? []
            if awaitingAuthorizationEnded() { consequences.append(.endAwaitingAuthorization(.unauthorized(.undecided), .unauthorized(.undecided))) }
            return consequences
        case .temporaryFullAccuracy(let granted?):
            return replace(with: granted)
        case .temporaryFullAccuracy(nil):
            return refuseTemporaryFullAccuracy()
        case .locationButton(let decided):
            var consequences = decided.map { replace(with: $0) } ?? []
            // An authorization request that waited for the confirmation goes ahead if still needed.
            if authorizationRequestIsDue { consequences += ask(askForAuthorization()) }
            return consequences
        }
    }

    /// The application's session of use ended (see ``endSession()``); the provider hears of the change. A
    /// temporary-full-accuracy prompt still open closes with the session: its answer would grant (or refuse)
    /// the next session what only this one asked for, and the requests waiting for it end with
    /// `accuracyReduced`, as those a grant served would.
    mutating func sessionEnded() -> [Consequence] {
        let next = endSession()
        guard next == timeline.picture else { return replace(with: next, askingForFullAccuracy: false) + [.tellProvider(next)] }
        guard temporaryFullAccuracy == .asked else { return [] }
        timeline.openPrompts = timeline.openPrompts.filter { $0.value != .temporaryFullAccuracy }
        temporaryFullAccuracy = .notAsked
        return [.endAwaitingFullAccuracy, .reconcilePower]
    }

    /// The user pressed a location button (see ``pressLocationButton()``).
    mutating func locationButtonPressed() -> [Consequence] {
        switch pressLocationButton() {
        case nil: []
        case .grant(let granted): replace(with: granted) + [.tellProvider(granted)]
        case .confirm(let current, let token): [.confirmLocationButton(current: current, prompt: token)]
        }
    }

    /// A request waits for authorization: the period's one request for it, if it was not made yet.
    mutating func authorizationNeeded() -> [Consequence] {
        guard let needed = requestAuthorizationOnce() else { return [] }
        return ask(needed)
    }

    /// The provider answered a temporary-full-accuracy request: while accuracy is still reduced the
    /// requests waiting for it end, and later ones end at once until the accuracy authorization changes
    /// or a new session begins.
    mutating func refuseTemporaryFullAccuracy() -> [Consequence] {
        guard accuracy == .reduced else {
            temporaryFullAccuracy = .notAsked
            return []
        }
        temporaryFullAccuracy = .refused
        return [.endAwaitingFullAccuracy, .reconcilePower]
    }

    /// Moves the picture to `state`. The owner hears of the change first; then what lets requests
    /// proceed comes before what stops them, so that a revocation ends requests as revoked, not as merely
    /// reduced. `askingForFullAccuracy` is `false` when a reduction must not prompt at once (temporary
    /// full accuracy reverting at the end of a session): requests needing full accuracy then end.
    private mutating func replace(with state: AuthorizationState, askingForFullAccuracy: Bool = true) -> [Consequence] {
        guard state != timeline.picture else { return [] }
        let previous = replacePicture(with: state)
        var consequences: [Consequence] = [.announce(from: previous, to: state)]
        if state.gate == .authorized {
            accuracyChanged(from: previous.accuracy, askingForFullAccuracy: askingForFullAccuracy, into: &consequences)
            accessChanged(from: previous.gate, into: &consequences)
        } else {
            accessChanged(from: previous.gate, into: &consequences)
            accuracyChanged(from: previous.accuracy, askingForFullAccuracy: askingForFullAccuracy, into: &consequences)
        }
        return consequences
    }

    /// Access (the gate) changed from `previous`: granted, the waiting requests are admitted; a one-time
    /// grant lapsed, the pending requests end ``AuthorizationFailure/lapsed``; refused, every request
    /// ends with that failure. Whenever access is lost the source goes off at once, without lingering.
    private mutating func accessChanged(from previous: AuthorizationGate, into consequences: inout [Consequence]) {
        guard gate != previous else { return }
        accessChanged(from: previous)
        switch gate {
        case .authorized:
            consequences.append(.admitAwaitingAuthorization)
        case .notDetermined:
            if previous == .authorized { consequences.append(.endEverything(.unauthorized(.lapsed), .unauthorized(.lapsed))) }
        case .unauthorized(let failure):
            consequences.append(.endEverything(.unauthorized(failure), .unauthorized(failure)))
        }
        if gate != .authorized { consequences.append(.powerOff) }
        consequences.append(.reconcilePower)
    }

    /// Accuracy authorization changed from `previous`: reduced, admitted requests that coarsened fixes
    /// cannot serve are held for temporary full accuracy or end; full, the requests held for it are
    /// admitted.
    private mutating func accuracyChanged(
        from previous: AccuracyAuthorization, askingForFullAccuracy: Bool, into consequences: inout [Consequence]
    ) {
        guard accuracy != previous else { return }
        accuracyChanged()
        consequences.append(accuracy == .reduced ? .holdUnservable(mayWait: askingForFullAccuracy) : .admitAwaitingFullAccuracy)
        consequences.append(.reconcilePower)
    }

    /// What asking for authorization comes to (nothing while it waits for a location-button confirmation).
    /// With nothing declared, no prompt can be shown: that is reported, and the requests waiting for
    /// authorization end ``ConfigurationError/noUsageDeclared``.
    private mutating func ask(_ ask: AuthorizationAsk) -> [Consequence] {
        switch ask {
        case .waitForLocationButton: return []
        case .prompt(let prompt, let token): return [.askForAuthorization(prompt, prompt: token)]
        case .nothingDeclared:
            let misconfigured = awaitingAuthorizationEnded()
                ? [Consequence.endAwaitingAuthorization(.misconfigured(.noUsageDeclared), .misconfigured(.noUsageDeclared))] : []
            return [.reportConfigurationError(.noUsageDeclared)] + misconfigured
        }
    }
}

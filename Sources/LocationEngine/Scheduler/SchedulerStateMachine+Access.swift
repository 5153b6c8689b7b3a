extension SchedulerStateMachine {
    /// The whole authorization picture the core works under (status, accuracy, one-time grant,
    /// services), as of the last change applied.
    public var authorizationState: AuthorizationState { access.timeline.picture }

    /// What the picture lets the scheduler do: deliver fixes, wait, or refuse.
    @inline(__always)
    var authorization: AuthorizationGate { access.gate }

    /// The picture's accuracy authorization.
    @inline(__always)
    var accuracyAuthorization: AccuracyAuthorization { access.accuracy }

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

    /// The application's session of use ended: a one-time grant lapses back to not determined (pending
    /// requests end with ``AuthorizationFailure/lapsed``), temporary full accuracy reverts to reduced
    /// (requests needing it end rather than prompting again at once), and a refusal of temporary full
    /// accuracy no longer stands. The provider is told of the change the engine made.
    public mutating func endSession(now: EngineInstant) {
        let now = enter(now, "endSession")
        guard !isShutDown else { return }
        let next = access.endSession()
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
        switch access.pressLocationButton() {
        case nil:
            break
        case .grant(let granted):
            setAuthorizationPicture(granted, now: now)
            emit(.tellProviderAuthorizationChanged(granted))
        case .confirm(let current, let token):
            emit(.confirmLocationButton(current: current, prompt: token))
        }
    }

    // MARK: Changes

    /// Applies every scheduled change due by `now`, in order, each at its own instant after the
    /// deadlines due before it (what was due before a change happened under the old picture).
    mutating func applyDueAuthorizationChanges(upTo now: EngineInstant) {
        let now = tick(now)
        while let change = access.timeline.popDue(upTo: now) {
            expireDeadlines(now: change.due)
            if delivery.settleFixCompletion(taking: &requests) { fixCompletionEnded() }
            apply(change.state, answering: change.prompt, now: change.due)
        }
    }

    /// A change or answer takes effect: a change the provider observed replaces the picture; an answer
    /// changes what its prompt was about, while that prompt is open (see ``Access/answer(_:with:)``).
    /// Ignored answers are counted (``SchedulerStatistics/authorizationAnswersIgnored``).
    private mutating func apply(_ state: AuthorizationState, answering prompt: UInt64?, now: EngineInstant) {
        guard let prompt else { return setAuthorizationPicture(state, now: now) }
        switch access.answer(prompt, with: state) {
        case nil:
            break
        case .authorization(let decided):
            if let decided { setAuthorizationPicture(decided, now: now) }
            if authorization == .notDetermined {
                endAwaitingAuthorization(oneShotStatus: .unauthorized(.undecided), subscriptionEnd: .unauthorized(.undecided), now: now)
            }
        case .temporaryFullAccuracy(let granted?):
            setAuthorizationPicture(granted, now: now)
        case .temporaryFullAccuracy(nil):
            refuseTemporaryFullAccuracy(now: now)
        case .locationButton(let decided):
            if let decided { setAuthorizationPicture(decided, now: now) }
            // An authorization request that waited for the confirmation goes ahead if still needed.
            if access.authorizationRequestIsDue {
                ask(access.askForAuthorization(usage: configuration.usage, preferring: configuration.preferredAuthorization), now: now)
            }
        }
    }

    /// Moves to `state`: the scheduler first learns what lets requests proceed, last what stops them (so
    /// that a revocation ends requests as revoked, not as merely reduced). The owner hears of the change
    /// before the endings it causes.
    private mutating func setAuthorizationPicture(_ state: AuthorizationState, askingForFullAccuracy: Bool = true, now: EngineInstant) {
        guard state != access.timeline.picture else { return }
        let previous = access.replacePicture(with: state)
        emit(.authorizationChanged(from: previous, to: state))
        if state.gate == .authorized {
            accuracyChanged(from: previous.accuracy, askingForFullAccuracy: askingForFullAccuracy, now: now)
            accessChanged(from: previous.gate, now: now)
        } else {
            accessChanged(from: previous.gate, now: now)
            accuracyChanged(from: previous.accuracy, askingForFullAccuracy: askingForFullAccuracy, now: now)
        }
    }

    /// The picture's access (its gate) changed from `previous` (see <doc:AuthorizationAndPrivacy>).
    ///
    /// - authorized: waiting requests are admitted (under reduced accuracy, those needing full accuracy
    ///   are held for it or end), delayed timeouts start now;
    /// - not determined (a one-time grant lapsed): pending requests end with
    ///   ``AuthorizationFailure/lapsed``, the fix history is forgotten, new requests wait again and the
    ///   next one asks for authorization once;
    /// - unauthorized: every request ends with that status, the source is powered down, and the
    ///   fix history is forgotten so nothing precise leaks later.
    ///
    /// Whenever access is lost the source is powered down at once, without lingering.
    /// - Complexity: O(w log n) for w waiting requests; O(n) on revocation.
    private mutating func accessChanged(from previous: AuthorizationGate, now: EngineInstant) {
        let gate = authorization
        guard gate != previous else { return }
        access.accessChanged(from: previous)
        switch gate {
        case .authorized:
            admitWaitingRequests(now: now)
        case .notDetermined:
            if previous == .authorized {
                endEverything(oneShotStatus: .unauthorized(.lapsed), subscriptionEnd: .unauthorized(.lapsed), onlyAdmitted: false, now: now)
            }
        case .unauthorized(let failure):
            endEverything(oneShotStatus: .unauthorized(failure), subscriptionEnd: .unauthorized(failure), onlyAdmitted: false, now: now)
        }
        // Access lost: the receiver goes off at once, without lingering.
        if gate != .authorized { forceSourceOff(now: now) }
        reconcilePower(now: now)
    }

    /// The picture's accuracy authorization changed from `previous` (see <doc:AuthorizationAndPrivacy>).
    ///
    /// - reduced: the remembered fixes are coarsened, so nothing precise is delivered from the cache;
    ///   admitted requests that coarsened fixes cannot serve wait for temporary full accuracy (when they
    ///   name a purpose key) or end with ``LocationStatus/accuracyReduced``; the source drops to its
    ///   cheapest mode;
    /// - full: requests waiting for full accuracy are admitted.
    ///
    /// Either way, a refusal of temporary full accuracy is forgotten: the next request may ask again.
    /// `askingForFullAccuracy` is `false` when the reduction must not prompt at once (temporary full
    /// accuracy reverting at the end of a session): requests needing full accuracy then end.
    /// - Complexity: O(n log n) to reduced, O(w) to full for w waiting requests.
    private mutating func accuracyChanged(from previous: AccuracyAuthorization, askingForFullAccuracy: Bool, now: EngineInstant) {
        guard accuracyAuthorization != previous else { return }
        access.accuracyChanged()
        switch accuracyAuthorization {
        case .reduced:
            holdForFullAccuracy(requests.holdUnservable(rules: access.rules), mayWait: askingForFullAccuracy, now: now)
        case .full:
            monitorsAdmitted(requests.admitAwaitingFullAccuracy(now: now))
        }
        reconcilePower(now: now)
    }

    // MARK: Waiting for access

    /// A request waits for authorization: the period's one request for it is made, if it was not yet.
    mutating func requestAuthorizationIfNeeded(now: EngineInstant) {
        guard let ask = access.requestAuthorizationOnce(usage: configuration.usage, preferring: configuration.preferredAuthorization) else { return }
        self.ask(ask, now: now)
    }

    /// Shows the authorization prompt, or ends the waiting requests with
    /// ``ConfigurationError/noUsageDeclared`` when nothing is declared (never a silent hang). While the
    /// user confirms a location button from not determined, the request waits for that answer.
    private mutating func ask(_ ask: Access.AuthorizationAsk, now: EngineInstant) {
        switch ask {
        case .waitForLocationButton:
            break
        case .nothingDeclared:
            emit(.reportConfigurationError(.noUsageDeclared))
            endAwaitingAuthorization(oneShotStatus: .misconfigured(.noUsageDeclared), subscriptionEnd: .misconfigured(.noUsageDeclared), now: now)
        case .prompt(let prompt, let token):
            emit(.requestAuthorization(prompt, prompt: token))
        }
    }

    /// The authorization request of this not-determined period was answered without a decision, or
    /// cannot be made (nothing declared): every request waiting for authorization ends with these
    /// statuses, and the next request asks again.
    /// - Complexity: O(w) for w waiting requests.
    mutating func endAwaitingAuthorization(oneShotStatus: LocationStatus, subscriptionEnd: SubscriptionEnd, now: EngineInstant) {
        let now = tick(now)
        guard authorization == .notDetermined else { return }
        access.authorizationRequested = false
        // Not authorized: the one-shots' result carries no fix.
        end(replace(&requests.awaitingAuthorization, with: []), oneShotStatus: oneShotStatus, subscriptionEnd: subscriptionEnd, now: now)
    }

    /// Admits every request that waited for authorization; delayed timeouts start now. Under reduced
    /// accuracy, those needing full accuracy are held for it (or end) instead.
    private mutating func admitWaitingRequests(now: EngineInstant) {
        let admitted = requests.admitAwaitingAuthorization(rules: access.rules, now: now)
        monitorsAdmitted(admitted.monitors)
        if !admitted.needingFullAccuracy.isEmpty { holdForFullAccuracy(admitted.needingFullAccuracy, now: now) }
    }

    /// Under reduced accuracy, for pending, unadmitted requests that coarsened fixes cannot serve: those
    /// naming a purpose key wait for temporary full accuracy (asked for once, showing the first waiting
    /// request's key; the answer applies to all of them) when `mayWait` (by default: unless it was
    /// refused); the others end with ``LocationStatus/accuracyReduced`` (one-shots carrying the best
    /// coarsened fix) / ``SubscriptionEnd/accuracyReduced``.
    mutating func holdForFullAccuracy(_ ids: [RequestID], mayWait: Bool? = nil, now: EngineInstant) {
        let (firstKey, ending) = requests.holdForFullAccuracy(ids, mayWait: mayWait ?? (access.temporaryFullAccuracy != .refused))
        if let firstKey, let (prompt, token) = access.requestTemporaryFullAccuracyOnce(firstKey, usage: configuration.usage) {
            emit(.requestTemporaryFullAccuracy(prompt, prompt: token))
        }
        end(ending, oneShotStatus: .accuracyReduced, subscriptionEnd: .accuracyReduced, now: now)
    }

    /// The provider answered a temporary-full-accuracy request and accuracy is still reduced: every
    /// request waiting for it ends with ``LocationStatus/accuracyReduced`` /
    /// ``SubscriptionEnd/accuracyReduced``, and later ones end at once until the accuracy
    /// authorization changes or a new session begins (``endSession(now:)``).
    /// - Complexity: O(w) for w waiting requests.
    mutating func refuseTemporaryFullAccuracy(now: EngineInstant) {
        guard accuracyAuthorization == .reduced else {
            access.temporaryFullAccuracy = .notAsked
            return
        }
        access.temporaryFullAccuracy = .refused
        holdForFullAccuracy(replace(&requests.awaitingFullAccuracy, with: []), now: now)
        reconcilePower(now: now)
    }
}

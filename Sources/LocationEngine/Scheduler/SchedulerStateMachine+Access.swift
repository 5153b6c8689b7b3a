extension SchedulerStateMachine {
    /// The whole authorization picture the core works under (status, accuracy, one-time grant,
    /// services), as of the last change applied.
    public var authorizationState: AuthorizationState { access.timeline.picture }

    /// A provider's change or answer arrives, effective at `due`: it takes its place among the scheduled
    /// changes and applies, in (due, arrival) order with the other scheduled changes, at once if it is due;
    /// what else fell due by `now` happens in instant order with it.
    /// `prompt` is the token of the prompt it answers (from ``SchedulerAction/requestAuthorization(_:prompt:)``
    /// and its siblings), or `nil` for a change the provider observed on its own.
    /// - Complexity: O(log c) for c scheduled changes, plus what the change does.
    public mutating func receiveAuthorization(
        _ state: AuthorizationState, due: EngineInstant, answering prompt: UInt64?, now: EngineInstant
    ) -> Effects {
        // Not `enter(_:)`: the change joins the scheduled ones before the time is caught up, so that a change
        // handed over late still applies in due order with the others.
        delivery.begin(at: .betweenEvents)
        let now = tick(now)
        guard !isShutDown else {
            catchUp(to: now)
            settle()
            return delivery.takeEffects()
        }
        access.schedule(state, due: due, prompt: prompt)
        // Each change due applies at its own instant, after what fell due before it in any part, and
        // each instant settles.
        setAuthorizationAlarm()
        let held = heldAndPending()
        // What ends by the change's instant is the change's (or came before it); what falls due after it, while
        // the change waited to be handed over, is not, and a withdrawal held behind the change replaces it.
        catchUp(to: min(due, now))
        keepBarrierEndings(of: held)
        catchUp(to: now)
        settle()
        return delivery.takeEffects()
    }

    /// The application's session of use ended: a one-time grant lapses back to not determined (pending
    /// requests end with ``AuthorizationFailure/lapsed``), temporary full accuracy reverts to reduced
    /// (requests needing it end rather than prompting again at once), and a refusal of temporary full
    /// accuracy no longer stands. The provider is told of the change the engine made.
    public mutating func endSession(now: EngineInstant) -> Effects {
        let now = enter(now)
        guard !isShutDown else {
            settle()
            return delivery.takeEffects()
        }
        let held = heldAndPending()
        carryOut(access.sessionEnded(), now: now)
        keepBarrierEndings(of: held)
        settle()
        return delivery.takeEffects()
    }

    /// The user pressed a location button: grants at once after an earlier confirmation from not
    /// determined; asks for a confirmation from not determined or denied (once at a time); changes
    /// nothing when already authorized, restricted or with services disabled.
    public mutating func pressLocationButton(now: EngineInstant) -> Effects {
        let now = enter(now)
        guard !isShutDown else {
            settle()
            return delivery.takeEffects()
        }
        let held = heldAndPending()
        carryOut(access.locationButtonPressed(), now: now)
        keepBarrierEndings(of: held)
        settle()
        return delivery.takeEffects()
    }

    /// Applies the scheduled changes due at `instant` (authorization's alarm), in the order they were made.
    mutating func applyAuthorizationChanges(dueAt instant: EngineInstant) {
        while let change = access.takeChange(dueBy: instant) {
            carryOut(access.apply(change.state, answering: change.prompt), now: change.due)
        }
    }

    /// Routes what a change of access asks of the other parts to them, in order.
    /// - Complexity: O(w log n) to admit w waiting requests, O(n log n) to hold n under reduced
    ///   accuracy, O(n) to end them.
    mutating func carryOut(_ consequences: [Access.Consequence], now: EngineInstant) {
        for consequence in consequences {
            switch consequence {
            case .announce(let previous, let state):
                // Mid-delivery, what is still ahead of the owner was decided from a precise fix: announced first,
                // the change must find nothing precise after it.
                if delivery.moment == .midDelivery, previous.accuracy != state.accuracy {
                    // Full again later in the same delivery: what is decided after that is as precise as it may be.
                    delivery.reducedMidDelivery = state.accuracy == .reduced ? access.reducedAccuracy : nil
                }
                emit(.authorizationChanged(from: previous, to: state))
            case .tellProvider(let state): emit(.tellProviderAuthorizationChanged(state))
            case .askForAuthorization(let prompt, let token): emit(.requestAuthorization(prompt, prompt: token))
            case .confirmLocationButton(let current, let token): emit(.confirmLocationButton(current: current, prompt: token))
            case .reportConfigurationError(let error): emit(.reportConfigurationError(error))
            case .endAwaitingAuthorization(let status, let ending):
                // Not authorized: the one-shots' result carries no fix.
                end(replace(&requests.awaitingAuthorization, with: []), oneShotStatus: status, subscriptionEnd: ending, now: now)
            case .admitAwaitingAuthorization:
                let admitted = requests.admitAwaitingAuthorization(rules: access.rules, now: now)
                geofences.admit(admitted.monitors, power: &power, now: now)
                if !admitted.needingFullAccuracy.isEmpty { holdForFullAccuracy(admitted.needingFullAccuracy, now: now) }
            case .endEverything(let status, let end):
                // Mid-delivery, what is still ahead of the owner was decided with access: it ends as the pending did.
                // The first loss is the one the pending ended by (a lapse, then a denial, within one delivery).
                if delivery.moment == .midDelivery, delivery.accessLostMidDelivery == nil { delivery.accessLostMidDelivery = status }
                endEverything(oneShotStatus: status, subscriptionEnd: end, onlyAdmitted: false, now: now)
            case .powerOff: powerDown(.all, at: now)
            case .holdUnservable(let mayWait):
                let held = requests.holdUnservable(rules: access.rules)
                // Mid-delivery, an update decided for a subscription now held (a coarsened fix cannot pass its
                // accuracy filter) skips it, as if it had ended.
                for id in held { delivery.subscriptionEnded(id) }
                holdForFullAccuracy(held, mayWait: mayWait, now: now)
            case .admitAwaitingFullAccuracy: requests.admitAwaitingFullAccuracy(now: now)
            case .endAwaitingFullAccuracy: holdForFullAccuracy(replace(&requests.awaitingFullAccuracy, with: []), mayWait: false, now: now)
            case .reconcilePower: askPower(at: now)
            }
        }
    }

    /// Under reduced accuracy, for pending, unadmitted requests that coarsened fixes cannot serve: those
    /// naming a purpose key wait for temporary full accuracy (asked for once, with the first one's key)
    /// when `mayWait` (by default: unless it was refused); the others end with `accuracyReduced`.
    mutating func holdForFullAccuracy(_ ids: [RequestID], mayWait: Bool? = nil, now: EngineInstant) {
        let (firstKey, ending) = requests.holdForFullAccuracy(ids, mayWait: mayWait ?? (access.temporaryFullAccuracy != .refused))
        if let firstKey, let (prompt, token) = access.requestTemporaryFullAccuracyOnce(firstKey) {
            emit(.requestTemporaryFullAccuracy(prompt, prompt: token))
        }
        end(ending, oneShotStatus: .accuracyReduced, subscriptionEnd: .accuracyReduced, now: now)
    }
}

extension LocationEngine {
    /// Executes the actions of the last transition. The state machine is not mid-update here, so
    /// handlers may re-enter the engine (their submissions queue in the inbox).
    ///
    /// A cancel or force-complete that a handler issues takes effect before any further delivery: the
    /// inbox's interruption count is checked before each handler runs, and a result not yet handed to
    /// a request that was cancelled meanwhile is dropped (an awaiting task gets `CancellationError`),
    /// or replaced by the force-completed ending. Requests still pending in the core are then
    /// cancelled or force-completed at once, ahead of the rest of the batch.
    ///
    /// The actions are taken out of the buffer first, so that an expiry pass between two pieces of a
    /// long delivery can run a transition of its own.
    func performActions() {
        var performing = replace(&actions, with: replace(&spareActions, with: []))
        var delivered = false
        for index in performing.indices {
            switch performing[index] {
            case .completeOneShots(let recipients, let result):
                delivered = true
                deliver(result, to: recipients)
            case .cancelOneShot(let handler):
                metrics.cancelled(.oneShot)
                handler.cancelled()
            case .notifySubscriptions(let recipients, let event):
                delivered = true
                deliver(event, to: recipients)
            case .cancelSubscription(let handler):
                metrics.cancelled(.subscription)
                handler.cancelled()
            case .startSource(let mode):
                sourceGeneration &+= 1
                let generation = sourceGeneration
                logger.debug("starting location source", metadata: ["mode": "\(mode)"])
                metrics.sourceStarts.increment()
                metrics.source(mode: mode)
                let sink = SourceEventSink { [weak self] event in
                    guard let self else { return }
                    self.submit(.source(generation: generation, event, madeAt: self.now()))
                }
                source.start(mode: mode, events: sink)
            case .setSourceMode(let mode):
                logger.debug("changing location source mode", metadata: ["mode": "\(mode)"])
                metrics.source(mode: mode)
                source.setMode(mode)
            case .stopSource:
                sourceGeneration &+= 1
                logger.debug("stopping location source")
                metrics.sourceStops.increment()
                metrics.source(mode: nil)
                source.stop()
            case .requestAuthorization(let prompt, let token):
                askForAuthorization(prompt, token: token)
            case .requestTemporaryFullAccuracy(let prompt, let token):
                askForTemporaryFullAccuracy(prompt, token: token)
            case .confirmLocationButton(let current, let token):
                askToConfirmLocationButton(current: current, token: token)
            case .authorizationChanged(let previous, let state):
                authorizationChanged(from: previous, to: state)
            case .tellProviderAuthorizationChanged(let state):
                authorizationProvider.engineDidChange(state)
            case .reportConfigurationError(let error):
                logger.error("\(error)")
            }
        }
        performing.removeAll(keepingCapacity: performing.count < 1024)
        spareActions = performing
        // The last handler may have withdrawn a request that the next command would deliver to.
        if delivered && inbox.interruptions != seenInterruptions { noteInterruptions() }
        if !unappliedWithdrawals.isEmpty { applyWithdrawals() }
    }

    /// Hands one result to each one-shot of a group, skipping those a handler withdrew meanwhile; every
    /// 1,024 recipients, what has fallen due meanwhile is processed first.
    @inline(__always)
    func deliver(_ result: LocationResult, to recipients: [Recipient<OneShotHandler>]) {
        var withdrawnCount = 0
        for (position, recipient) in recipients.enumerated() {
            if position & 1023 == 1023 { expireIfDue() }
            if inbox.interruptions != seenInterruptions { noteInterruptions() }
            if !withdrawn.isEmpty, let isCancel = withdrawn[recipient.id] {
                withdrawnCount += 1
                machine.noteWithdrawn(oneShotEndedWith: result.status, cancelled: isCancel)
                if isCancel {
                    metrics.cancelled(.oneShot)
                    recipient.handler.cancelled()
                } else {
                    metrics.ended(LocationStatus.forceCompleted, count: 1)
                    var forced = result
                    forced.status = .forceCompleted
                    recipient.handler.deliver(forced, to: recipient.id)
                }
                continue
            }
            recipient.handler.deliver(result, to: recipient.id)
        }
        metrics.ended(result.status, count: recipients.count - withdrawnCount)
    }

    /// Hands one event to each subscription of a group, skipping those a handler withdrew meanwhile;
    /// every 1,024 recipients, what has fallen due meanwhile is processed first.
    @inline(__always)
    func deliver(_ event: SubscriptionEvent, to recipients: [Recipient<SubscriptionHandler>]) {
        var withdrawnCount = 0
        let end: SubscriptionEnd? = if case .ended(let end) = event { end } else { nil }
        for (position, recipient) in recipients.enumerated() {
            if position & 1023 == 1023 { expireIfDue() }
            if inbox.interruptions != seenInterruptions { noteInterruptions() }
            if !withdrawn.isEmpty, let isCancel = withdrawn[recipient.id] {
                withdrawnCount += 1
                // A live subscription is cancelled or force-completed by the core right after this
                // delivery; one that this event ends is ended here, as the handler asked.
                guard end != nil else { continue }
                machine.noteWithdrawn(subscriptionEndedCancelled: isCancel)
                if isCancel {
                    metrics.cancelled(.subscription)
                    recipient.handler.cancelled()
                } else {
                    metrics.ended(SubscriptionEnd.forceCompleted, count: 1)
                    recipient.handler.deliver(.ended(.forceCompleted), to: recipient.id)
                }
                continue
            }
            recipient.handler.deliver(event, to: recipient.id)
        }
        if let end { metrics.ended(end, count: recipients.count - withdrawnCount) }
    }

    /// Reads the cancels and force-completes issued since the batch began.
    func noteInterruptions() {
        seenInterruptions = inbox.interruptions
        let new = inbox.interruptions(from: interruptionLogPosition)
        interruptionLogPosition += new.count
        for (id, isCancel) in new where withdrawn[id] == nil {
            withdrawn[id] = isCancel
            unappliedWithdrawals.append((id, isCancel))
        }
    }

    /// Cancels or force-completes, ahead of the rest of the batch, the requests that handlers withdrew
    /// and that are still pending (their commands stay in the inbox and find nothing to do later).
    func applyWithdrawals() {
        let now = self.now()
        for (id, isCancel) in replace(&unappliedWithdrawals, with: []) where machine.isPending(id) {
            if isCancel {
                machine.cancel(id, now: now, into: &actions)
            } else {
                machine.forceComplete(id, now: now, into: &actions)
            }
        }
        if !actions.isEmpty { performActions() }
    }
}

extension CoreDriver {
    typealias Effects = Machine.Effects

    /// Carries out what one event of the core decided, in order. The core is not mid-update here, so
    /// handlers may re-enter the engine (their submissions queue in the inbox).
    ///
    /// After each handler, withdrawals waiting in the inbox (a handler cancelled or force-completed a
    /// request) go to the core at once, mid-delivery, and their effects are carried out before the next
    /// recipient; while the core says a decided delivery may have been overtaken, each recipient is
    /// checked with it first (a request the withdrawal reached gets its ending instead, a subscription
    /// that ended hears no more updates). Every 1,024 handlers the clock is read, and what has fallen
    /// due meanwhile goes to the core too, its effects first. Interruptions nest on the walk's stack,
    /// not the call stack. Returns whether it delivered anything.
    // Inlined into each caller, so that the effects an event returned move into the walk instead of
    // being copied into it (a callgrind profile showed a copy and a second destruction per cancel).
    @discardableResult
    @inline(__always)
    mutating func perform(_ effects: __owned Effects) -> Bool {
        guard !effects.isEmpty else { return false }
        var walk = EffectsWalk(effects)
        return carryOut(&walk)
    }

    /// Carries out everything `walk` holds, interruptions first (see ``perform(_:)``).
    mutating func carryOut(_ walk: inout EffectsWalk<OneShotHandler, SubscriptionHandler, MonitorHandler>) -> Bool {
        var deliveredAny = false
        while let action = walk.nextAction() {
            switch action {
            case .completeOneShots(let recipients, let result):
                let delivered = walk.deliver(
                    action, to: recipients, overtaken: { machine.hasOvertaken ? machine.reached(oneShot: $0, receiving: result) : nil },
                    hand: { recipient in
                        recipient.handler.deliver(result, to: recipient.id)
                        return afterHandler()
                    })
                if delivered > 0 {
                    deliveredAny = true
                    metrics.ended(result.status, count: delivered)
                }
            case .cancelOneShot(let recipient):
                metrics.cancelled(.oneShot)
                recipient.handler.cancelled()
                if let interruption = afterHandler() { walk.interrupt(with: interruption) }
            case .notifySubscriptions(let recipients, let event):
                let delivered = walk.deliver(
                    action, to: recipients, overtaken: { machine.hasOvertaken ? machine.reached(subscriber: $0, receiving: event) : nil },
                    hand: { recipient in
                        recipient.handler.deliver(event, to: recipient.id)
                        return afterHandler()
                    })
                if delivered > 0 {
                    deliveredAny = true
                    if case .ended(let end) = event { metrics.ended(end, count: delivered) }
                }
            case .notifyRegion(let transition, let recipient):
                // A delivery of one: the monitor's transition, or what overtook it.
                let event = RegionEvent.transition(transition)
                let delivered = walk.deliver(
                    action, to: CollectionOfOne(recipient),
                    overtaken: { machine.hasOvertaken ? machine.reached(monitor: $0, receiving: event) : nil },
                    hand: { recipient in
                        recipient.handler.deliver(event, to: recipient.id)
                        return afterHandler()
                    })
                if delivered > 0 { deliveredAny = true }
            case .notifyMonitors(let recipients, let event):
                let delivered = walk.deliver(
                    action, to: recipients, overtaken: { machine.hasOvertaken ? machine.reached(monitor: $0, receiving: event) : nil },
                    hand: { recipient in
                        recipient.handler.deliver(event, to: recipient.id)
                        return afterHandler()
                    })
                if delivered > 0 {
                    deliveredAny = true
                    if case .ended(let end) = event { metrics.ended(end, count: delivered) }
                }
            case .cancelSubscription(let recipient):
                metrics.cancelled(.subscription)
                recipient.handler.cancelled()
                if let interruption = afterHandler() { walk.interrupt(with: interruption) }
            case .cancelMonitor(let recipient):
                metrics.cancelled(.subscription)
                recipient.handler.cancelled()
                if let interruption = afterHandler() { walk.interrupt(with: interruption) }
            case .startSource(let source, let mode):
                let inbox = inbox, now = now
                sources.start(source, mode: mode) { generation in
                    // Weakly: a source that outlives its engine reports into nothing.
                    SourceEventSink { [weak inbox] event in
                        inbox?.send(.source(source, generation: generation, event, madeAt: now()))
                    }
                }
            case .setSourceMode(let source, let mode):
                sources.setMode(source, mode)
            case .stopSource(let source):
                sources.stop(source, onTime: publishLive().onTime(of: source))
            case .idleSource(let source, let step):
                sources.idle(source, step, onTime: publishLive().onTime(of: source))
            case .fixProcessed(let accepted):
                metrics.fixReceived(dropped: !accepted)
            case .timeoutsExpired(let earliestDeadline):
                metrics.timeoutLateness.recordNanoseconds((now() - earliestDeadline).saturatingNanoseconds)
            case .requestAuthorization(let prompt, let token):
                authorization.askForAuthorization(prompt, token: token)
            case .requestTemporaryFullAccuracy(let prompt, let token):
                authorization.askForTemporaryFullAccuracy(prompt, token: token)
            case .confirmLocationButton(let current, let token):
                authorization.askToConfirmLocationButton(current: current, token: token)
            case .authorizationChanged(let previous, let state):
                // Runs the application's onAuthorizationChange: what it withdraws goes before the change's endings.
                authorization.changed(from: previous, to: state)
                if let interruption = afterHandler() { walk.interrupt(with: interruption) }
            case .tellProviderAuthorizationChanged(let state):
                authorization.provider.engineDidChange(state)
            case .reportConfigurationError(let error):
                if loggedConfigurationErrors.contains(error) {
                    logger.debug("\(error)")
                } else {
                    logger.error("\(error)")
                    if loggedConfigurationErrors.count < Self.loggedErrorsKept { loggedConfigurationErrors.insert(error) }
                }
            }
        }
        return deliveredAny
    }

    /// Between two handlers: withdrawals a handler issued reach the core before the next recipient
    /// (behind any of a burst still waiting: withdrawals reach the core in the order they were made),
    /// and every 1,024 handlers what has fallen due. Returns their effects, to go first; `nil` if none.
    @inline(__always)
    mutating func afterHandler() -> Effects? {
        var interruption: Effects?
        if inbox.hasWithdrawals { interruption = takeWithdrawals(now: passable(now())) }
        handlersRun &+= 1
        guard handlersRun & 1023 == 0, let due = machine.advanceTimeIfDue(now: passable(now()), at: .midDelivery) else { return interruption }
        guard var effects = interruption else { return due }
        effects.append(contentsOf: due)
        return effects
    }

    /// Hands every ready withdrawal to the core mid-delivery, oldest first, and returns their effects
    /// together (`nil` if none). One that must still wait for a barrier command made before it is shown to
    /// the core once, as it arrives (``SchedulerStateMachine/withdrawHeld(_:_:now:at:)``): the delivery under
    /// way skips or replaces what it would hand its request, which no barrier can change.
    mutating func takeWithdrawals(now: EngineInstant) -> Effects? {
        let taken = withdrawals.collect(from: inbox)
        var effects = Effects()
        // The ready ones first: each was made before every one still held (those wait behind a barrier made
        // after it), and the first withdrawal of a request is the one that counts.
        var handedOver = 0
        while let pending = withdrawals.nextReady() {
            handedOver += 1
            effects.append(contentsOf: machine.withdraw(pending.id, pending.withdrawal, now: now, at: .midDelivery))
        }
        for pending in withdrawals.held(from: max(0, taken - handedOver)) {
            machine.withdrawHeld(pending.id, pending.withdrawal, now: now)
        }
        return effects.isEmpty ? nil : effects
    }

    /// Publishes the figures that grow while the sources run (``LiveSourceMetrics``) and returns the
    /// statistics they came from.
    mutating func publishLive() -> SchedulerStatistics {
        let now = self.now()
        let statistics = machine.statistics(now: now)
        live.publish(statistics, to: metrics, now: now)
        return statistics
    }
}

extension SchedulerStatistics {
    /// The total time `source` has been on.
    func onTime(of source: SourceID) -> Duration { sources.isEmpty ? sourceOnTime : sources[source.index].onTime }
}

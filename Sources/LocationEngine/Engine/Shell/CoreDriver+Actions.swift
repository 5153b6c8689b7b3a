extension CoreDriver {
    /// Carries out the core's actions, in order, until it has none left. The core is not mid-update
    /// here, so handlers may re-enter the engine (their submissions queue in the inbox).
    ///
    /// After each handler, withdrawals waiting in the inbox (a handler cancelled or force-completed a
    /// request) go to the core before the next recipient is taken, and the core decides what a request
    /// it had ended but not handed out yet gets. Every 1,024 handlers the clock is read, and what has
    /// fallen due meanwhile goes to the core too; it hands that over after the slice of the delivery in
    /// progress. Nothing here changes what the core decided. Returns whether it delivered anything.
    @discardableResult
    mutating func performActions() -> Bool {
        var deliveredAny = false
        while let action = machine.nextAction() {
            switch action {
            case .completeOneShots(let result):
                var delivered = 0
                while let recipient = machine.nextOneShot() {
                    recipient.handler.deliver(result, to: recipient.id)
                    delivered &+= 1
                    afterHandler()
                }
                if delivered > 0 {
                    deliveredAny = true
                    metrics.ended(result.status, count: delivered)
                }
            case .cancelOneShot(let recipient):
                metrics.cancelled(.oneShot)
                recipient.handler.cancelled()
                afterHandler()
            case .notifySubscriptions(let event):
                var delivered = 0
                while let recipient = machine.nextSubscriber() {
                    recipient.handler.deliver(event, to: recipient.id)
                    delivered &+= 1
                    afterHandler()
                }
                if delivered > 0 { deliveredAny = true }
                if case .ended(let end) = event, delivered > 0 { metrics.ended(end, count: delivered) }
            case .notifyRegion(let event, let recipient):
                recipient.handler.deliver(event)
                deliveredAny = true
                afterHandler()
            case .cancelSubscription(let recipient):
                metrics.cancelled(.subscription)
                recipient.handler.cancelled()
                afterHandler()
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
                authorization.changed(from: previous, to: state)
            case .tellProviderAuthorizationChanged(let state):
                authorization.provider.engineDidChange(state)
            case .reportConfigurationError(let error):
                logger.error("\(error)")
            }
        }
        return deliveredAny
    }

    /// Between two handlers: withdrawals a handler issued reach the core before the next recipient is
    /// taken (behind any of a burst still waiting: withdrawals reach the core in the order they were
    /// made), and every 1,024 handlers what has fallen due is handed to the core.
    @inline(__always)
    mutating func afterHandler() {
        if inbox.hasWithdrawals { takeWithdrawals(now: now(), all: true) }
        handlersRun &+= 1
        guard handlersRun & 1023 == 0 else { return }
        machine.advanceTimeIfDue(now: now())
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

import DequeModule

extension LocationEngine {
    /// Processes every queued command, in order, until the inbox is empty. Every 256 commands (however
    /// the inbox hands them over) it looks at the clock, and what has fallen due meanwhile (deadlines,
    /// the end of the linger) is processed there, between two commands, instead of after the whole backlog.
    func drain() {
        var batch = replace(&spareBatch, with: Deque())
        defer { spareBatch = batch }
        // Counted across batches: a stream of small batches gets its clock checks too.
        var processed = 0
        while true {
            inbox.takeAll(into: &batch, interruptions: &batchInterruptions)
            if batch.isEmpty { break }
            // After a burst, the buffers go back to a small size instead of holding the burst's memory.
            let shrink = batch.count > 1 << 16
            withdrawn.removeAll(keepingCapacity: true)
            interruptionLogPosition = 0
            batchInterruptionsProcessed = 0
            var now = self.now()
            while let command = batch.popFirst() {  // moves each command out: no copy of its handler
                processed &+= 1
                if processed & 255 == 0 {
                    now = self.now()
                    if let next = nextWakeup, next <= now { expireDue(now: now) }
                }
                // Authorization changes due by now apply before anything that arrives later (a fix
                // after a due reduction is coarsened; a change reported now is not overtaken by an
                // older one).
                if let due = machine.nextAuthorizationChange, due <= now { machine.applyDueAuthorizationChanges(upTo: now, into: &actions) }
                let fixReportedAt = process(command, now: now)
                if !actions.isEmpty {
                    performActions()
                    // A fix that completes many one-shots does so in pieces, with what falls due in between.
                    while machine.isCompletingFix { expireDue(now: self.now(), continuingFix: true) }
                    if let fixReportedAt {
                        metrics.fixDeliveryLatency.recordNanoseconds((self.now() - fixReportedAt).saturatingNanoseconds)
                    }
                }
            }
            if shrink { batch = Deque() }
        }
    }

    /// Hands one command to the core. Returns when the fix it carried reached the engine, if it carried one.
    func process(_ command: consuming EngineCommand, now: EngineInstant) -> EngineInstant? {
        switch consume command {
        case .oneShot(let id, let accuracy, let timeout, let madeAt, let handler):
            metrics.submitted(.oneShot)
            machine.submitOneShot(
                id, accuracy: accuracy, timeout: timeout, delayUntilAuthorized: false, purposeKey: nil, madeAt: madeAt, handler: handler,
                now: now, into: &actions)
        case .oneShotWithOptions(let id, let accuracy, let timeout, let madeAt, let delay, let purposeKey, let handler):
            metrics.submitted(.oneShot)
            machine.submitOneShot(
                id, accuracy: accuracy, timeout: timeout, delayUntilAuthorized: delay, purposeKey: purposeKey, madeAt: madeAt,
                handler: handler, now: now, into: &actions)
        case .subscribe(let id, let options, let madeAt, let handler):
            metrics.submitted(.subscription)
            machine.subscribe(id, options: options, madeAt: madeAt, handler: handler, now: now, into: &actions)
        case .cancel(let id):
            batchInterruptionsProcessed &+= 1
            machine.cancel(id, now: now, into: &actions)
        case .forceComplete(let id):
            batchInterruptionsProcessed &+= 1
            machine.forceComplete(id, now: now, into: &actions)
        case .source(let generation, let event, let madeAt):
            guard generation == sourceGeneration, machine.isSourceOn else { return nil }
            switch event {
            case .location(let location, let age):
                let fixes = machine.counters.invalidFixes &+ machine.counters.fixesThrottled
                machine.receiveFix(location, age: age, now: now, into: &actions)
                metrics.fixReceived(dropped: machine.counters.invalidFixes &+ machine.counters.fixesThrottled != fixes)
                return madeAt
            case .transientError(let error):
                logger.notice("location source transient error", metadata: ["error": "\(error)"])
                machine.receiveTransientError(error, now: now, into: &actions)
            case .fatalError(let error):
                logger.error("location source failed", metadata: ["error": "\(error)"])
                machine.receiveFatalError(error, now: now, into: &actions)
            }
        case .authorization(let state, let due, let prompt):
            machine.receiveAuthorization(state, due: due, answering: prompt, now: now, into: &actions)
        case .endSession:
            machine.endSession(now: now, into: &actions)
        case .locationButton:
            machine.pressLocationButton(now: now, into: &actions)
        case .observeAuthorization(let id, let continuation):
            continuation.yield(machine.authorizationPicture)
            if machine.isShutDown {
                continuation.finish()
            } else {
                authorizationObservers[id] = continuation
            }
        case .stopObservingAuthorization(let id):
            authorizationObservers[id] = nil
        case .shutdown:
            machine.shutdown(now: now, into: &actions)
            for observer in authorizationObservers.values { observer.finish() }
            authorizationObservers.removeAll()
        }
        return nil
    }

    /// Processes queued commands and everything due at the clock's current time (the core applies
    /// scheduled authorization changes in time order, each at its own instant), until nothing is left: deadlines
    /// that fall due while it works are processed in the same pass, not after another timer cycle.
    func advance() {
        while true {
            drain()
            let now = self.now()
            guard let next = nextWakeup, next <= now else { break }
            expireDue(now: now)
        }
        metrics.pending(oneShots: machine.oneShots.count, subscriptions: machine.subscriptions.count)
    }

    /// Processes what is due at `now` — deadlines, the end of the linger, scheduled authorization
    /// changes — and, `continuingFix`, the next piece of the fix being completed; then performs the
    /// result. Cancels and force-completes issued before this pass but not yet processed (later in the
    /// current batch, or still in the inbox) are honoured: a request they name is not handed a timeout.
    func expireDue(now: EngineInstant, continuingFix: Bool = false) {
        noteBatchWithdrawals()
        let timedOut = machine.counters.oneShotsTimedOut
        let firstDue = machine.deadlines.earliest
        if continuingFix {
            machine.continueFixCompletion(now: now, into: &actions)
        } else {
            machine.advanceTime(now: now, into: &actions)
        }
        if !actions.isEmpty { performActions() }
        if machine.counters.oneShotsTimedOut != timedOut, let firstDue {
            metrics.timeoutLateness.recordNanoseconds((self.now() - firstDue).saturatingNanoseconds)
        }
    }

    /// Between two pieces of a long delivery: processes what has fallen due meanwhile, so a timeout
    /// does not wait for a fix's hundreds of thousands of deliveries to finish. Passes nest at most a
    /// few deep (a pass delivering a large group may run another).
    func expireIfDue() {
        guard expiryNesting < 4, let next = nextWakeup else { return }
        let now = self.now()
        guard next <= now else { return }
        expiryNesting += 1
        defer { expiryNesting -= 1 }
        expireDue(now: now)
    }

    /// Notes the cancels and force-completes further on in the current batch as withdrawals, so an
    /// expiry pass that runs before the batch reaches them honours them.
    func noteBatchWithdrawals() {
        guard batchInterruptionsProcessed < batchInterruptions.count else { return }
        for (id, isCancel) in batchInterruptions[batchInterruptionsProcessed...] where withdrawn[id] == nil {
            withdrawn[id] = isCancel
            unappliedWithdrawals.append((id, isCancel))
        }
        batchInterruptionsProcessed = batchInterruptions.count
    }
}

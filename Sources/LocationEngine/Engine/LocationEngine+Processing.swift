import DequeModule

extension LocationEngine {
    /// Processes every queued command, in order, until the inbox is empty. Withdrawals waiting in
    /// their lane reach the core before each command. Every 256 commands (however the inbox hands them
    /// over) the engine looks at the clock, and what has fallen due meanwhile (deadlines, the end of
    /// the linger, scheduled authorization changes) is processed there, between two commands, instead
    /// of after the whole backlog.
    func drain() {
        var batch = replace(&spareBatch, with: Deque())
        defer { spareBatch = batch }
        // Counted across batches: a stream of small batches gets its clock checks too.
        var processed = 0
        var now = self.now()
        while true {
            carryOutWithdrawals(now: now)
            inbox.takeAll(into: &batch)
            if batch.isEmpty {
                if hasWithdrawals { continue }
                break
            }
            // After a burst, the buffers go back to a small size instead of holding the burst's memory.
            let shrink = batch.count > 1 << 16
            now = self.now()
            while let command = batch.popFirst() {  // moves each command out: no copy of its handler
                processed &+= 1
                if processed & 255 == 0 { now = self.now() }
                carryOutWithdrawals(now: now)
                if machine.advanceTimeIfDue(now: now) { performActions() }
                let fixReportedAt = process(command, now: now)
                if performActions(), let fixReportedAt {
                    metrics.fixDeliveryLatency.recordNanoseconds((self.now() - fixReportedAt).saturatingNanoseconds)
                }
            }
            if shrink { batch = Deque() }
        }
    }

    /// Hands one command to the core. Returns when the fix it carried reached the engine, if it carried one.
    func process(_ command: consuming EngineCommand, now: EngineInstant) -> EngineInstant? {
        // A barrier case counts itself (``EngineCommand/isBarrier``): testing the command before the
        // switch would copy it, its handler retained and released, for every submission.
        switch consume command {
        case .oneShot(let id, let accuracy, let timeout, let madeAt, let handler):
            metrics.submitted(.oneShot)
            machine.submitOneShot(
                id, accuracy: accuracy, timeout: timeout, delayUntilAuthorized: false, purposeKey: nil, madeAt: madeAt, handler: handler,
                now: now)
        case .oneShotWithOptions(let id, let accuracy, let timeout, let madeAt, let delay, let purposeKey, let handler):
            metrics.submitted(.oneShot)
            machine.submitOneShot(
                id, accuracy: accuracy, timeout: timeout, delayUntilAuthorized: delay, purposeKey: purposeKey, madeAt: madeAt,
                handler: handler, now: now)
        case .subscribe(let id, let options, let madeAt, let handler):
            metrics.submitted(.subscription)
            machine.subscribe(id, options: options, madeAt: madeAt, handler: handler, now: now)
        case .monitor(let id, let region, let options, let madeAt, let handler):
            metrics.submitted(.subscription)
            machine.monitor(id, region: region, options: options, madeAt: madeAt, handler: handler, now: now)
        case .source(let source, let generation, let event, let madeAt):
            let current = sourceGenerations[source.index]
            if case .receiverState(let state, let age) = event {
                // The latest session's, running or just stopped: a power-down is confirmed after the stop.
                if generation == current || generation &+ 1 == current {
                    machine.receiveReceiverState(state, age: age, now: now, source: source)
                }
                return nil
            }
            if case .receiverTracking(let mode, let age) = event {
                // The latest session's, running or just stopped: a setting may be confirmed after the stop.
                if generation == current || generation &+ 1 == current {
                    machine.receiveReceiverTracking(mode, age: age, now: now, source: source)
                }
                return nil
            }
            guard generation == current, inspect({ $0.isOn(source) }) else { return nil }
            switch event {
            case .location(let location, let age):
                metrics.sources[source.index].fixes.increment()
                machine.receiveFix(location, age: age, now: now, source: source)
                return madeAt
            case .transientError(let error):
                logger.notice("location source transient error", metadata: ["source": "\(source.index)", "error": "\(error)"])
                metrics.sources[source.index].transientErrors.increment()
                machine.receiveTransientError(error, now: now)
            case .fatalError(let error):
                logger.error("location source failed", metadata: ["source": "\(source.index)", "error": "\(error)"])
                metrics.sources[source.index].fatalErrors.increment()
                machine.receiveFatalError(error, now: now, source: source)
            case .receiverState, .receiverTracking:
                break
            }
        case .authorization(let state, let due, let prompt):
            barriersProcessed &+= 1
            machine.receiveAuthorization(state, due: due, answering: prompt, now: now)
        case .endSession:
            barriersProcessed &+= 1
            machine.endSession(now: now)
        case .locationButton:
            barriersProcessed &+= 1
            machine.pressLocationButton(now: now)
        case .observeAuthorization(let id, let continuation):
            continuation.yield(machine.authorizationState)
            if machine.isShutDown {
                continuation.finish()
            } else {
                authorizationObservers[id] = continuation
            }
        case .stopObservingAuthorization(let id):
            authorizationObservers[id] = nil
        case .shutdown:
            barriersProcessed &+= 1
            machine.shutdown(now: now)
            stopAuthorizationProvider()
            perform(inbox.close(finalAuthorization: machine.authorizationState))
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
            guard machine.advanceTimeIfDue(now: now) else { break }
            performActions()
        }
        metrics.pending(oneShots: inspect { $0.pendingOneShots }, subscriptions: inspect { $0.activeSubscriptions })
    }

    /// Between two commands: hands every waiting withdrawal to the core a slice at a time, carrying out
    /// each slice's endings before the next.
    func carryOutWithdrawals(now: EngineInstant) {
        while hasWithdrawals {
            takeWithdrawals(now: now)
            performActions()
        }
    }

    /// Whether withdrawals wait, in the inbox's lane or taken from it.
    var hasWithdrawals: Bool {
        if withdrawalBuffer.isEmpty { return inbox.hasWithdrawals }
        return isReady(withdrawalBuffer[withdrawalBuffer.startIndex]) || inbox.hasWithdrawals
    }

    /// Whether a withdrawal may reach the core: every barrier appended before it has been processed.
    @inline(__always)
    func isReady(_ pending: PendingWithdrawal) -> Bool { pending.afterBarriers <= barriersProcessed }

    /// Hands waiting withdrawals to the core, which decides what each request gets, oldest first.
    ///
    /// Between commands they go a slice of ``withdrawalSlice`` at a time, and the caller carries out a
    /// slice's endings before taking the next: the core queues an ending per withdrawal, and a burst of
    /// 100k cancels handed over at once would queue 100k endings before the first is carried out
    /// (megabytes of queue, grown by copying). Between two handlers (`all`) everything waiting goes,
    /// so that a handler's cancel is decided before the next delivery even behind a burst.
    func takeWithdrawals(now: EngineInstant, all: Bool = false) {
        if withdrawalBuffer.isEmpty {
            inbox.takeWithdrawals(into: &withdrawalBuffer)
        } else if inbox.hasWithdrawals {
            var newer = Deque<PendingWithdrawal>()
            inbox.takeWithdrawals(into: &newer)
            withdrawalBuffer.append(contentsOf: newer)
        }
        var handed = 0
        // Oldest first, and none past one still waiting for a barrier: withdrawals keep their order.
        while all || handed < Self.withdrawalSlice, let first = withdrawalBuffer.first, isReady(first) {
            withdrawalBuffer.removeFirst()
            machine.withdraw(first.id, first.withdrawal, now: now)
            handed &+= 1
        }
    }

    /// How many withdrawals reach the core at a time between commands.
    static var withdrawalSlice: Int { 1_024 }
}

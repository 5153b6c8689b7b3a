import DequeModule
import Logging

/// Drives the core for the engine: hands it the inbox's commands in the order they were made (the
/// withdrawals waiting in their lane before each command), hands it the time, and carries out the
/// effects of each event (``perform(_:)``) with the sources, the authorization provider and the
/// requests' handlers. It decides nothing itself.
///
/// The engine actor holds it and calls it from its loop, from `sync()` and from its readers; handlers
/// run between two events of the core and may re-enter the engine only through its inbox.
///
/// It is not generic over the engine's clock (it reads the time through ``now``): a generic driver would
/// have its type's metadata looked up at every call from the actor, a few hundred instructions per request.
struct CoreDriver {
    typealias Machine = SchedulerStateMachine<OneShotHandler, SubscriptionHandler, MonitorHandler>

    /// The core: every request, deadline, region and power decision.
    var machine: Machine
    /// The sources and whether each runs.
    var sources: SourceSessions
    /// The authorization provider and the observers of the picture.
    var authorization: AuthorizationBridge
    /// Withdrawals taken from the inbox and not yet handed to the core.
    var withdrawals = WithdrawalLane()
    /// The emptied buffer of the last batch, traded with the inbox's for the next one.
    var spareBatch = Deque<EngineCommand>()
    /// The instants the authorization changes of the batch being processed are due at, in their order: the
    /// time passed before each command stops at the first of them until that change is processed, so that a
    /// change handed over late applies before the deadlines after its instant, as the core orders them.
    var authorizationDues = Deque<EngineInstant>()
    /// Handlers run so far: every 1,024 the clock is read during a delivery.
    var handlersRun = 0
    /// The sources' growing figures, published while they run.
    var live = LiveSourceMetrics()
    /// The configuration errors logged so far: each is logged once at `error`, again at `debug` (every request
    /// made while nothing is declared reports one). Up to ``loggedErrorsKept`` distinct errors are remembered.
    var loggedConfigurationErrors: Set<ConfigurationError> = []
    static let loggedErrorsKept = 64
    /// How long a source's event may wait to be processed and still count as processed when reported: its
    /// age is its own below this, and grows by the whole wait above it.
    static let promptProcessing = Duration.seconds(1)
    let inbox: Inbox
    /// The current instant on the engine's timeline.
    let now: @Sendable () -> EngineInstant
    let metrics: EngineMetrics
    let logger: Logger

    init(
        machine: Machine, sources: SourceSessions, authorization: AuthorizationBridge, inbox: Inbox, now: @escaping @Sendable () -> EngineInstant,
        metrics: EngineMetrics, logger: Logger
    ) {
        self.machine = machine
        self.sources = sources
        self.authorization = authorization
        self.inbox = inbox
        self.now = now
        self.metrics = metrics
        self.logger = logger
    }

    /// Processes every queued command, in order, until the inbox is empty. Withdrawals waiting in
    /// their lane reach the core before each command. Every 256 commands (however the inbox hands them
    /// over) the engine looks at the clock, and what has fallen due meanwhile (deadlines, the end of
    /// the linger, scheduled authorization changes) is processed there, between two commands, instead
    /// of after the whole backlog.
    mutating func drain() {
        var batch = replace(&spareBatch, with: Deque())
        defer { spareBatch = batch }
        // Counted across batches: a stream of small batches gets its clock checks too.
        var processed = 0
        var now = self.now()
        while true {
            carryOutWithdrawals(now: passable(now))
            inbox.takeAll(into: &batch, authorizationDues: &authorizationDues)
            if batch.isEmpty {
                if hasWithdrawals { continue }
                break
            }
            // After a burst, the buffers go back to a small size instead of holding the burst's memory.
            let shrink = batch.count > 1 << 16
            now = self.now()
            while !batch.isEmpty {
                processed &+= 1
                if processed & 255 == 0 { now = self.now() }
                // Up to the due instant of an authorization change waiting, not beyond (per command, an empty
                // deque's test and an atomic load: changes are rare).
                let present = passable(now)
                carryOutWithdrawals(now: present)
                if let due = machine.advanceTimeIfDue(now: present) { perform(due) }
                // Moved out of the batch straight into `process`: no copy of the command and its handler.
                var fixMadeAt: EngineInstant?
                let effects = process(batch.removeFirst(), now: present, fixMadeAt: &fixMadeAt)
                if perform(effects), let fixMadeAt {
                    metrics.fixDeliveryLatency.recordNanoseconds((self.now() - fixMadeAt).saturatingNanoseconds)
                }
            }
            if shrink { batch = Deque() }
        }
    }

    /// Hands one command to the core and returns the effects it decided; `fixMadeAt` is set to when the
    /// fix it carried reached the engine, if it carried one. (An out-parameter rather than a tuple: the
    /// runtime destroyed the tuple through its generic witness, 35 instructions per request.)
    mutating func process(_ command: consuming EngineCommand, now: EngineInstant, fixMadeAt: inout EngineInstant?) -> Effects {
        // A barrier case counts itself (``EngineCommand/isBarrier``): testing the command before the
        // switch would copy it, its handler retained and released, for every submission.
        switch consume command {
        case .oneShot(let id, let accuracy, let timeout, let madeAt, let handler):
            metrics.submitted(.oneShot)
            return machine.submitOneShot(
                id, accuracy: accuracy, timeout: timeout, delayUntilAuthorized: false, purposeKey: nil, madeAt: madeAt, handler: handler,
                now: now)
        case .oneShotWithOptions(let id, let accuracy, let timeout, let madeAt, let delay, let purposeKey, let handler):
            metrics.submitted(.oneShot)
            return machine.submitOneShot(
                id, accuracy: accuracy, timeout: timeout, delayUntilAuthorized: delay, purposeKey: purposeKey, madeAt: madeAt,
                handler: handler, now: now)
        case .subscribe(let id, let options, let madeAt, let handler):
            metrics.submitted(.subscription)
            return machine.subscribe(id, options: options, madeAt: madeAt, handler: handler, now: now)
        case .monitor(let id, let region, let options, let madeAt, let handler):
            metrics.submitted(.subscription)
            return machine.monitor(id, region: region, options: options, madeAt: madeAt, handler: handler, now: now)
        case .source(let source, let generation, let event, let madeAt):
            // An age counts from when the source measured it: the time the event waited to be processed is added
            // once it passes a second (a busy engine, a slow handler), so a fix reported 20 s ago is not taken for a
            // fresh one — and a fix processed at once, microseconds after its report on the wall clock, still meets
            // a maximum age of zero. A negative age (a fix from the future: a source's clock ahead) stays as
            // reported, invalid however long it waited.
            let wait = now - madeAt
            let waited = wait > Self.promptProcessing ? wait : .zero
            func aged(_ age: Duration) -> Duration { age < .zero ? age : age + waited }
            switch event {
            case .receiverState(let state, let age):
                // The latest session's, running or just stopped: a power-down is confirmed after the stop.
                if sources.isCurrent(generation, of: source, orJustEnded: true) {
                    return machine.receiveReceiverState(state, age: aged(age), now: now, source: source)
                }
            case .receiverTracking(let mode, let age):
                // The latest session's, running or just stopped: a setting may be confirmed after the stop.
                if sources.isCurrent(generation, of: source, orJustEnded: true) {
                    return machine.receiveReceiverTracking(mode, age: aged(age), now: now, source: source)
                }
            case .location(let location, let age):
                guard sources.isCurrent(generation, of: source), machine.isOn(source) else { return Effects() }
                metrics.sources[source.index].fixes.increment()
                let effects = machine.receiveFix(location, age: aged(age), now: now, source: source)
                if live.isDue(now: now) { _ = publishLive() }
                fixMadeAt = madeAt
                return effects
            case .transientError(let error):
                guard sources.isCurrent(generation, of: source), machine.isOn(source) else { return Effects() }
                logger.notice("location source transient error", metadata: ["source": "\(source.index)", "error": "\(error)"])
                metrics.sources[source.index].transientErrors.increment()
                return machine.receiveTransientError(error, now: now, source: source)
            case .fatalError(let error):
                guard sources.isCurrent(generation, of: source), machine.isOn(source) else { return Effects() }
                logger.error("location source failed", metadata: ["source": "\(source.index)", "error": "\(error)"])
                metrics.sources[source.index].fatalErrors.increment()
                return machine.receiveFatalError(error, now: now, source: source)
            }
        case .authorization(let state, let due, let prompt):
            authorizationDues.removeFirst()
            withdrawals.barrierProcessed()
            return machine.receiveAuthorization(state, due: due, answering: prompt, now: now)
        case .endSession:
            withdrawals.barrierProcessed()
            return machine.endSession(now: now)
        case .locationButton:
            withdrawals.barrierProcessed()
            return machine.pressLocationButton(now: now)
        case .observeAuthorization(let id, let continuation):
            authorization.observe(id, continuation, current: machine.authorizationState)
        case .stopObservingAuthorization(let id):
            authorization.stopObserving(id)
        case .shutdown:
            withdrawals.barrierProcessed()
            let effects = machine.shutdown(now: now)
            authorization.shutDown()
            inbox.close(finalAuthorization: machine.authorizationState).carryOut()
            return effects
        }
        return Effects()
    }

    /// How far the loop may pass the time: to `now`, or only to the earliest due instant of an authorization change
    /// still waiting — in the batch or not yet taken — when that is earlier (the core applies it at that instant,
    /// after what fell due before it and before what falls due after). Every instant the loop hands the core goes
    /// through here: the core's time never goes back, so one reading past a waiting change would carry every
    /// later event past it.
    /// - Complexity: O(1) when no change waits; else O(k) for the k changes waiting.
    @inline(__always)
    func passable(_ now: EngineInstant) -> EngineInstant {
        var passable = now
        // Due instants are the report's time plus a delay: not in the order the changes were appended.
        if !authorizationDues.isEmpty, let earliest = authorizationDues.min() { passable = min(passable, earliest) }
        if let waiting = inbox.earliestAuthorizationDue { passable = min(passable, waiting) }
        return passable
    }

    /// Processes queued commands and everything due at the clock's current time (the core applies
    /// scheduled authorization changes in time order, each at its own instant), until nothing is left: deadlines
    /// that fall due while it works are processed in the same pass, not after another timer cycle.
    mutating func advance() {
        while true {
            drain()
            let now = passable(self.now())
            guard let due = machine.advanceTimeIfDue(now: now) else { break }
            perform(due)
        }
        // Shut down, its endings handed out (a handler's withdrawals among them reached the core): later ones
        // have nothing left to end.
        if machine.isShutDown { inbox.closeWithdrawals() }
        metrics.pending(oneShots: machine.pendingOneShots, subscriptions: machine.activeSubscriptions)
    }

    /// Between two commands: hands every ready withdrawal to the core, oldest first, carrying out each
    /// one's effects before the next (a burst of cancels never piles up endings not carried out). One that
    /// must still wait for a barrier command made before it is shown to the core as it arrives
    /// (``SchedulerStateMachine/withdrawHeld(_:_:now:at:)``), as it is after a handler.
    @inline(__always)
    mutating func carryOutWithdrawals(now: EngineInstant) {
        // The test inline, the work apart: it runs before every command, and most find nothing waiting.
        if hasWithdrawals { carryOutWaitingWithdrawals(now: now) }
    }

    @inline(never)
    private mutating func carryOutWaitingWithdrawals(now: EngineInstant) {
        while hasWithdrawals {
            let taken = withdrawals.collect(from: inbox)
            // Shown before the ready ones are handed over (their handlers may take more from the lane): between
            // events that order changes nothing, as a ready withdrawal of a held request clears what was held.
            for pending in withdrawals.held(from: taken) {
                machine.withdrawHeld(pending.id, pending.withdrawal, now: now, at: .betweenEvents)
            }
            while let pending = withdrawals.nextReady() { perform(machine.withdraw(pending.id, pending.withdrawal, now: now)) }
        }
    }

    /// Whether withdrawals wait, in the inbox's lane or taken from it.
    var hasWithdrawals: Bool { withdrawals.hasReady(inbox) }
}

import DequeModule
import HeapModule
import Logging
import NIOConcurrencyHelpers

/// Multiplexes many concurrent location requests — one-shots with their own accuracy and timeout,
/// continuous subscriptions — over one ``LocationSource``, which it runs only while a request needs
/// fixes and only as hard as the most demanding one needs (SEMANTICS §3–§5, §7).
///
/// The engine is an actor around a pure ``SchedulerStateMachine``. Requests enter through a lock-light
/// inbox from any thread and get their ``RequestID`` at once; the actor processes them in batches,
/// runs **one** timer for every deadline, and delivers results after each state transition, never
/// while the state machine is mid-update. Handlers may make or cancel requests re-entrantly.
///
/// Callback handlers run on the engine's executor: keep them short (hand heavy work to a task).
public actor LocationEngine<C: Clock> where C.Duration == Duration {
    typealias Machine = SchedulerStateMachine<OneShotHandler, SubscriptionHandler>

    let source: any LocationSource
    let clock: C
    let epoch: C.Instant
    let configuration: LocationEngineConfiguration
    let logger: Logger
    nonisolated let inbox = Inbox()

    var machine: Machine
    var actions: [Machine.Action] = []
    /// Incremented on every source start and stop; events carrying an older value are dropped.
    var sourceGeneration: UInt64 = 0
    var timer: Task<Void, Never>?
    var timerDeadline: EngineInstant?
    var timerToken: UInt64 = 0

    // Authorization (LocationEngine+Authorization.swift)
    let authorizationProvider: any AuthorizationProvider
    var currentAuthorization: AuthorizationState
    var locationButtonConfirmed = false
    var openPrompts: [UInt64: PromptKind] = [:]
    var nextPromptToken: UInt64 = 0
    /// Authorization changes that take effect later on the engine's clock, by (due, sequence).
    var scheduledAuthorizationChanges = Heap<ScheduledAuthorizationChange>()
    var authorizationChangeSequence: UInt64 = 0
    var authorizationObservers: [RequestID: AsyncStream<AuthorizationState>.Continuation] = [:]

    /// Creates an engine over `source`, timing with `clock`.
    public init(
        source: any LocationSource,
        clock: C,
        configuration: LocationEngineConfiguration = LocationEngineConfiguration(),
        logger: Logger = Logger(label: "LocationEngine")
    ) {
        self.source = source
        self.clock = clock
        self.epoch = clock.now
        self.configuration = configuration
        self.logger = logger
        self.authorizationProvider = configuration.authorizationProvider
        let authorization = configuration.authorizationProvider.currentState()
        self.currentAuthorization = authorization
        self.machine = Machine(
            configuration: .init(
                linger: configuration.linger,
                sourceCapabilities: source.capabilities,
                initialAuthorization: authorization.gate,
                initialAccuracy: authorization.accuracy,
                reducedAccuracy: configuration.reducedAccuracy,
                purposeKeys: Set(configuration.usage.temporaryFullAccuracyPurposes.keys)))
        authorizationProvider.start(changes: AuthorizationChangeSink { [weak self] state, delay in
            self?.submitAuthorization(state, after: delay, prompt: nil)
        })
    }

    /// The current instant on the engine's timeline.
    nonisolated func now() -> EngineInstant { EngineInstant(epoch.duration(to: clock.now)) }

    // MARK: Entry points (nonisolated, from any thread)

    /// Appends a command for a new request and schedules a drain if the inbox was idle.
    nonisolated func submit(_ make: (RequestID) -> EngineCommand) -> RequestID {
        let (id, scheduleDrain) = inbox.append(make)
        if scheduleDrain { scheduleDrainTask() }
        return id
    }

    /// Appends a command and schedules a drain if the inbox was idle.
    nonisolated func submit(_ command: EngineCommand) {
        if inbox.append(command) { scheduleDrainTask() }
    }

    nonisolated func scheduleDrainTask() {
        Task { await self.drain() }
    }

    // MARK: Processing (isolated)

    /// Processes every queued command, in order, until the inbox is empty; then re-arms the timer.
    func drain() {
        while true {
            var batch = inbox.takeAll()
            if batch.isEmpty { break }
            var now = self.now()
            var processed = 0
            while let command = batch.popFirst() {  // moves each command out: no copy of its handler
                processed &+= 1
                if processed & 255 == 0 { now = self.now() }
                // Authorization changes due by now apply before anything that arrives later (a fix
                // after a due reduction is coarsened; a change reported now is not overtaken by an
                // older one).
                if let due = scheduledAuthorizationChanges.min?.due, due <= now { applyDueAuthorizationChanges(upTo: now) }
                process(command, now: now)
                if !actions.isEmpty { performActions() }
            }
        }
        rearmTimer()
    }

    func process(_ command: consuming EngineCommand, now: EngineInstant) {
        switch consume command {
        case .oneShot(let id, let accuracy, let timeout, let delay, let handler):
            machine.submitOneShot(id, accuracy: accuracy, timeout: timeout, delayUntilAuthorized: delay, handler: handler, now: now, into: &actions)
        case .oneShotWithPurposeKey(let id, let accuracy, let timeout, let delay, let purposeKey, let handler):
            machine.submitOneShot(
                id, accuracy: accuracy, timeout: timeout, delayUntilAuthorized: delay, purposeKey: purposeKey, handler: handler, now: now,
                into: &actions)
        case .subscribe(let id, let options, let handler):
            machine.subscribe(id, options: options, handler: handler, now: now, into: &actions)
        case .cancel(let id):
            machine.cancel(id, now: now, into: &actions)
        case .forceComplete(let id):
            machine.forceComplete(id, now: now, into: &actions)
        case .source(let generation, let event):
            guard generation == sourceGeneration, machine.isSourceOn else { return }
            switch event {
            case .location(let location, let age):
                machine.receiveFix(location, age: age, now: now, into: &actions)
            case .transientError(let error):
                logger.notice("location source transient error", metadata: ["error": "\(error)"])
                machine.receiveTransientError(error, now: now, into: &actions)
            case .fatalError(let error):
                logger.error("location source failed", metadata: ["error": "\(error)"])
                machine.receiveFatalError(error, now: now, into: &actions)
            }
        case .authorization(let state, let due, let prompt):
            receiveAuthorization(state, due: due, prompt: prompt, now: now)
        case .endSession:
            endSessionNow(now: now)
        case .locationButton:
            locationButtonPressedNow(now: now)
        case .observeAuthorization(let id, let continuation):
            continuation.yield(currentAuthorization)
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
            scheduledAuthorizationChanges = Heap()
            openPrompts.removeAll()
        }
    }

    /// Executes the actions of the last transition. The state machine is not mid-update here, so
    /// handlers may re-enter the engine (their submissions queue in the inbox).
    func performActions() {
        var index = 0
        while index < actions.count {
            switch actions[index] {
            case .completeOneShots(let recipients, let result):
                for recipient in recipients { recipient.handler.deliver(result, to: recipient.id) }
            case .cancelOneShot(let handler):
                handler.cancelled()
            case .notifySubscriptions(let recipients, let event):
                for recipient in recipients { recipient.handler.deliver(event, to: recipient.id) }
            case .cancelSubscription(let handler):
                handler.cancelled()
            case .startSource(let mode):
                sourceGeneration &+= 1
                let generation = sourceGeneration
                logger.debug("starting location source", metadata: ["mode": "\(mode)"])
                let sink = SourceEventSink { [weak self] event in
                    self?.submit(.source(generation: generation, event))
                }
                source.start(mode: mode, events: sink)
            case .setSourceMode(let mode):
                logger.debug("changing location source mode", metadata: ["mode": "\(mode)"])
                source.setMode(mode)
            case .stopSource:
                sourceGeneration &+= 1
                logger.debug("stopping location source")
                source.stop()
            case .requestAuthorization:
                askForAuthorization()
            case .requestTemporaryFullAccuracy(let purposeKey):
                askForTemporaryFullAccuracy(purposeKey)
            }
            index += 1
        }
        actions.removeAll(keepingCapacity: actions.count < 1024)
    }

    // MARK: The one timer

    /// Makes sure one timer task sleeps until the machine's next wake-up (restarting it only when the
    /// wake-up moved earlier).
    func rearmTimer() {
        guard let next = nextWakeup else {
            cancelTimer()
            return
        }
        if timer != nil, let current = timerDeadline, current <= next { return }
        cancelTimer()
        timerToken &+= 1
        let token = timerToken
        timerDeadline = next
        let deadline = epoch.advanced(by: next.sinceEpoch)
        let clock = self.clock
        timer = Task { [weak self] in
            do {
                // Zero tolerance: with `nil`, the Dispatch-based executor on Linux applies its default
                // leeway (about 10 % of the interval), which made timeouts fire tens of ms late.
                try await clock.sleep(until: deadline, tolerance: .zero)
            } catch {
                return
            }
            await self?.timerFired(token: token)
        }
    }

    func cancelTimer() {
        timer?.cancel()
        timer = nil
        timerDeadline = nil
    }

    func timerFired(token: UInt64) {
        guard token == timerToken else { return }
        timer = nil
        timerDeadline = nil
        advance()
    }

    /// When the engine next needs to run on its own: the state machine's next wake-up or the next
    /// scheduled authorization change.
    var nextWakeup: EngineInstant? {
        earliest(machine.nextWakeup, scheduledAuthorizationChanges.min?.due)
    }

    /// Processes queued commands and everything due at the clock's current time (scheduled
    /// authorization changes in time order, each at its own instant).
    func advance() {
        drain()
        applyDueAuthorizationChanges(upTo: now())
        machine.advanceTime(now: now(), into: &actions)
        if !actions.isEmpty { performActions() }
        drain()
    }

    deinit {
        timer?.cancel()
    }
}

extension LocationEngine where C == ContinuousClock {
    /// Creates an engine over `source` on the continuous (monotonic, wall) clock.
    public init(
        source: any LocationSource,
        configuration: LocationEngineConfiguration = LocationEngineConfiguration(),
        logger: Logger = Logger(label: "LocationEngine")
    ) {
        self.init(source: source, clock: ContinuousClock(), configuration: configuration, logger: logger)
    }
}

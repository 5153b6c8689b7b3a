import Atomics
import CoreMetrics
import DequeModule
import HeapModule
import Logging
import NIOConcurrencyHelpers

/// Multiplexes many concurrent location requests — one-shots with their own accuracy and timeout,
/// continuous subscriptions — over one ``LocationSource``, which it runs only while a request needs
/// fixes and only as hard as the most demanding one needs.
///
/// The engine is an actor around a pure ``SchedulerStateMachine``. Requests enter through a lock-light
/// inbox from any thread and get their ``RequestID`` at once, with their deadline counted from that
/// moment; one loop processes them in batches, runs **one** timer for every deadline, and delivers
/// results after each state transition, never while the state machine is mid-update. Handlers may make
/// or cancel requests re-entrantly: a cancel takes effect before any further delivery.
///
/// The engine's lifetime is ``run()`` (it is a swift-service-lifecycle `Service`); used without it, the
/// engine runs its loop by itself while there is work, and ``shutdown()`` ends it.
///
/// Callback handlers run on the engine's executor: keep them short (hand heavy work to a task).
public actor LocationEngine<C: Clock> where C.Duration == Duration {
    typealias Machine = SchedulerStateMachine<OneShotHandler, SubscriptionHandler>

    let source: any LocationSource
    /// The clock the engine times with.
    public nonisolated let clock: C
    let epoch: C.Instant
    let configuration: LocationEngineConfiguration
    let logger: Logger
    nonisolated let inbox = Inbox()
    nonisolated let privacy: PrivacyEpochs
    nonisolated let metrics: EngineMetrics

    var machine: Machine
    var actions: [Machine.Action] = []
    /// Incremented on every source start and stop; events carrying an older value are dropped.
    var sourceGeneration: UInt64 = 0
    /// When the fix being processed reached the engine (for the fix→delivery latency metric).
    var fixReportedAt: EngineInstant?

    // The loop and its timer (LocationEngine+Loop.swift)
    /// Whether ``run()`` hosts the loop: it then waits for work instead of stopping when idle.
    var isHosted = false
    var timer: Task<Void, Never>?
    var timerDeadline: EngineInstant?
    nonisolated let timerWakeups = ManagedAtomic<Int>(0)
    /// The inbox's interruption count when deliveries last looked at it.
    var seenInterruptions: UInt64 = 0
    /// Requests a handler cancelled (`true`) or force-completed during the current batch.
    var withdrawn: [RequestID: Bool] = [:]
    /// How far into the inbox's interruption log (for the current batch) deliveries have read.
    var interruptionLogPosition = 0
    /// Withdrawals read but not yet applied to the core.
    var unappliedWithdrawals: [(RequestID, isCancel: Bool)] = []

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
        self.privacy = PrivacyEpochs(policy: configuration.reducedAccuracy)
        self.metrics = EngineMetrics(
            dimensions: configuration.metricsDimensions, factory: configuration.metricsFactory ?? MetricsSystem.factory)
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

    /// Appends a command for a new request and wakes the loop if it was idle.
    @inline(__always)
    nonisolated func submit(_ make: (RequestID) -> EngineCommand) -> RequestID {
        let (id, wake) = inbox.append(make)
        perform(wake)
        return id
    }

    /// Appends a command and wakes the loop if it was idle.
    @inline(__always)
    nonisolated func submit(_ command: EngineCommand) {
        perform(inbox.append(command))
    }

    /// Does what the inbox asked after an append: nothing, resume the parked loop, or start one.
    @inline(__always)
    nonisolated func perform(_ wake: Inbox.Wake) {
        switch wake {
        case .none: break
        case .resume(let continuation): continuation.resume()
        case .start: Task { await self.loop() }
        }
    }

    // MARK: Processing (isolated)

    /// Processes every queued command, in order, until the inbox is empty.
    func drain() {
        while true {
            var batch = inbox.takeAll()
            if batch.isEmpty { break }
            withdrawn.removeAll(keepingCapacity: true)
            interruptionLogPosition = 0
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
                if !actions.isEmpty {
                    performActions()
                    if let reported = fixReportedAt {
                        metrics.fixDeliveryLatency.recordNanoseconds((self.now() - reported).saturatingNanoseconds)
                    }
                }
                fixReportedAt = nil
            }
        }
    }

    func process(_ command: consuming EngineCommand, now: EngineInstant) {
        switch consume command {
        case .oneShot(let id, let accuracy, let timeout, let madeAt, let handler):
            metrics.submitted(.oneShot)
            // Every argument spelled out: a defaulted argument of an exported specialisation is not emitted
            // by the compiler (undefined symbol at link time in release builds).
            machine.submitOneShot(
                id, accuracy: accuracy, timeout: timeout, delayUntilAuthorized: false, purposeKey: nil, madeAt: madeAt,
                handler: handler, now: now, into: &actions)
        case .oneShotWithOptions(let id, let accuracy, let timeout, let madeAt, let delay, let purposeKey, let handler):
            metrics.submitted(.oneShot)
            machine.submitOneShot(
                id, accuracy: accuracy, timeout: timeout, delayUntilAuthorized: delay, purposeKey: purposeKey, madeAt: madeAt,
                handler: handler, now: now, into: &actions)
        case .subscribe(let id, let options, let madeAt, let handler):
            metrics.submitted(.subscription)
            machine.subscribe(id, options: options, madeAt: madeAt, handler: handler, now: now, into: &actions)
        case .cancel(let id):
            machine.cancel(id, now: now, into: &actions)
        case .forceComplete(let id):
            machine.forceComplete(id, now: now, into: &actions)
        case .source(let generation, let event, let madeAt):
            guard generation == sourceGeneration, machine.isSourceOn else { return }
            switch event {
            case .location(let location, let age):
                fixReportedAt = madeAt
                let fixes = machine.counters.invalidFixes &+ machine.counters.fixesThrottled
                machine.receiveFix(location, age: age, now: now, into: &actions)
                metrics.fixReceived(dropped: machine.counters.invalidFixes &+ machine.counters.fixesThrottled != fixes)
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

    /// Processes queued commands and everything due at the clock's current time (scheduled
    /// authorization changes in time order, each at its own instant), until nothing is left: deadlines
    /// that fall due while it works are processed in the same pass, not after another timer cycle.
    func advance() {
        while true {
            drain()
            let now = self.now()
            guard let next = nextWakeup, next <= now else { break }
            applyDueAuthorizationChanges(upTo: now)
            let timedOut = machine.counters.oneShotsTimedOut
            let firstDue = machine.deadlines.earliest
            machine.advanceTime(now: now, into: &actions)
            if !actions.isEmpty { performActions() }
            if machine.counters.oneShotsTimedOut != timedOut, let firstDue {
                metrics.timeoutLateness.recordNanoseconds((self.now() - firstDue).saturatingNanoseconds)
            }
        }
        metrics.pending(oneShots: machine.oneShots.count, subscriptions: machine.subscriptions.count)
    }

    /// When the engine next needs to run on its own: the state machine's next wake-up or the next
    /// scheduled authorization change.
    var nextWakeup: EngineInstant? {
        earliest(machine.nextWakeup, scheduledAuthorizationChanges.min?.due)
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

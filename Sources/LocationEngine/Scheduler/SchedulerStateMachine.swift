/// The engine's pure scheduling core: events in, actions out.
///
/// It makes every decision — which request ends how and when, what the source does, what to ask the
/// user — through parts that each own their facts: the pending requests with their accuracy index and
/// deadlines, access (authorization and accuracy), the monitored regions, the fix history, one power
/// planner, and the delivery of what was decided (see <doc:Design>). It never reads a clock, performs I/O or suspends: every event takes `now`, and the
/// owner then takes the resulting ``SchedulerAction``s with ``nextAction()`` and carries them out — the
/// shape of swift-async-algorithms' state machines. ``LocationEngine`` is the actor that owns one; you
/// can also drive one directly from your own event loop:
///
/// ```swift
/// machine.submitOneShot(id, accuracy: .block, timeout: .seconds(10), delayUntilAuthorized: false,
///                       purposeKey: nil, madeAt: nil, handler: handler, now: now)
/// while let action = machine.nextAction() {
///     switch action {
///     case .completeOneShots(let result):
///         while let recipient = machine.nextOneShot() { recipient.handler(result) }
///     case .notifySubscriptions(let event):
///         while let recipient = machine.nextSubscriber() { recipient.handler(recipient.id, event) }
///     default: break  // start or stop the source, ask for authorization, ...
///     }
/// }
/// ```
///
/// A handler may withdraw another request while a delivery is being carried out: pass it on with
/// ``withdraw(_:_:now:)`` before taking the next recipient, and the core decides what that request
/// gets (a request it had ended but not handed out yet gets the withdrawal's ending).
///
/// Handlers are opaque to the core (`OneShotHandler`, `SubscriptionHandler`): the engine stores
/// closures or continuations, tests store plain tags.
///
/// Complexity of the hot paths, with n pending requests and L distinct timeout durations (deadline
/// lanes, at most 1,024): submit amortised O(log L) (O(1) without a timeout; O(log n) for a timeout
/// that arrives out of its lane's order), cancel amortised O(log L), a fix O(k + s) for k completed
/// one-shots and s subscriptions, timeouts O(log L) each.
public struct SchedulerStateMachine<OneShotHandler, SubscriptionHandler> {
    /// The action type this machine emits.
    public typealias Action = SchedulerAction<OneShotHandler, SubscriptionHandler>

    /// Where a pending request stands with the source (and, for a one-shot, the accuracy index).
    enum Phase: UInt8 {
        /// Waiting for authorization or temporary full accuracy: not in the power demand, never indexed.
        case waiting
        /// In the power demand; a one-shot has its entry in the accuracy index, so a fix can complete it.
        case admitted
        /// Admitted once, now held for temporary full accuracy: out of the power demand again. A
        /// one-shot's index entry stays (no coarsened fix can reach it), so re-admission adds none.
        case held

        /// Whether a one-shot in this phase has an entry in the accuracy index.
        var isIndexed: Bool { self != .waiting }
    }

    /// Whether a pending request's timeout (or a subscription's duration) runs.
    enum Countdown: UInt8 {
        /// It has none.
        case none
        /// It runs: the request has an entry in the deadline queue.
        case running
        /// It starts when authorization resolves (a one-shot's ``OneShotWish/delayedTimeout``).
        case delayed
    }

    /// A pending one-shot: 32 bytes with a closure handler, everything it asked for included.
    struct OneShot {
        var handler: OneShotHandler
        var wish: OneShotWish
        var phase: Phase = .waiting
        var countdown: Countdown = .none
    }

    /// A live subscription.
    struct Subscription {
        var handler: SubscriptionHandler
        var options: SubscriptionOptions
        var phase: Phase = .waiting
        /// `.running` when it has a duration (never `.delayed`).
        var countdown: Countdown = .none
        /// Where the last delivered fix was (for the distance filters): a position, not the whole fix,
        /// which keeps a subscription at about half the size.
        var lastDelivered: Position?
        var lastDeliveryTime: EngineInstant?
        var delivered: Int
        /// A region monitor (``SchedulerStateMachine/monitor(_:region:options:madeAt:handler:now:)``):
        /// it gets its region's transitions, never fixes.
        var isRegion = false
    }

    /// Where temporary full accuracy stands while accuracy is reduced (reset by every change of
    /// accuracy authorization).
    enum TemporaryFullAccuracy: UInt8 {
        /// Not asked for: the first request that needs it and names a purpose key asks.
        case notAsked
        /// Asked for, the answer still to come: requests needing it wait for that answer.
        case asked
        /// Refused in this session: requests needing it end at once until the next session.
        case refused
    }

    // The parts, each owning its facts (Scheduler/Parts): the top type routes events to them and
    // collects their actions.

    let configuration: Configuration
    /// The pending requests: one-shots, subscriptions and monitors, the accuracy index, the deadlines.
    var requests = Requests()
    /// What the engine knows of past fixes.
    var history = FixHistory()
    /// The one power planner: what the source does, from the demand the other parts report.
    var power: PowerPlanner
    /// The authorization picture, its prompts and scheduled changes, and the requests waiting on them.
    var access: Access
    /// What has been decided and not yet handed out, and the withdrawals that may still redirect it.
    var delivery: Delivery
    /// The monitored regions.
    var geofences: Geofences
    var counters = SchedulerStatistics()
    /// The latest instant seen (the timeline never runs backwards).
    var latestNow = EngineInstant.zero
    var isShutDown = false

    /// Creates an empty scheduler.
    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
        self.access = Access(picture: configuration.authorization)
        self.delivery = Delivery(slice: configuration.deliverySlice)
        self.power = PowerPlanner(
            linger: configuration.linger, powerDown: configuration.powerDown, profile: configuration.sourceCapabilities.powerProfile)
        self.geofences = Geofences(configuration: configuration.geofences)
    }

    /// When the owner must call ``advanceTime(now:)`` next — the earliest live deadline, the end
    /// of the linger, the next step down of an idle receiver, the next scheduled authorization change,
    /// a region's dwell or unknown timeout, or the instant the monitors want the source again after
    /// letting it sleep — or `nil`. Never the deadline of a request that has ended.
    /// - Complexity: O(1)
    // Always inlined: read through the engine actor's stored property, an out-of-line getter made the
    // optimizer copy the whole state machine (retaining every field) on each read in the delivery loop.
    @inline(__always)
    public var nextWakeup: EngineInstant? {
        earliest(
            earliest(earliest(requests.deadlines.earliest, power.nextWakeup), access.timeline.nextDue),
            geofences.evaluator.nextDeadline)
    }

    /// Whether the source is powered.
    public var isSourceOn: Bool { power.isOn }

    /// How many one-shots are pending.
    public var pendingOneShots: Int { requests.oneShots.count }

    /// How many subscriptions are active.
    public var activeSubscriptions: Int { requests.subscriptions.count }

    /// Whether a request with this ID is pending.
    public func isPending(_ id: RequestID) -> Bool { requests.oneShots[id] != nil || requests.subscriptions[id] != nil }

    /// Counters, with the source's on-time measured up to `now`.
    public func statistics(now: EngineInstant) -> SchedulerStatistics {
        var result = counters
        result.pendingOneShots = requests.oneShots.count
        result.activeSubscriptions = requests.subscriptions.count
        power.addStatistics(to: &result, now: max(now, latestNow))
        return result
    }

    /// The latest fix the scheduler may reveal at `now` (none unless authorized).
    public func lastKnownLocation(now: EngineInstant) -> LocationResult? {
        guard authorization == .authorized, let fix = history.latest else { return nil }
        return LocationResult(status: .success, location: fix.location, age: fix.age(at: now), achievedAccuracy: fix.achieved(at: now))
    }

    // MARK: Shared helpers

    /// Clamps `now` so the timeline never runs backwards.
    mutating func tick(_ now: EngineInstant) -> EngineInstant {
        if now > latestNow { latestNow = now }
        return latestNow
    }

    /// A result with `status` carrying the best fix known at `now` (none unless authorized).
    func result(_ status: LocationStatus, now: EngineInstant) -> LocationResult {
        guard authorization == .authorized, let best = history.best(at: now) else {
            return LocationResult(status: status, location: nil, age: nil, achievedAccuracy: nil)
        }
        return LocationResult(status: status, location: best.location, age: best.age(at: now), achievedAccuracy: best.achieved(at: now))
    }

    /// Brings the source in line with demand: the power planner decides, and its command becomes the
    /// action. Under reduced accuracy the cheapest mode serves everyone: every fix is coarsened anyway.
    mutating func reconcilePower(now: EngineInstant) {
        let cap: PowerMode? = accuracyAuthorization == .reduced ? .lowest : nil
        emit(power.reconcile(now: now, cap: cap, monitoring: geofences.evaluator.count > 0, isShutDown: isShutDown))
    }

    /// Powers the source down at once (a fatal error, access lost, shutdown).
    mutating func forceSourceOff(now: EngineInstant) {
        emit(power.forceOff(now: now, monitoring: geofences.evaluator.count > 0))
    }

    /// Queues what the power planner decided for the source.
    mutating func emit(_ command: PowerPlanner.Command?) {
        switch command {
        case .start(let mode)?: emit(.startSource(mode))
        case .setMode(let mode)?: emit(.setSourceMode(mode))
        case .stop?: emit(.stopSource)
        case .idle?: emit(.idleSource(power.lastIdleStep!))
        case nil: break
        }
    }
}

/// A one-shot handler as a plain closure: the natural handler type when driving the core from your own
/// event loop. The state machine's hot paths are prespecialized for it and
/// ``ClosureSubscriptionHandler`` (`@_specialize(exported:)`), so code in other modules using these
/// types runs specialized code rather than generic code that looks up type metadata at run time.
public typealias ClosureOneShotHandler = @Sendable (LocationResult) -> Void

/// A subscription handler as a plain closure; see ``ClosureOneShotHandler``.
public typealias ClosureSubscriptionHandler = @Sendable (RequestID, SubscriptionEvent) -> Void

extension SchedulerStateMachine: Sendable where OneShotHandler: Sendable, SubscriptionHandler: Sendable {}
extension SchedulerStateMachine.OneShot: Sendable where OneShotHandler: Sendable {}
extension SchedulerStateMachine.Subscription: Sendable where SubscriptionHandler: Sendable {}

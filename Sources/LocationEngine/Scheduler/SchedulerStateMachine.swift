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

    // The parts, each owning its facts (Scheduler/Parts, Scheduler/Power, Geofencing): the top type
    // routes events to them and collects their actions.

    let configuration: Configuration
    /// The pending requests: one-shots, subscriptions and monitors, the accuracy index, the deadlines,
    /// and the power demand of those admitted.
    var requests = Requests()
    /// The one power planner: what the source does, from the demand the other parts report.
    var power: PowerPlanner
    /// The authorization picture, its prompts and scheduled changes, and the fixes remembered under it.
    var access: Access
    /// What has been decided and not yet handed out, and the withdrawals that may still redirect it.
    var delivery: Delivery
    /// The monitored regions.
    var geofences: Geofences
    /// The counters of what arrived (the outcomes handed out are the delivery's, the prompts access's,
    /// the source's the planner's).
    var counters = SchedulerStatistics()
    /// The latest instant seen (the timeline never runs backwards).
    var latestNow = EngineInstant.zero
    var isShutDown = false

    /// Creates an empty scheduler.
    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
        self.access = Access(
            picture: configuration.authorization, reducedAccuracy: configuration.reducedAccuracy, usage: configuration.usage,
            preferring: configuration.preferredAuthorization)
        self.delivery = Delivery(slice: configuration.deliverySlice)
        self.power = PowerPlanner(
            linger: configuration.linger, powerDown: configuration.powerDown, profile: configuration.sourceCapabilities.powerProfile,
            confirmsReceiverState: configuration.sourceCapabilities.confirmsReceiverState)
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
    public func isPending(_ id: RequestID) -> Bool { requests.contains(id) }

    /// Counters, with the source's on-time measured up to `now`.
    public func statistics(now: EngineInstant) -> SchedulerStatistics {
        var result = counters
        delivery.counts.add(to: &result)
        access.counts.add(to: &result)
        result.pendingOneShots = requests.oneShots.count
        result.activeSubscriptions = requests.subscriptions.count
        power.addStatistics(to: &result, now: max(now, latestNow))
        return result
    }

    /// The latest fix the scheduler may reveal at `now` (none unless authorized).
    public func lastKnownLocation(now: EngineInstant) -> LocationResult? { access.lastKnownLocation(now: now) }

    // MARK: Shared helpers

    /// Clamps `now` so the timeline never runs backwards.
    mutating func tick(_ now: EngineInstant) -> EngineInstant {
        if now > latestNow { latestNow = now }
        return latestNow
    }

    /// The start of every event but withdrawals and the passing of time: the actions of earlier events
    /// must all have been taken, and the timeline moves to `now`.
    mutating func enter(_ now: EngineInstant, _ event: StaticString) -> EngineInstant {
        precondition(
            delivery.outbox.isEmpty, "SchedulerStateMachine.\(event): actions of earlier events are still to be taken (nextAction() until nil)")
        delivery.outbox.beginEvent()
        return tick(now)
    }

    /// A result with `status` carrying the best fix known at `now` (none unless authorized).
    @inline(__always)
    func result(_ status: LocationStatus, now: EngineInstant) -> LocationResult { access.result(status, now: now) }

    /// Queues an action.
    @inline(__always)
    mutating func emit(_ action: Action) { delivery.emit(action) }

    /// Brings the source in line with demand: the power planner decides from the requests' demand and
    /// the monitors', and its command becomes the action. Under reduced accuracy the cheapest mode serves
    /// everyone: every fix is coarsened anyway.
    mutating func reconcilePower(now: EngineInstant) {
        let cap: PowerMode? = accuracyAuthorization == .reduced ? .lowest : nil
        emit(power.reconcile(demand: requests.demand, now: now, cap: cap, monitoring: geofences.evaluator.count > 0, isShutDown: isShutDown))
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

extension SchedulerStateMachine: Sendable where OneShotHandler: Sendable, SubscriptionHandler: Sendable {}

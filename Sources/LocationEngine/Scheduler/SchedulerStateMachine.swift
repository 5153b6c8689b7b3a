/// The engine's pure scheduling core: events in, effects out.
///
/// It makes every decision — which request ends how and when, what the source does, what to ask the
/// user — through parts that each own their facts: the pending requests, access, the monitored
/// regions, one power planner and the delivery of what was decided. It never reads a clock, performs
/// I/O or suspends: every event takes `now` and returns its ``SchedulerEffects`` — the ``SchedulerAction``s it
/// decided, in order — and the owner carries them out. ``LocationEngine`` is the actor that
/// owns one; <doc:Design> shows the parts, and how to drive one from your own event loop. Handlers are
/// opaque to the core: the engine stores closures or continuations, tests store plain tags.
///
/// Complexity of the hot paths, with n pending requests and L distinct timeout durations (deadline
/// lanes, at most 1,024): submit amortised O(log L) (O(1) without a timeout; O(log n) for a timeout
/// that arrives out of its lane's order), cancel amortised O(log L), a fix O(k + s) for k completed
/// one-shots and s subscriptions, timeouts O(log L) each.
public struct SchedulerStateMachine<OneShotHandler, SubscriptionHandler, MonitorHandler> {
    /// The action type this machine emits.
    public typealias Action = SchedulerAction<OneShotHandler, SubscriptionHandler, MonitorHandler>
    /// What each event returns.
    public typealias Effects = SchedulerEffects<OneShotHandler, SubscriptionHandler, MonitorHandler>

    // The parts, each owning its facts (Scheduler/Parts, Scheduler/Power, Geofencing): the top type
    // routes events to them and collects their actions.

    let configuration: Configuration
    /// The pending requests: one-shots, subscriptions and monitors, the accuracy index, the waiting
    /// lists, and the power demand of those admitted.
    var requests = Requests()
    /// The one power planner: what each source does, from the demand the other parts report.
    var power: SourcePlanner
    /// The authorization picture, its prompts and scheduled changes, and the fixes remembered under it.
    var access: Access
    /// What the event in progress decides, and the withdrawals that may still redirect a decided delivery.
    var delivery: Delivery
    /// The monitored regions.
    var geofences: Geofences
    /// The earliest deadline of each part other than the requests (whose deadlines are their own),
    /// read from the part at the settle step.
    var alarms = Alarms()
    /// The counters of what arrived (the other parts count what they alone see).
    var counters = SchedulerStatistics()
    /// The latest instant seen (the timeline never runs backwards).
    var latestNow = EngineInstant.zero
    /// The instant the power planner must reconcile at, when the event in progress changed what it plans
    /// from (``askPower(at:)``); the settle step reconciles it (``settle()``).
    var powerDue: EngineInstant?
    /// Whether the engine still takes requests, or has shut down for good.
    var lifecycle = Lifecycle.running

    /// Creates an empty scheduler.
    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
        self.access = Access(
            picture: configuration.authorization, reducedAccuracy: configuration.reducedAccuracy, usage: configuration.usage,
            preferring: configuration.preferredAuthorization)
        self.delivery = Delivery()
        self.power = SourcePlanner(
            sources: [configuration.sourceCapabilities] + configuration.otherSources, linger: configuration.linger,
            powerDown: configuration.powerDown, fallbackAfter: configuration.fallbackAfter)
        self.geofences = Geofences(configuration: configuration.geofences)
    }

    /// When the owner must call ``advanceTime(now:at:)`` next — the earliest live deadline, power step,
    /// authorization change, dwell or unknown timeout, or end of the monitors' sleep — or `nil`.
    /// - Complexity: O(1)
    // Always inlined: an out-of-line getter, read through the actor's stored property, made the
    // optimizer copy the whole state machine (retaining every field) on each read.
    @inline(__always)
    public var nextWakeup: EngineInstant? {
        assert(alarmsAreSet, "SchedulerStateMachine: a part's earliest deadline is not its alarm")
        guard let alarm = alarms.earliestInstant else { return requests.deadlines.earliest }
        guard let deadline = requests.deadlines.earliest else { return alarm }
        return min(deadline, alarm)
    }

    /// Whether each part's alarm is its earliest deadline (checked in debug builds).
    var alarmsAreSet: Bool {
        alarms[.authorization] == access.timeline.nextDue && alarms[.regions] == geofences.evaluator.nextDeadline
            && alarms[.power] == power.nextWakeup
    }

    /// Whether any source is powered.
    public var isSourceOn: Bool { power.isOn }
    /// Whether source `source` is powered.
    public func isOn(_ source: SourceID) -> Bool { power.isOn(source) }

    /// How many one-shots are pending.
    public var pendingOneShots: Int { requests.oneShotCount }

    /// How many subscriptions and region monitors are active.
    public var activeSubscriptions: Int { requests.subscriptions.count + requests.monitorCount }

    /// Whether a request with this ID is pending.
    public func isPending(_ id: RequestID) -> Bool { requests.contains(id) }

    /// Counters, with the source's on-time measured up to `now`.
    public func statistics(now: EngineInstant) -> SchedulerStatistics {
        var result = counters
        delivery.counts.add(to: &result)
        access.counts.add(to: &result)
        result.pendingOneShots = requests.oneShotCount
        result.activeSubscriptions = requests.subscriptions.count + requests.monitorCount
        power.addStatistics(to: &result, now: max(now, latestNow))
        return result
    }

    /// The latest fix the scheduler may reveal at `now` (none unless authorized).
    public func lastKnownLocation(now: EngineInstant) -> LocationResult? { access.lastKnownLocation(now: now) }

    /// Why a one-shot ending at `now` would get nothing better than the best fix known (see ``EndingReason``).
    public func whyNoAnswer(now: EngineInstant) -> EndingReason {
        let best = result(.timedOut, now: now)
        return power.reason(best: best.location, age: best.age, now: now)
    }

    /// The engine's life: it runs until ``shutdown(now:)``, and stays shut down.
    enum Lifecycle: Sendable {
        /// Requests are taken, and access changes and fixes apply.
        case running
        /// Every request has ended; new ones are refused, and access changes and fixes are ignored.
        case shutDown
    }

    /// Whether the engine has shut down (its owner's loop then returns).
    // A switch rather than `==`: the compiler then reads the two-case enum as the flag it is stored
    // as, where a comparison added instructions to every request's reconciliation (callgrind).
    @inline(__always)
    var isShutDown: Bool {
        switch lifecycle {
        case .running: false
        case .shutDown: true
        }
    }

    // MARK: Shared helpers

    /// Clamps `now` so the timeline never runs backwards.
    mutating func tick(_ now: EngineInstant) -> EngineInstant {
        if now > latestNow { latestNow = now }
        return latestNow
    }

    /// The start of every event but withdrawals and the passing of time (those alone may come
    /// mid-delivery): what fell due by `now` happens first (``catchUp(to:)``).
    @inline(__always)
    mutating func enter(_ now: EngineInstant) -> EngineInstant {
        delivery.begin(at: .betweenEvents)
        let now = tick(now)
        catchUp(to: now)
        return now
    }

    /// A result with `status` carrying the best fix known at `now` (none unless authorized).
    @inline(__always)
    func result(_ status: LocationStatus, now: EngineInstant) -> LocationResult { access.result(status, now: now) }

    /// Decides an action.
    @inline(__always)
    mutating func emit(_ action: Action) { delivery.emit(action) }
}

extension SchedulerStateMachine: Sendable where OneShotHandler: Sendable, SubscriptionHandler: Sendable, MonitorHandler: Sendable {}

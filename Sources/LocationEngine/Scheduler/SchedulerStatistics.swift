/// Counters kept by the scheduler. Cheap to read; all counts since the engine started.
public struct SchedulerStatistics: Sendable, Hashable {
    /// One-shot requests submitted.
    public var oneShotsSubmitted = 0
    /// One-shot requests that ended, by status, excluding cancellations.
    public var oneShotsSucceeded = 0
    /// One-shot requests that timed out.
    public var oneShotsTimedOut = 0
    /// One-shot requests that were force-completed.
    public var oneShotsForceCompleted = 0
    /// One-shot requests that ended with an error, authorization or rejection status, or at shutdown.
    public var oneShotsFailed = 0
    /// One-shot requests completed from the cache without waiting for the source.
    public var oneShotsFromCache = 0
    /// One-shot requests cancelled.
    public var oneShotsCancelled = 0
    /// Subscriptions made.
    public var subscriptionsSubmitted = 0
    /// Subscriptions that ended (not counting cancellations).
    public var subscriptionsEnded = 0
    /// Subscriptions cancelled.
    public var subscriptionsCancelled = 0
    /// Updates delivered to subscriptions.
    public var subscriptionUpdates = 0
    /// Fixes received from the source.
    public var fixesReceived = 0
    /// Fixes dropped as invalid (non-finite or out-of-range values).
    public var invalidFixes = 0
    /// Fixes held back under reduced accuracy because one was let through less than
    /// ``ReducedAccuracyPolicy/minimumInterval`` before.
    public var fixesThrottled = 0
    /// Authorization requests the scheduler asked for (at most one per not-determined period).
    public var authorizationRequests = 0
    /// Temporary-full-accuracy requests the scheduler asked for.
    public var fullAccuracyRequests = 0
    /// Answers to prompts that were no longer open, or that came too late to matter (ignored).
    public var authorizationAnswersIgnored = 0
    /// Location-button presses that could change nothing (restricted, or services disabled).
    public var locationButtonPressesIgnored = 0
    /// Transient source errors.
    public var transientErrors = 0
    /// Fatal source errors.
    public var fatalErrors = 0
    /// Times the source was started.
    public var sourceStarts = 0
    /// Times the source was stopped.
    public var sourceStops = 0
    /// Times the running source's mode changed.
    public var sourceModeChanges = 0
    /// Times the running receiver confirmed another setting than the mode it was sent to (a command refused
    /// or unanswered): the engine planned on from the setting the receiver kept and asked again after a backoff.
    /// Always 0 from a source that does not confirm its receiver's state.
    public var sourceModesRefused = 0
    /// Total time the source was on.
    public var sourceOnTime: Duration = .zero
    /// One-shot requests pending now.
    public var pendingOneShots = 0
    /// Subscriptions active now.
    public var activeSubscriptions = 0
    /// The source's mode now (with several sources, the finest running), or `nil` when every source is off.
    public var sourceMode: PowerMode?
    /// Times the engine's timer fired (its loop woke on its own). The timer is always armed for a live
    /// instant, so this never counts a wake-up for a request that had already ended. Always 0 from the
    /// core alone: the ``LocationEngine`` fills it in.
    public var timerWakeups = 0
    /// Times the engine's loop parked with nothing to do and was woken again — by a request, a fix or its
    /// timer: the hand-offs between callers and the loop, each a thread wake-up. A burst of requests that finds
    /// the loop parked costs one. Always 0 from the core alone: the ``LocationEngine`` fills it in.
    public var loopWakeups = 0

    /// Where the receiver waits in the gap in demand now, by the restart-aware rule (`nil` while a request
    /// needs it, or without a receiver profile): ``ReceiverPowerProfile/IdleState/on`` until the break-even.
    public var idleState: ReceiverPowerProfile.IdleState?
    /// The last step down the restart-aware rule took: where to, after how long, and why.
    public var lastPowerDown: PowerDownDecider.Step?
    /// How the receiver was expected to restart after its last step down (hot, or warm once the ephemerides
    /// went stale).
    public var lastRestartCondition: ReceiverPowerProfile.StartCondition?
    /// Gaps in demand the receiver stayed on through (shorter than the break-even).
    public var gapsBridgedOn = 0
    /// Steps down into standby.
    public var powerDownsToStandby = 0
    /// Steps down into off (backup).
    public var powerDownsToOff = 0
    /// The median of the recent gaps the rule remembers and learns its switch times from (for a reader:
    /// the rule weighs every remembered gap, not their median).
    public var predictedGap: Duration?

    /// The energy the source's receiver drew since the engine started, J, by its power profile
    /// (``SourceCapabilities/powerProfile``; `nil` without one): acquiring from each restart until its first fix,
    /// tracking by mode, and between requests the idle state it waited in — from a source that confirms its
    /// receiver's state (``SourceCapabilities/confirmsReceiverState``) only the states the receiver confirmed,
    /// a state not confirmed costed as the dearest it could be (see <doc:PowerPolicy>).
    public var receiverEnergy: Double?

    /// Times the region monitors let the source sleep: every region's state certain and no boundary
    /// reachable before the source could be woken for it (see <doc:Geofences>). With several sources, the
    /// sleeps of whichever source was chosen for the monitors.
    public var regionSleeps = 0
    /// Total time the region monitors let the source sleep (whether or not other requests kept it on).
    public var regionSleepTime: Duration = .zero

    /// Fixes dropped because a recent, more accurate fix from another source already said as much: a fix
    /// less accurate than the latest, whose circle holds the latest, does not replace it (see <doc:SeveralSources>).
    public var fixesSuperseded = 0
    /// What each source delivered, mode by mode, in source order: the runs that waited for a first fix, how
    /// many were answered and how soon, how many stayed silent, and whether the mode is passed over now
    /// (see <doc:PowerPolicy>). Empty for a source that declares no first-fix times
    /// (``SourceCapabilities/firstFixByMode``): it is not judged.
    public var delivery: [[PowerMode: ModeDelivery]] = []

    /// What a source delivered in one mode.
    public struct ModeDelivery: Sendable, Hashable {
        /// Runs in the mode (starts, or changes into it) that waited for a first fix.
        public var runs = 0
        /// Of them, those a fix answered, and those that stayed silent past their window.
        public var answered = 0
        public var silences = 0
        /// How long its first fixes took after the receiver's restart (a running mean), if any came.
        public var firstFixTime: Duration?
        /// How accurate its first fixes were, metres (a running mean), if any came.
        public var accuracy: Double?
        /// Whether the mode is known silent now and passed over.
        public var isSilent = false
    }

    /// With several sources, each one's figures, in source order (empty with one source: the figures above
    /// are its own). The figures above are then the sums over the sources.
    public var sources: [SourceFigures] = []

    /// One source's figures, with several.
    public struct SourceFigures: Sendable, Hashable {
        /// Times it was started, stopped, and its mode changed.
        public var starts = 0
        public var stops = 0
        public var modeChanges = 0
        /// Total time it was on.
        public var onTime: Duration = .zero
        /// The energy its receiver drew, J, by its power profile (`nil` without one).
        public var receiverEnergy: Double?
        /// Its mode now, or `nil` when off.
        public var mode: PowerMode?
        /// Whether it failed for good and is chosen no more until demand ends.
        public var failed = false
        /// Whether it is the source chosen for the finest request now, or the fallback started beside it.
        public var chosen = false
        public var fallback = false
    }

    /// Creates zeroed statistics.
    public init() {}
}

/// The energy the source's receiver drew, as far as the planner knows what the receiver did, by its power
/// profile: after each restart acquiring for the time to first fix its start condition takes (the profile's
/// model of a restart), tracking in the mode it runs in, and between requests the idle state it waits in (see
/// <doc:PowerPolicy>).
///
/// From a source that confirms its receiver's state (``SourceCapabilities/confirmsReceiverState``) only a
/// confirmed state counts: after a command the receiver is costed at the dearer of where it was and where it
/// was sent until it confirms, and a receiver that never confirms (a refused or unanswered command, a port
/// closed with the receiver left running) stays costed as it was — tracking, the most it could draw — and
/// restarts without a restart. From a source that confirms nothing, each command is taken to have worked.
struct ReceiverEnergy: Sendable {
    let profile: ReceiverPowerProfile
    /// Whether the source reports the states its receiver confirmed.
    let confirms: Bool
    /// Energy drawn up to ``since``, mJ.
    private var millijoules = 0.0
    /// The power drawn since ``since``, mW.
    private var power: Double
    private var since = EngineInstant.zero
    /// The mode the receiver runs in, `nil` while it is down.
    private var mode: PowerMode?
    /// The last mode it ran in: what "on" costs while it is down.
    private var lastMode = PowerMode.best
    /// Where the receiver is while down, as far as it is known (confirmed, or commanded to a source that
    /// confirms nothing); "on" while it runs, or is not known to have gone down.
    private var state = ReceiverPowerProfile.IdleState.off
    /// When it last went down (the engine's start, before the first start).
    private var downSince = EngineInstant.zero
    /// When the acquisition of the current restart ends, while it lasts.
    private var acquisitionEnds: EngineInstant?

    /// Accounting from the engine's start, the receiver off (as a source that has not started it leaves it).
    init(profile: ReceiverPowerProfile, confirms: Bool) {
        self.profile = profile
        self.confirms = confirms
        power = profile.off
    }

    /// The energy drawn up to `now`, J.
    func joules(at now: EngineInstant) -> Double {
        var copy = self
        copy.advance(to: now)
        return copy.millijoules / 1000
    }

    /// The receiver was started in `mode`: it acquires for its time to first fix, unless it never went down.
    mutating func started(_ mode: PowerMode, now: EngineInstant) {
        advance(to: now)
        self.mode = mode
        lastMode = mode
        let delay = profile.restartDelay(after: now - downSince, in: state)
        state = .on
        acquisitionEnds = delay > .zero ? now + delay : nil
        power = acquisitionEnds == nil ? profile.trackingPower(mode) : profile.acquisition
    }

    /// The running receiver was switched to `mode`.
    mutating func modeChanged(_ mode: PowerMode, now: EngineInstant) {
        guard self.mode != nil else { return }
        advance(to: now)
        self.mode = mode
        lastMode = mode
        if acquisitionEnds == nil { power = profile.trackingPower(mode) }
    }

    /// The receiver was sent down into `target` (a stop without a state: off).
    mutating func sentDown(into target: ReceiverPowerProfile.IdleState, now: EngineInstant) {
        advance(to: now)
        if mode != nil { downSince = now }
        // A receiver stopped while acquiring is costed, until it confirms, as tracking (its acquisition would
        // have ended).
        let current = mode.map { profile.trackingPower($0) } ?? power
        mode = nil
        acquisitionEnds = nil
        guard confirms else {
            state = target
            power = profile.idlePower(target, mode: lastMode)
            return
        }
        // Unknown until the receiver confirms: costed at the dearer of where it was and where it was sent
        // (``state`` stays the last one known).
        power = max(current, profile.idlePower(target, mode: lastMode))
    }

    /// The source reports the state its receiver confirmed (``ReceiverPowerProfile/IdleState/on``: tracking,
    /// or not known).
    mutating func confirmed(_ confirmed: ReceiverPowerProfile.IdleState, now: EngineInstant) {
        guard mode == nil else { return }
        advance(to: now)
        state = confirmed
        power = profile.idlePower(confirmed, mode: lastMode)
    }

    /// Counts the energy up to `now`; a restart's acquisition that ended meanwhile gives way to tracking.
    private mutating func advance(to now: EngineInstant) {
        guard now > since else { return }
        if let end = acquisitionEnds, end <= now, let mode {
            if end > since { millijoules += power * Double((end - since).saturatingNanoseconds) / 1e9 }
            since = max(since, end)
            acquisitionEnds = nil
            power = profile.trackingPower(mode)
        }
        millijoules += power * Double((now - since).saturatingNanoseconds) / 1e9
        since = now
    }
}

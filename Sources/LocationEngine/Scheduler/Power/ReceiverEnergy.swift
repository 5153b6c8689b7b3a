/// The energy the source's receiver drew, as far as the planner knows what the receiver did, by its power
/// profile: after each restart acquiring for the time to first fix its start condition takes (the profile's
/// model of a restart), tracking in the mode it runs in, and between requests the idle state it waits in (see
/// <doc:PowerPolicy>).
///
/// From a source that confirms its receiver's state (``SourceCapabilities/confirmsReceiverState``) only a
/// confirmed state counts: after a command the receiver is costed at the dearer of where it was and where it
/// was sent until it confirms, and a receiver that never confirms (a refused or unanswered command, a port
/// closed with the receiver left running) stays costed as it was — tracking, the most it could draw — and
/// restarts without a restart. The same holds while it runs: after a start it is costed as tracking in the
/// dearest mode until it confirms the setting of a mode (``SourceEvent/receiverTracking(_:age:)``), and after a
/// change of mode at the dearer of the setting it confirmed and the one it was sent to. From a source that
/// confirms nothing, each command is taken to have worked.
///
/// Whether the receiver was sent to run is not kept here: it is the power policy's state
/// (``PowerPolicy/state``), which the planner passes to the events that depend on it.
struct ReceiverEnergy: Sendable {
    /// Where the receiver waited the last time it was sent down, as far as the accounting knows: where it is
    /// known to wait, or not yet confirmed. Kept while it runs again (a start changes nothing of it: it is read
    /// when the receiver is started, to cost the restart, and replaced when it is next sent down).
    enum Whereabouts: Sendable, Hashable {
        /// Waiting in an idle state known: confirmed, or commanded to a source that confirms nothing
        /// (``ReceiverPowerProfile/IdleState/on``: it confirmed it stayed on).
        case down(ReceiverPowerProfile.IdleState)
        /// Sent down by a source that confirms, where it went not confirmed yet: costed at the dearer of where it
        /// was and where it was sent; `lastKnown` is where it was last known to be (on, after a stop while running).
        case sentDown(lastKnown: ReceiverPowerProfile.IdleState)
    }

    /// What is known of the setting the receiver tracks in (kept while it is down: a stop changes no setting).
    enum Setting: Sendable, Hashable {
        /// The source confirms nothing: each command is taken to have worked.
        case commanded
        /// None confirmed since the receiver last restarted: costed as the dearest mode.
        case unconfirmed
        /// This one was confirmed, and the receiver has been sent a command since: costed at the dearer of it and
        /// the mode sent.
        case confirmedBefore(PowerMode)
        /// This one was confirmed since the last command: the receiver tracks in it, whatever was asked (one that
        /// refused to track stays in its power save).
        case confirmed(PowerMode)

        /// The same knowledge after a command: a setting confirmed before it is no longer known to hold.
        var afterCommand: Setting {
            if case .confirmed(let mode) = self { return .confirmedBefore(mode) }
            return self
        }
    }

    let profile: ReceiverPowerProfile
    /// Energy drawn up to ``since``, mJ.
    private var millijoules = 0.0
    /// The power drawn since ``since``, mW.
    private var power: Double
    private var since = EngineInstant.zero
    /// Where the receiver waited when last down (in off, as a source that has not started it leaves it).
    private var whereabouts = Whereabouts.down(.off)
    /// The mode it was last sent to run in: the one it runs in while it runs, what "on" costs while it is down.
    private var lastMode = PowerMode.best
    /// What is known of its setting.
    private var setting: Setting
    /// When it last went down (the engine's start, before the first start).
    private var downSince = EngineInstant.zero
    /// When ``power`` last changed.
    private var powerSince = EngineInstant.zero
    /// When the acquisition of the current restart ends, while it lasts.
    private var acquisitionEnds: EngineInstant?
    /// A restart from a power-down not confirmed by then: what was costed, so that a confirmation arriving
    /// after the restart (an answer that came late) can cost the stretch down and the restart as they were.
    private var restartUnconfirmed: (restartedAt: EngineInstant, downFor: Duration, downPower: Double, downFrom: EngineInstant, running: Double)?
    /// A stop while the setting the receiver ran in was not confirmed: what was costed, so that a confirmation
    /// arriving after the stop can cost the stretch it ran as it was.
    private var stopUnconfirmed: (stoppedAt: EngineInstant, mode: PowerMode, power: Double, from: EngineInstant)?

    /// Accounting from the engine's start, the receiver off (as a source that has not started it leaves it).
    init(profile: ReceiverPowerProfile, confirms: Bool) {
        self.profile = profile
        setting = confirms ? .unconfirmed : .commanded
        power = profile.off
    }

    /// Whether the source reports the states its receiver confirmed.
    var confirms: Bool { setting != .commanded }

    /// The energy drawn up to `now`, J.
    func joules(at now: EngineInstant) -> Double {
        var copy = self
        copy.advance(to: now)
        return copy.millijoules / 1000
    }

    /// How long the receiver, started at `now`, takes to its first fix: the restart from where it waited (where
    /// it was last known to be, when that is not confirmed yet) for as long as it has been down; zero when it
    /// stayed on.
    func restartDelay(startingAt now: EngineInstant) -> Duration {
        profile.restartDelay(after: now - downSince, in: waitedState.state)
    }

    /// Where the receiver waits while down, and whether that is not confirmed yet.
    private var waitedState: (state: ReceiverPowerProfile.IdleState, unconfirmed: Bool) {
        switch whereabouts {
        case .down(let state): (state, false)
        case .sentDown(let lastKnown): (lastKnown, true)
        }
    }

    /// The receiver, down, was started in `mode`: it acquires for its time to first fix, unless it never went down.
    mutating func started(_ mode: PowerMode, now: EngineInstant) {
        advance(to: now)
        let (waited, unconfirmed) = waitedState
        lastMode = mode
        let delay = restartDelay(startingAt: now)
        // A receiver that stayed on keeps the setting it confirmed; a restarted one has confirmed none yet.
        setting = setting != .commanded && (waited != .on || unconfirmed) ? .unconfirmed : setting.afterCommand
        restartUnconfirmed = unconfirmed ? (now, now - downSince, power, powerSince, runningPower(mode)) : nil
        stopUnconfirmed = nil
        acquisitionEnds = delay > .zero ? now + delay : nil
        draw(acquisitionEnds == nil ? runningPower(mode) : profile.acquisition, from: now)
    }

    /// The running receiver was switched to `mode`.
    mutating func modeChanged(_ mode: PowerMode, now: EngineInstant) {
        advance(to: now)
        lastMode = mode
        setting = setting.afterCommand
        if acquisitionEnds == nil { draw(runningPower(mode), from: now) }
    }

    /// The source reports that the running receiver confirmed the setting of `mode`
    /// (``SourceEvent/receiverTracking(_:age:)``), taken `age` ago: the stretch since then (since the last
    /// change at most), costed meanwhile at the dearer setting, is costed at the confirmed one. `running` says
    /// whether the receiver was sent to run (the policy's state).
    mutating func confirmedTracking(_ mode: PowerMode, age: Duration = .zero, running: Bool, now: EngineInstant) {
        guard confirms else { return }
        guard running else {
            // Confirmed after the stop: the stretch it ran before (as far back as the evidence goes).
            guard let pending = stopUnconfirmed else { return }
            stopUnconfirmed = nil
            let confirmed = max(profile.trackingPower(pending.mode), profile.trackingPower(mode))
            let stretch = pending.stoppedAt - max(now - age, pending.from)
            if stretch > .zero, confirmed < pending.power { millijoules -= (pending.power - confirmed) * Double(stretch.saturatingNanoseconds) / 1e9 }
            return
        }
        advance(to: now)
        setting = .confirmed(mode)
        guard acquisitionEnds == nil else { return }
        let confirmedPower = runningPower(lastMode)
        recost(last: age, at: confirmedPower, now: now)
        draw(confirmedPower, from: now)
    }

    /// What tracking in `mode` costs as far as it is known: from a source that confirms, the setting the
    /// receiver confirmed since the last command, else the dearer of `mode` and the setting it confirmed
    /// before (the dearest mode while it confirmed none).
    private func runningPower(_ mode: PowerMode) -> Double {
        switch setting {
        case .commanded: profile.trackingPower(mode)
        case .confirmed(let confirmed): profile.trackingPower(confirmed)
        case .confirmedBefore(let confirmed): max(profile.trackingPower(mode), profile.trackingPower(confirmed))
        case .unconfirmed: max(profile.trackingPower(mode), PowerMode.allCases.map { profile.trackingPower($0) }.max()!)
        }
    }

    /// The receiver was sent down into `target` (a stop without a state: off), from running or, `fromRunning`
    /// false, deeper from where it waits.
    mutating func sentDown(into target: ReceiverPowerProfile.IdleState, fromRunning: Bool, now: EngineInstant) {
        advance(to: now)
        let mode = fromRunning ? lastMode : nil
        if fromRunning { downSince = now }
        // A receiver stopped while acquiring is costed, until it confirms, as tracking (its acquisition would
        // have ended).
        let current = mode.map { runningPower($0) } ?? power
        if let mode, confirms, acquisitionEnds == nil, current > profile.trackingPower(mode) {
            stopUnconfirmed = (now, mode, current, powerSince)
        } else if fromRunning {
            stopUnconfirmed = nil
        }
        acquisitionEnds = nil
        guard confirms else {
            whereabouts = .down(target)
            draw(profile.idlePower(target, mode: lastMode), from: now)
            return
        }
        // Unknown until the receiver confirms: costed at the dearer of where it was and where it was sent.
        if fromRunning {
            whereabouts = .sentDown(lastKnown: .on)
        } else if case .down(let state) = whereabouts {
            whereabouts = .sentDown(lastKnown: state)
        }
        draw(max(current, idlePower(target)), from: now)
    }

    /// The source reports the state its receiver confirmed (``ReceiverPowerProfile/IdleState/on``: tracking,
    /// or not known), reached `age` ago by the evidence: the stretch since then (since the power-down at most),
    /// costed meanwhile at the dearer state, is costed at the confirmed one. `running` says whether the receiver
    /// was sent to run again since (the policy's state): the confirmation then answers the last power-down.
    mutating func confirmed(_ confirmed: ReceiverPowerProfile.IdleState, age: Duration = .zero, running: Bool, now: EngineInstant) {
        guard !running else {
            confirmedAfterRestart(confirmed, age: age, now: now)
            return
        }
        advance(to: now)
        let confirmedPower = idlePower(confirmed)
        recost(last: age, at: confirmedPower, now: now)
        whereabouts = .down(confirmed)
        draw(confirmedPower, from: now)
    }

    /// Where the receiver went at the last power-down, confirmed only after it was started again: the stretch
    /// down (as far back as the evidence goes) is costed at the confirmed state, and the restart it implies —
    /// costed as none, the receiver not known to have gone down — acquires for its time to first fix.
    private mutating func confirmedAfterRestart(_ confirmed: ReceiverPowerProfile.IdleState, age: Duration, now: EngineInstant) {
        guard let pending = restartUnconfirmed, confirmed != .on else { return }
        restartUnconfirmed = nil
        advance(to: now)
        let idle = profile.idlePower(confirmed, mode: lastMode)
        let stretch = pending.restartedAt - max(now - age, pending.downFrom)
        if stretch > .zero, idle < pending.downPower { millijoules -= (pending.downPower - idle) * Double(stretch.saturatingNanoseconds) / 1e9 }
        let delay = profile.restartDelay(after: pending.downFor, in: confirmed)
        guard delay > .zero, acquisitionEnds == nil else { return }
        let end = pending.restartedAt + delay
        let acquired = min(end, now) - pending.restartedAt
        if acquired > .zero { millijoules += (profile.acquisition - pending.running) * Double(acquired.saturatingNanoseconds) / 1e9 }
        if end > now {
            acquisitionEnds = end
            draw(profile.acquisition, from: now)
        }
    }

    /// Draws `newPower` from `now` on.
    private mutating func draw(_ newPower: Double, from now: EngineInstant) {
        // The same power drawn on is one stretch (a confirmation may recost all of it).
        if newPower != power { powerSince = now }
        power = newPower
    }

    /// Costs the last `age` before `now` — back to the last change of power at most, so the power drawn over
    /// it is the current one — at `lower` instead: a confirmation whose evidence dates from then.
    private mutating func recost(last age: Duration, at lower: Double, now: EngineInstant) {
        guard age > .zero, lower < power else { return }
        let stretch = min(age, now - powerSince)
        if stretch > .zero { millijoules -= (power - lower) * Double(stretch.saturatingNanoseconds) / 1e9 }
    }

    /// What waiting in `state` costs; "on" is tracking in the last mode as far as it is known.
    private func idlePower(_ state: ReceiverPowerProfile.IdleState) -> Double {
        state == .on ? runningPower(lastMode) : profile.idlePower(state, mode: lastMode)
    }

    /// Counts the energy up to `now`; a restart's acquisition that ended meanwhile gives way to tracking.
    private mutating func advance(to now: EngineInstant) {
        guard now > since else { return }
        // An acquisition lasts only while the receiver runs (a power-down ends it), in the mode last sent.
        if let end = acquisitionEnds, end <= now {
            if end > since { millijoules += power * Double((end - since).saturatingNanoseconds) / 1e9 }
            since = max(since, end)
            acquisitionEnds = nil
            draw(runningPower(lastMode), from: since)
        }
        millijoules += power * Double((now - since).saturatingNanoseconds) / 1e9
        since = now
    }
}

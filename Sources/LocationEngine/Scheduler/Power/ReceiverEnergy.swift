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
    /// From a source that confirms: the mode whose setting the receiver confirmed since its last start
    /// (`nil`: none yet, costed as the dearest), kept while it is down.
    private var confirmedSetting: PowerMode?
    /// Whether the receiver confirmed its setting since it was last started or sent to a mode: it is then where
    /// it confirmed, whatever was asked (a receiver that refused to track stays in its power save).
    private var confirmedSinceCommand = false
    /// Where the receiver is while down, as far as it is known (confirmed, or commanded to a source that
    /// confirms nothing); "on" while it runs, or is not known to have gone down.
    private var state = ReceiverPowerProfile.IdleState.off
    /// When it last went down (the engine's start, before the first start).
    private var downSince = EngineInstant.zero
    /// When ``power`` last changed.
    private var powerSince = EngineInstant.zero
    /// When the acquisition of the current restart ends, while it lasts.
    private var acquisitionEnds: EngineInstant?
    /// Whether the receiver was sent down and has not confirmed where it went.
    private var downUnconfirmed = false
    /// A restart from a power-down not confirmed by then: what was costed, so that a confirmation arriving
    /// after the restart (an answer that came late) can cost the stretch down and the restart as they were.
    private var restartUnconfirmed: (restartedAt: EngineInstant, downFor: Duration, downPower: Double, downFrom: EngineInstant, running: Double)?
    /// A stop while the setting the receiver ran in was not confirmed: what was costed, so that a confirmation
    /// arriving after the stop can cost the stretch it ran as it was.
    private var stopUnconfirmed: (stoppedAt: EngineInstant, mode: PowerMode, power: Double, from: EngineInstant)?

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
        // A receiver that stayed on keeps the setting it confirmed; a restarted one has confirmed none yet.
        if state != .on || downUnconfirmed { confirmedSetting = nil }
        restartUnconfirmed = downUnconfirmed ? (now, now - downSince, power, powerSince, runningPower(mode)) : nil
        stopUnconfirmed = nil
        downUnconfirmed = false
        confirmedSinceCommand = false
        state = .on
        acquisitionEnds = delay > .zero ? now + delay : nil
        draw(acquisitionEnds == nil ? runningPower(mode) : profile.acquisition, from: now)
    }

    /// The running receiver was switched to `mode`.
    mutating func modeChanged(_ mode: PowerMode, now: EngineInstant) {
        guard self.mode != nil else { return }
        advance(to: now)
        self.mode = mode
        lastMode = mode
        confirmedSinceCommand = false
        if acquisitionEnds == nil { draw(runningPower(mode), from: now) }
    }

    /// The source reports that the running receiver confirmed the setting of `mode`
    /// (``SourceEvent/receiverTracking(_:age:)``), taken `age` ago: the stretch since then (since the last
    /// change at most), costed meanwhile at the dearer setting, is costed at the confirmed one.
    mutating func confirmedTracking(_ mode: PowerMode, age: Duration = .zero, now: EngineInstant) {
        guard confirms else { return }
        guard let current = self.mode else {
            // Confirmed after the stop: the stretch it ran before (as far back as the evidence goes).
            guard let pending = stopUnconfirmed else { return }
            stopUnconfirmed = nil
            let confirmed = max(profile.trackingPower(pending.mode), profile.trackingPower(mode))
            let stretch = pending.stoppedAt - max(now - age, pending.from)
            if stretch > .zero, confirmed < pending.power { millijoules -= (pending.power - confirmed) * Double(stretch.saturatingNanoseconds) / 1e9 }
            return
        }
        advance(to: now)
        confirmedSetting = mode
        confirmedSinceCommand = true
        guard acquisitionEnds == nil else { return }
        let confirmedPower = runningPower(current)
        recost(last: age, at: confirmedPower, now: now)
        draw(confirmedPower, from: now)
    }

    /// What tracking in `mode` costs as far as it is known: from a source that confirms, the setting the
    /// receiver confirmed since the last command, else the dearer of `mode` and the setting it confirmed
    /// before (the dearest mode while it confirmed none).
    private func runningPower(_ mode: PowerMode) -> Double {
        guard confirms else { return profile.trackingPower(mode) }
        if confirmedSinceCommand, let confirmedSetting { return profile.trackingPower(confirmedSetting) }
        let confirmed = confirmedSetting.map { profile.trackingPower($0) } ?? PowerMode.allCases.map { profile.trackingPower($0) }.max()!
        return max(profile.trackingPower(mode), confirmed)
    }

    /// The receiver was sent down into `target` (a stop without a state: off).
    mutating func sentDown(into target: ReceiverPowerProfile.IdleState, now: EngineInstant) {
        advance(to: now)
        if mode != nil { downSince = now }
        // A receiver stopped while acquiring is costed, until it confirms, as tracking (its acquisition would
        // have ended).
        let current = mode.map { runningPower($0) } ?? power
        if let mode, confirms, acquisitionEnds == nil, current > profile.trackingPower(mode) {
            stopUnconfirmed = (now, mode, current, powerSince)
        } else if mode != nil {
            stopUnconfirmed = nil
        }
        mode = nil
        acquisitionEnds = nil
        guard confirms else {
            state = target
            draw(profile.idlePower(target, mode: lastMode), from: now)
            return
        }
        // Unknown until the receiver confirms: costed at the dearer of where it was and where it was sent
        // (``state`` stays the last one known).
        downUnconfirmed = true
        draw(max(current, idlePower(target)), from: now)
    }

    /// The source reports the state its receiver confirmed (``ReceiverPowerProfile/IdleState/on``: tracking,
    /// or not known), reached `age` ago by the evidence: the stretch since then (since the power-down at most),
    /// costed meanwhile at the dearer state, is costed at the confirmed one.
    mutating func confirmed(_ confirmed: ReceiverPowerProfile.IdleState, age: Duration = .zero, now: EngineInstant) {
        guard mode == nil else {
            confirmedAfterRestart(confirmed, age: age, now: now)
            return
        }
        advance(to: now)
        let confirmedPower = idlePower(confirmed)
        recost(last: age, at: confirmedPower, now: now)
        state = confirmed
        downUnconfirmed = false
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
        if let end = acquisitionEnds, end <= now, let mode {
            if end > since { millijoules += power * Double((end - since).saturatingNanoseconds) / 1e9 }
            since = max(since, end)
            acquisitionEnds = nil
            draw(runningPower(mode), from: since)
        }
        millijoules += power * Double((now - since).saturatingNanoseconds) / 1e9
        since = now
    }
}

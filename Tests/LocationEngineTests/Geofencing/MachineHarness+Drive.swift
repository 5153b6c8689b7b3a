@testable import LocationEngine

extension MachineHarness {
    /// What a simulated drive saw.
    struct DriveLog {
        /// The instants fixes were given to the core.
        var fixes: [EngineInstant] = []
        /// The instants the source was started (or restarted from a step down).
        var starts: [EngineInstant] = []
        /// The first instant each transition of the watched monitor was seen.
        var transitions: [(GeofenceTransition, EngineInstant)] = []
    }

    /// Drives the core until `end` like an owner with a receiver: the core's wake-ups are taken at their
    /// instants, and while the source is on it gives a fix every `interval`, the first `timeToFirstFix`
    /// after it was started, at `east(now)` metres east of ``regionOrigin``. Records the transitions
    /// of `watched`.
    mutating func drive(
        until end: EngineInstant, interval: Duration = .seconds(1), timeToFirstFix: Duration, watched: String,
        east: (EngineInstant) -> Double
    ) -> DriveLog {
        var log = DriveLog()
        var nextFix: EngineInstant? = machine.isSourceOn ? now + timeToFirstFix : nil
        var seen = transitions[watched]?.count ?? 0
        while let next = earliest(nextFix, machine.nextWakeup), next <= end {
            let wasOn = machine.isSourceOn
            if next == nextFix {
                now = next
                fix(east: east(now))
                log.fixes.append(now)
                nextFix = now + interval
            } else {
                advance(by: max(.zero, next - now))
            }
            if machine.isSourceOn && !wasOn {
                log.starts.append(now)
                nextFix = now + timeToFirstFix
            } else if !machine.isSourceOn {
                nextFix = nil
            }
            for transition in (transitions[watched] ?? []).dropFirst(seen) { log.transitions.append((transition, now)) }
            seen = transitions[watched]?.count ?? 0
        }
        return log
    }
}

extension SourcePlanner {
    /// What the core knows of one source: what it declared, its planner (its state, its restart-aware plan,
    /// its receiver's energy, what it delivered), and the facts the choice among several weighs.
    struct Record: Sendable {
        /// What the source reaches, costs and declares.
        let capabilities: SourceCapabilities
        /// Its own planner.
        var planner: PowerPlanner
        /// Whether it failed for good, chosen no more until demand ends.
        var failed = false
        /// Its last fix, and when it last started.
        var lastFix: EngineInstant?
        var startedAt: EngineInstant?
        /// Its last transient error while it ran, and when (cleared by its next fix).
        var lastError: (error: SourceError, at: EngineInstant)?

        /// Brings the source in line with its `share` of the demand (see
        /// ``PowerPlanner/reconcile(demand:now:cap:monitoring:isShutDown:)``): its command, if any, goes into
        /// `commands` for `source`, and its next wake-up into `nextWakeup` (the earliest kept), read in the same
        /// access to the record (a second access through the array cost a uniqueness check, about 10 instructions).
        @inline(__always)
        mutating func reconcile(
            share: PowerDemand, now: EngineInstant, cap: PowerMode?, monitoring: Bool, isShutDown: Bool,
            into commands: inout SourceCommands, as source: SourceID, nextWakeup: inout EngineInstant?
        ) {
            // The steady state of a busy engine: nothing to command, and nothing to wake for.
            if planner.isSettled(demand: share, cap: cap, monitoring: monitoring) { return }
            if let command = planner.reconcile(demand: share, now: now, cap: cap, monitoring: monitoring, isShutDown: isShutDown) {
                commands.append(command, for: source)
                noteStart(command, now: now)
            }
            nextWakeup = earliest(nextWakeup, planner.readNextWakeup())
        }

        /// Notes when the source started, or that it stopped.
        mutating func noteStart(_ command: PowerPlanner.Command, now: EngineInstant) {
            switch command {
            case .start:
                startedAt = now
                lastError = nil
            case .stop, .idle: startedAt = nil
            case .setMode: break
            }
        }
    }
}

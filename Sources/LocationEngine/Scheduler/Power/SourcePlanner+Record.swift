extension SourcePlanner {
    /// What the core knows of one source: what it declared, its planner (its state — whether it runs, since
    /// when, or failed —, its restart-aware plan, its receiver's energy, what it delivered), and the facts the
    /// choice among several weighs.
    struct Record: Sendable {
        /// What the source reaches, costs and declares.
        let capabilities: SourceCapabilities
        /// Its own planner.
        var planner: PowerPlanner
        /// Its last fix.
        var lastFix: EngineInstant?
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
                note(command)
            }
            nextWakeup = earliest(nextWakeup, planner.readNextWakeup())
        }

        /// Notes a command sent to the source: a start begins a new run, which the last run's error does not
        /// concern.
        @inline(__always)
        mutating func note(_ command: PowerPlanner.Command) {
            if case .start = command { lastError = nil }
        }
    }
}

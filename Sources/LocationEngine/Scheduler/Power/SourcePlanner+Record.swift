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

        /// As the engine's only source: brings it in line with the whole `demand` and sets the power alarm,
        /// in one access to the record (a second access through the array cost about 10 instructions a request).
        @inline(__always)
        mutating func reconcileAlone(
            demand: PowerDemand, now: EngineInstant, cap: PowerMode?, monitoring: Bool, isShutDown: Bool, on timeline: inout Timeline
        ) -> PowerPlanner.Command? {
            let command = planner.reconcile(demand: demand, now: now, cap: cap, monitoring: monitoring, isShutDown: isShutDown)
            timeline.setAlarm(.power, at: planner.readNextWakeup())
            if let command { noteStart(command, now: now) }
            return command
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

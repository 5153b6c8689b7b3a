extension LocationEngine {
    /// Carries out a step down of the restart-aware rule: stops the running source into the step's state, or
    /// moves a stopped one deeper; one log line and the metrics say where to and why.
    func idleSource(_ step: PowerDownDecider.Step) {
        // From running the session ends; a step deeper while down changes none.
        if endSourceSession() {
            metrics.sourceStops.increment()
            metrics.source(mode: nil)
        }
        metrics.poweredDown(step)
        logger.info(
            "location source powered down",
            metadata: ["state": "\(step.state.rawValue)", "after": "\(step.after)", "reason": "\(step.reason)"])
        source.stop(into: step.state)
    }
}

extension LocationEngine {
    /// Whether the source runs, as the shell drove it: the session is odd exactly while it does.
    var sourceRunning: Bool { sourceGeneration & 1 == 1 }

    /// The source starts: a new session, odd. Returns it, for the events the source will report.
    func beginSourceSession() -> UInt64 {
        sourceGeneration &+= sourceRunning ? 2 : 1
        return sourceGeneration
    }

    /// The source stops (or takes its first step down): the session ends, even. Returns whether it ran.
    @discardableResult
    func endSourceSession() -> Bool {
        guard sourceRunning else { return false }
        sourceGeneration &+= 1
        return true
    }
}

extension LocationEngine {
    /// Carries out a step down of the restart-aware rule: stops the running source into the step's state, or
    /// moves a stopped one deeper; one log line and the metrics say where to and why.
    func idleSource(_ step: PowerDownDecider.Step) {
        if sourceRunning {
            sourceGeneration &+= 1
            sourceRunning = false
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

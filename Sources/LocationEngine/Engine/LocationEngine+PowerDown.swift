extension LocationEngine {
    /// Carries out a step down of the restart-aware rule: stops the running source into the step's state, or
    /// moves a stopped one deeper; one log line and the metrics say where to and why.
    func idleSource(_ source: SourceID, _ step: PowerDownDecider.Step) {
        // From running the session ends; a step deeper while down changes none.
        if endSourceSession(source) {
            metrics.sourceStops.increment()
            sourceStopped(source)
            metrics.source(mode: nil)
        }
        metrics.poweredDown(step)
        logger.info(
            "location source powered down",
            metadata: ["source": "\(source.index)", "state": "\(step.state.rawValue)", "after": "\(step.after)", "reason": "\(step.reason)"])
        sources[source.index].stop(into: step.state)
    }
}

extension LocationEngine {
    /// `source` stopped: its metrics count the stop and its time on so far.
    func sourceStopped(_ source: SourceID) {
        metrics.sources[source.index].stops.increment()
        let statistics = machine.statistics(now: now())
        let onTime = statistics.sources.isEmpty ? statistics.sourceOnTime : statistics.sources[source.index].onTime
        metrics.sources[source.index].onSeconds.record(Double(onTime.saturatingNanoseconds) / 1e9)
    }

    /// Whether `source` runs, as the shell drove it: its session is odd exactly while it does.
    func sourceRunning(_ source: SourceID) -> Bool { sourceGenerations[source.index] & 1 == 1 }

    /// `source` starts: a new session, odd. Returns it, for the events the source will report.
    func beginSourceSession(_ source: SourceID) -> UInt64 {
        sourceGenerations[source.index] &+= sourceRunning(source) ? 2 : 1
        return sourceGenerations[source.index]
    }

    /// `source` stops (or takes its first step down): the session ends, even. Returns whether it ran.
    @discardableResult
    func endSourceSession(_ source: SourceID) -> Bool {
        guard sourceRunning(source) else { return false }
        sourceGenerations[source.index] &+= 1
        return true
    }
}

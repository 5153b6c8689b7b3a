import Logging

/// The sources as the shell drives them, and the shell's one record of whether each runs: its session,
/// incremented on every start and on every stop (or first step down), so that it is odd exactly while
/// the source runs. Events carry the session they were reported in; another session's are dropped.
///
/// Each command the core decides for a source is carried out here, with its log line and metrics.
struct SourceSessions {
    /// The sources, in the order the engine was given them (``SourceID`` is the place in it).
    let sources: [any LocationSource]
    private var generations: [UInt64]
    /// The mode each source was last started in or set to (what it runs in while it runs): for the engine-wide
    /// gauges, which say whether any source runs and the finest mode running.
    private var modes: [PowerMode]
    private let metrics: EngineMetrics
    private let logger: Logger

    init(_ sources: [any LocationSource], metrics: EngineMetrics, logger: Logger) {
        self.sources = sources
        self.generations = Array(repeating: 0, count: sources.count)
        self.modes = Array(repeating: .lowest, count: sources.count)
        self.metrics = metrics
        self.logger = logger
    }

    /// Whether `source` runs, as the shell drove it.
    func isRunning(_ source: SourceID) -> Bool { generations[source.index] & 1 == 1 }

    /// Whether an event reported in session `generation` is `source`'s current session's — or, with
    /// `orJustEnded`, that of the session that has just stopped (a power-down or a setting may be
    /// confirmed after the stop).
    func isCurrent(_ generation: UInt64, of source: SourceID, orJustEnded: Bool = false) -> Bool {
        let current = generations[source.index]
        return generation == current || (orJustEnded && generation &+ 1 == current)
    }

    /// Starts `source` in `mode`, in a new session; `events` makes the sink that reports its events
    /// stamped with that session.
    mutating func start(_ source: SourceID, mode: PowerMode, events: (UInt64) -> SourceEventSink) {
        generations[source.index] &+= isRunning(source) ? 2 : 1
        logger.debug("starting location source", metadata: ["source": "\(source.index)", "mode": "\(mode)"])
        metrics.sourceStarts.increment()
        metrics.sources[source.index].starts.increment()
        modes[source.index] = mode
        publishRunningMode()
        sources[source.index].start(mode: mode, events: events(generations[source.index]))
    }

    /// Changes the mode `source` runs in.
    mutating func setMode(_ source: SourceID, _ mode: PowerMode) {
        logger.debug("changing location source mode", metadata: ["source": "\(source.index)", "mode": "\(mode)"])
        modes[source.index] = mode
        publishRunningMode()
        sources[source.index].setMode(mode)
    }

    /// Stops `source`; `onTime` is its total time on so far, for its metrics.
    mutating func stop(_ source: SourceID, onTime: Duration) {
        if isRunning(source) { generations[source.index] &+= 1 }
        countStop(source, onTime: onTime)
        logger.debug("stopping location source", metadata: ["source": "\(source.index)"])
        sources[source.index].stop()
    }

    /// Carries out a step down of the restart-aware rule: stops the running source into the step's state, or
    /// moves a stopped one deeper; one log line and the metrics say where to and why.
    mutating func idle(_ source: SourceID, _ step: PowerDownDecider.Step, onTime: Duration) {
        // From running the session ends; a step deeper while down changes none.
        if isRunning(source) {
            generations[source.index] &+= 1
            countStop(source, onTime: onTime)
        }
        metrics.poweredDown(step)
        logger.info(
            "location source powered down",
            metadata: ["source": "\(source.index)", "state": "\(step.state.rawValue)", "after": "\(step.after)", "reason": "\(step.reason)"])
        sources[source.index].stop(into: step.state)
    }

    /// The metrics count a stop of `source` and its time on so far.
    private func countStop(_ source: SourceID, onTime: Duration) {
        metrics.sourceStops.increment()
        metrics.sources[source.index].stops.increment()
        metrics.sources[source.index].onSeconds.record(Double(onTime.saturatingNanoseconds) / 1e9)
        publishRunningMode()
    }

    /// The engine-wide gauges: whether any source runs, and the finest mode among those running (a fallback
    /// beside the chosen source, or one lingering while the next starts, runs too).
    /// - Complexity: O(s) for s sources.
    private func publishRunningMode() {
        var finest: PowerMode?
        for index in sources.indices where generations[index] & 1 == 1 { finest = max(finest ?? modes[index], modes[index]) }
        metrics.source(mode: finest)
    }
}

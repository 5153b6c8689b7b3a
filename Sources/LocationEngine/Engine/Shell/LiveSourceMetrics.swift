/// The figures that grow while the sources run — each source's time on, what each delivered mode by mode, the
/// fixes superseded — published to the metrics on a fix at most once a second and at every stop, so that a
/// scrape sees them while a source runs, not only after it stopped.
struct LiveSourceMetrics {
    /// When the figures were last published.
    private var publishedAt: EngineInstant?
    /// The fixes superseded as last published (the counter grows by the difference).
    private var superseded = 0

    /// Whether a fix at `now` should publish the figures: a second or more since they last were.
    @inline(__always)
    func isDue(now: EngineInstant) -> Bool { publishedAt.map { now - $0 >= .seconds(1) } ?? true }

    /// Publishes `statistics` (taken at `now`) to `metrics`.
    mutating func publish(_ statistics: SchedulerStatistics, to metrics: EngineMetrics, now: EngineInstant) {
        publishedAt = now
        for (index, source) in metrics.sources.enumerated() {
            source.onSeconds.record(Double(statistics.onTime(of: SourceID(index)).saturatingNanoseconds) / 1e9)
            guard index < statistics.delivery.count else { continue }
            for (mode, figures) in statistics.delivery[index] {
                if let firstFix = figures.firstFixTime {
                    source.firstFixSeconds[mode.rawValue].record(Double(firstFix.saturatingNanoseconds) / 1e9)
                }
                source.silentRuns[mode.rawValue].record(figures.silences)
            }
        }
        if statistics.fixesSuperseded > superseded {
            metrics.fixesSuperseded.increment(by: statistics.fixesSuperseded - superseded)
            superseded = statistics.fixesSuperseded
        }
    }
}

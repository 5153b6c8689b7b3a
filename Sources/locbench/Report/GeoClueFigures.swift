import LocationSourcesGeoClue

/// What the GeoClue source measured in a run: its fixes and what it dropped, and how long it took from
/// GeoClue's `LocationUpdated` signal to handing the fix to the engine (the `GetAll` round trip included).
enum GeoClueFigures {
    static func print(_ statistics: GeoClueLocationSource.Statistics, label: String) {
        let times = statistics.handOverTimes.map { Double($0.components.attoseconds) / 1e15 + Double($0.components.seconds) * 1e3 }.sorted()
        func percentile(_ p: Double) -> String {
            guard !times.isEmpty else { return "-" }
            let value = times[min(times.count - 1, Int((p * Double(times.count)).rounded(.up)) - 1)]
            return String(format: "%.3f ms", value)
        }
        Swift.print(
            "GeoClue (\(label)): \(statistics.fixes) fixes, \(statistics.rejectedFixes) rejected, \(statistics.clientStarts) client starts, \(statistics.errors) errors; signal to engine p50 \(percentile(0.5)), p99 \(percentile(0.99)), max \(percentile(1))"
        )
    }
}

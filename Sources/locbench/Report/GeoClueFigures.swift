@_spi(Internals) import LocationEngine
import LocationSourcesGeoClue
import LocbenchModel

/// What the GeoClue source measured in a run: its fixes and what it dropped, and how long it took from
/// GeoClue's `LocationUpdated` signal to handing the fix to the engine (the `GetAll` round trip included).
enum GeoClueFigures {
    static func print(_ statistics: GeoClueLocationSource.Statistics, label: String) {
        var recorder = LatencyRecorder()
        for time in statistics.handOverTimes { recorder.record(nanoseconds: time.saturatingNanoseconds) }
        let summary = recorder.summary
        func milliseconds(_ microseconds: UInt64) -> String {
            summary.count == 0 ? "-" : "\(Double(microseconds) / 1_000) ms"
        }
        Swift.print(
            "GeoClue (\(label)): \(statistics.fixes) fixes, \(statistics.rejectedFixes) rejected, \(statistics.clientStarts) client starts, \(statistics.errors) errors; signal to engine p50 \(milliseconds(summary.p50)), p99 \(milliseconds(summary.p99)), max \(milliseconds(summary.max))"
        )
    }
}

import LocationEngine
import SyntheticGPS

/// locbench's duration options, read with ``DurationText`` (`90s`, `10m`, `250ms`, `1h30m`, or plain seconds).
public enum DurationOptions {
    /// `--timeouts MIN-MAX`: the range one-shot timeouts are drawn from, with 1ms <= MIN <= MAX <= 24h. Timeouts
    /// are drawn in whole milliseconds: a shorter one would be zero, which the engine reads as no timeout.
    public static func timeoutRange(parsing text: String) throws(LocbenchError) -> ClosedRange<Duration> {
        let parts = text.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 2, let low = seconds(parts[0], within: 0.001...86_400),
            let high = seconds(parts[1], within: low...86_400)
        else {
            throw .badArgument("--timeouts must be MIN-MAX with 1ms <= MIN <= MAX <= 24h, e.g. 1s-30s (got '\(text)')")
        }
        return .seconds(low)...(.seconds(high))
    }

    /// `--linger`: how long the source stays on after the last request needing it, from 0s to 1h.
    public static func linger(parsing text: String) throws(LocbenchError) -> Duration {
        guard let seconds = seconds(text, within: 0...3600) else {
            throw .badArgument("--linger must be a duration from 0s to 1h, e.g. 5s (got '\(text)')")
        }
        return .seconds(seconds)
    }

    /// `--on-period` and `--off-period`: the mean lengths, in seconds, of ``OnOffArrivals``' on periods and idle gaps.
    public static func onOffPeriods(on: String, off: String) throws(LocbenchError) -> (on: Double, off: Double) {
        // Not shorter than 1 ms: an on period far shorter than the gap between arrivals almost never holds one,
        // and drawing the next arrival would loop through idle gaps almost without end.
        guard let onSeconds = seconds(on, within: 0.001...86_400), let offSeconds = seconds(off, within: 0.001...86_400) else {
            throw .badArgument("--on-period and --off-period must be durations from 1ms to 24h, e.g. 30s (got '\(on)', '\(off)')")
        }
        return (onSeconds, offSeconds)
    }

    /// `--geofence-duration`: how long each geofence trajectory runs, from 1 minute to 24 hours.
    public static func geofenceDuration(parsing text: String) throws(LocbenchError) -> Double {
        guard let seconds = seconds(text, within: 60...86_400) else {
            throw .badArgument("--geofence-duration must be a duration from 1m to 24h, e.g. 1h (got '\(text)')")
        }
        return seconds
    }

    /// `--geofence-responsiveness`: a duration from 0 to 5 minutes (``GeofenceOptions/maximumResponsiveness``), in seconds.
    public static func geofenceResponsiveness(parsing text: String) throws(LocbenchError) -> Double {
        let largest = Double(GeofenceOptions.maximumResponsiveness.components.seconds)
        guard let seconds = seconds(text, within: 0...largest) else {
            throw .badArgument("--geofence-responsiveness must be a duration from 0s to \(Int(largest) / 60)m, e.g. 30s (got '\(text)')")
        }
        return seconds
    }

    /// The seconds `text` stands for when it is a duration within `range`; `nil` when it is malformed or outside.
    static func seconds(_ text: String, within range: ClosedRange<Double>) -> Double? {
        guard let seconds = try? DurationText.seconds(parsing: text), range.contains(seconds) else { return nil }
        return seconds
    }
}

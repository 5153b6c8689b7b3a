import LocationEngine
import NMEA

/// Turns decoded NMEA epochs into fixes: pure, no state but the de-duplication of repeated epochs
/// within one session.
struct NMEAEpochConverter: Sendable {
    /// What one epoch amounted to.
    enum Outcome: Sendable, Equatable {
        /// A new fix.
        case fix(Location)
        /// The receiver said it has no fix.
        case noFix
        /// An epoch already delivered in this session (a reconnect resumed mid-epoch, a receiver repeated it).
        case duplicate
        /// A fix with impossible values (out-of-range position, speed or course, or an error estimate
        /// beyond ``AccuracyConversion/largestHorizontalError``).
        case invalid
        /// The epoch says nothing usable about a position (mode unknown, or no coordinates).
        case noPosition
        /// A fix without any error estimate, skipped (``UnmeasuredAccuracy/skip``).
        case noAccuracy
    }

    private var recent = RecentFixTimes()
    private let unmeasuredAccuracy: UnmeasuredAccuracy

    /// Creates a converter; epochs without an error estimate are treated as `unmeasuredAccuracy` says.
    init(unmeasuredAccuracy: UnmeasuredAccuracy) {
        self.unmeasuredAccuracy = unmeasuredAccuracy
    }

    /// A session starts: epochs delivered in earlier sessions are no longer duplicates, so a stream
    /// that replays (a log read again, a receiver whose clock was reset) is delivered again.
    mutating func startSession() { recent = RecentFixTimes() }

    /// The outcome of `epoch`. Accuracy is the epoch's `horizontalAccuracy` (gpsd's ≈ 95 % scale)
    /// converted to the engine's 68 % radius (``AccuracyConversion``).
    /// - Complexity: O(1)
    mutating func convert(_ epoch: NMEAEpoch) -> Outcome {
        switch epoch.mode {
        case .noFix: return .noFix
        case .unknown: return .noPosition
        case .twoD, .threeD: break
        }
        guard let latitude = epoch.latitude, let longitude = epoch.longitude else { return .noPosition }
        let measured = AccuracyConversion.radius68(twoDRMS: epoch.horizontalAccuracy)
        // An error estimate that means nothing (beyond any distance on Earth) makes the fix suspect.
        if epoch.horizontalAccuracy != nil, measured == nil { return .invalid }
        guard let accuracy = measured ?? unmeasuredAccuracy.radius(threeD: epoch.mode == .threeD) else { return .noAccuracy }
        let time = epoch.unixTime
        if let time, !recent.insert(time) { return .duplicate }
        var location = Location(
            latitude: latitude, longitude: longitude, horizontalAccuracy: accuracy,
            altitude: epoch.altitudeMSL, ellipsoidalAltitude: epoch.altitudeHAE,
            verticalAccuracy: AccuracyConversion.vertical68(vertical95: epoch.verticalAccuracy),
            speed: epoch.speed, course: epoch.track.map { $0 == 360 ? 0 : $0 }, utcTime: time  // some receivers print north as 360
        )
        location.motionIsDerived = !epoch.derived.isDisjoint(with: [.speed, .track])
        location.horizontalAccuracyIsEstimated = measured == nil
        return location.isValid ? .fix(location) : .invalid
    }
}

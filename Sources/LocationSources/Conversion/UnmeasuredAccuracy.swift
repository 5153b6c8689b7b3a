import LocationEngine
import NMEA

/// What a source does with a fix whose receiver reported no error estimate at all: no `eph` nor
/// `epx`/`epy` from gpsd; neither an error sentence, GST errors nor an HDOP in NMEA. Such receivers exist
/// (some print positions and nothing about their quality), and their users expect positions.
public enum UnmeasuredAccuracy: Sendable, Hashable {
    /// Deliver the fix with an assumed 68 % radius in metres, by fix mode, marked as estimated
    /// (`Location.horizontalAccuracyIsEstimated`). A radius that is not finite or is
    /// negative skips the fix instead.
    case assume(threeD: Double, twoD: Double)
    /// Skip the fix and count it: only measured accuracies reach requests.
    case skip

    /// The default: 15.2 m for a 3D fix and 40.6 m for a 2D one — the 68 % radius that gpsd's own error
    /// model (HDOP × 19 m, a 2DRMS) gives an HDOP of 1.5, typical of a clear sky, and of 4, typical of
    /// the few satellites a 2D fix has.
    public static let typical = UnmeasuredAccuracy.assume(
        threeD: AccuracyConversion.radius68(twoDRMS: 1.5 * NMEAEpoch.hdopToHorizontalError)!,
        twoD: AccuracyConversion.radius68(twoDRMS: 4 * NMEAEpoch.hdopToHorizontalError)!)

    /// The radius to assume for a 3D fix (`threeD`) or a 2D one, or `nil` to skip it.
    func radius(threeD: Bool) -> Double? {
        guard case .assume(let radius3D, let radius2D) = self else { return nil }
        let radius = threeD ? radius3D : radius2D
        return radius.isFinite && radius >= 0 ? radius : nil
    }
}

/// Converts receivers' error estimates to the engine's meaning of `Location.horizontalAccuracy`:
/// the radius of a circle that holds the true position with about 68 % probability.
///
/// gpsd's `eph` (and the NMEA module's `NMEAEpoch.horizontalAccuracy`) is a 2DRMS figure:
/// `2 × √(σx² + σy²)`, about 95 % of fixes. gpsd's `epx`/`epy` are per-axis 95 % errors, about
/// `2σx` and `2σy`, so `√(epx² + epy²)` is the same 2DRMS. For a circular normal error with
/// per-axis σ, 2DRMS is `2√2·σ` and the 68 % radius is `√(−2 ln 0.32)·σ ≈ 1.5096 σ`, hence one factor:
/// `r68 = 2DRMS × 1.5096 / (2√2) ≈ 0.5337 × 2DRMS`.
///
/// An error larger than ``largestHorizontalError`` (half the Earth's circumference: no two places
/// are farther apart) says nothing about where the receiver is; it is not a measurement.
public enum AccuracyConversion {
    /// The largest horizontal error that means anything, in metres: half the equator, π × 6,378,137 m.
    public static let largestHorizontalError = Double.pi * 6_378_137

    /// The factor from a 2DRMS (≈ 95 %) horizontal error to the 68 % radius: ≈ 0.5337.
    public static let twoDRMSToRadius68 = (-2 * log(0.32)).squareRoot() / (2 * 2.0.squareRoot())

    /// The 68 % radius for a 2DRMS horizontal error such as gpsd's `eph`, or `nil` when it is not a
    /// number from 0 to ``largestHorizontalError``.
    public static func radius68(twoDRMS: Double?) -> Double? {
        guard let twoDRMS, twoDRMS.isFinite, twoDRMS >= 0, twoDRMS <= largestHorizontalError else { return nil }
        return twoDRMS * twoDRMSToRadius68
    }

    /// The 68 % radius from gpsd's per-axis 95 % errors `epx` and `epy`, or `nil` unless both are
    /// numbers from 0 to ``largestHorizontalError``.
    public static func radius68(epx: Double?, epy: Double?) -> Double? {
        guard let epx, let epy, epx.isFinite, epy.isFinite, epx >= 0, epy >= 0,
            epx <= largestHorizontalError, epy <= largestHorizontalError
        else { return nil }
        return radius68(twoDRMS: (epx * epx + epy * epy).squareRoot())
    }

    /// The 68 % (1σ) vertical error from a 95 % one such as gpsd's `epv` (`2σ`), or `nil` when invalid.
    public static func vertical68(vertical95: Double?) -> Double? {
        guard let vertical95, vertical95.isFinite, vertical95 >= 0 else { return nil }
        return vertical95 / 2
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#else
import Darwin
#endif

import LocationEngine

/// What the synthetic receiver does in each `PowerMode`.
///
/// | mode | positioning | 1σ error per axis | 68 % radius (HDOP 1) | fix interval at least |
/// |---|---|---|---|---|
/// | lowest | network (cell) | 1100 m | ≈ 1660 m | 60 s |
/// | low | network (Wi-Fi/cell) | 300 m | ≈ 450 m | 20 s |
/// | medium | duty-cycled GNSS | 25 m × HDOP / √2 | ≈ 27 m | 5 s |
/// | high | GNSS | 4.5 m × HDOP / √2 | ≈ 4.8 m | the scenario's |
/// | best | GNSS, all constellations | 2 m × HDOP / √2 | ≈ 2.1 m | the scenario's |
///
/// Satellite errors are correlated over 30 s (plus multipath events), network errors over 180 s.
///
/// Network modes need no satellites (they work in tunnels), fix within about a second of starting,
/// and report neither altitude, speed nor course. GNSS modes need a time to first fix, lose the fix
/// where the sky is blocked, and report speed and course from Doppler velocity.
public struct PowerModeProfile: Sendable, Hashable {
    /// Whether fixes come from satellites (otherwise from a network-style coarse locator).
    public var usesSatellites: Bool
    /// For satellite modes: the user-equivalent range error (1σ, metres); the per-axis horizontal σ is
    /// `rangeError × HDOP / √2` and the vertical σ `rangeError × VDOP`.
    public var rangeError: Double
    /// For network modes: the per-axis horizontal σ in metres.
    public var networkSigma: Double
    /// The shortest interval between fixes, in seconds.
    public var minimumInterval: Double
    /// Per-axis 1σ velocity error in m/s at HDOP 1 (satellite modes).
    public var velocitySigma: Double

    /// Creates a profile.
    public init(
        usesSatellites: Bool, rangeError: Double, networkSigma: Double, minimumInterval: Double,
        velocitySigma: Double
    ) {
        self.usesSatellites = usesSatellites
        self.rangeError = rangeError
        self.networkSigma = networkSigma
        self.minimumInterval = minimumInterval
        self.velocitySigma = velocitySigma
    }

    /// The profile of `mode`.
    public static func standard(_ mode: PowerMode) -> PowerModeProfile {
        switch mode {
        case .lowest:
            PowerModeProfile(
                usesSatellites: false, rangeError: 0, networkSigma: 1100, minimumInterval: 60,
                velocitySigma: 0
            )
        case .low:
            PowerModeProfile(
                usesSatellites: false, rangeError: 0, networkSigma: 300, minimumInterval: 20,
                velocitySigma: 0
            )
        case .medium:
            PowerModeProfile(
                usesSatellites: true, rangeError: 25, networkSigma: 0, minimumInterval: 5,
                velocitySigma: 0.3
            )
        case .high:
            PowerModeProfile(
                usesSatellites: true, rangeError: 4.5, networkSigma: 0, minimumInterval: 0,
                velocitySigma: 0.1
            )
        case .best:
            PowerModeProfile(
                usesSatellites: true, rangeError: 2, networkSigma: 0, minimumInterval: 0,
                velocitySigma: 0.05
            )
        }
    }
}

/// How much the receiver remembers when it is powered on, which sets its time to first fix.
public enum StartCondition: String, Sendable, Hashable, CaseIterable {
    /// No almanac, time or position: 32–45 s to the first fix, accuracy converging over about a minute.
    case cold
    /// Almanac valid, ephemerides stale (off 2 hours to 30 days): 25–35 s.
    case warm
    /// Ephemerides still valid (off under 2 hours): 1–3 s.
    case hot

    /// The condition after the satellite receiver has been off for `seconds` (`nil`: never ran).
    public init(offFor seconds: Double?) {
        switch seconds {
        case .none: self = .cold
        case .some(let s) where s < 2 * 3600: self = .hot
        case .some(let s) where s < 30 * 86_400: self = .warm
        case .some: self = .cold
        }
    }

    /// The range of times to first fix, in seconds.
    public var timeToFirstFix: ClosedRange<Double> {
        switch self {
        case .cold: 32...45
        case .warm: 25...35
        case .hot: 1...3
        }
    }

    /// How much worse than steady state the accuracy is at the first fix (it converges exponentially).
    var initialErrorFactor: Double {
        switch self {
        case .cold: 5
        case .warm: 3
        case .hot: 1.5
        }
    }

    /// Time constant of the convergence, in seconds.
    var convergenceTime: Double {
        switch self {
        case .cold: 30
        case .warm: 20
        case .hot: 8
        }
    }
}

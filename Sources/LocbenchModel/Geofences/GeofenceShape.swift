import SyntheticGPS

/// The trajectories `locbench --geofences` drives through its fences: a car, a pedestrian and a commute
/// with long stops, each a deterministic synthetic scenario with a ground truth.
public enum GeofenceShape: String, Sendable, Hashable, CaseIterable, Codable {
    /// A car on suburban and urban roads (30–80 km/h), intersections, lights and bends.
    case drive
    /// A pedestrian walking city blocks (about 1.4 m/s), waiting at crossings, under an urban sky.
    case walk
    /// A car on urban roads that stops for a long time now and then (1–10 minutes: a station, an errand,
    /// a jam), the stretch a receiver powered by geometry sleeps through.
    case commute

    /// The scenario of this shape for `seed`, at one fix per second in the finest modes.
    public func scenario(seed: UInt64) -> Scenario {
        switch self {
        case .drive: return .drive(seed: seed)
        case .walk: return .walk(seed: seed)
        case .commute:
            return Scenario(name: "commute", motion: .randomRoute(Self.commuting), seed: seed, environment: .suburban)
        }
    }

    /// The motion of this shape.
    public var motion: MotionProfile {
        switch self {
        case .drive: .driving
        case .walk: .walking
        case .commute: Self.commuting
        }
    }

    /// The fastest the mover may go, m/s: the top cruise speed with its jitter.
    public var topSpeed: Double {
        let profile = motion
        return (profile.cruiseSpeeds.max() ?? 1) * (1 + profile.speedJitter)
    }

    /// Urban roads (30–60 km/h) with a long stop at about one leg in three.
    static let commuting = MotionProfile(
        cruiseSpeeds: [30 / 3.6, 50 / 3.6, 50 / 3.6, 60 / 3.6], speedJitter: 0.06, acceleration: 1.5,
        deceleration: 2.0, lateralAcceleration: 2.0, legLength: 200...900, sharpTurnRadius: 8...15,
        bendRadius: 80...300, sharpTurnProbability: 0.5, stopProbability: 0.3, stopDuration: 60...600,
        maximumGrade: 0.04
    )

    /// Parses a comma-separated list of shape names (`drive,walk,commute`).
    public static func list(parsing text: String) throws(LocbenchError) -> [GeofenceShape] {
        var shapes: [GeofenceShape] = []
        for name in text.split(separator: ",", omittingEmptySubsequences: false) {
            guard let shape = GeofenceShape(rawValue: name.filter { $0 != " " }) else {
                throw .badArgument("--geofence-shapes must be a comma-separated list of drive, walk, commute (got '\(text)')")
            }
            if !shapes.contains(shape) { shapes.append(shape) }
        }
        return shapes
    }
}

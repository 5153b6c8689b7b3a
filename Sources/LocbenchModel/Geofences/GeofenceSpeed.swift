import LocationEngine

/// The ``GeofenceConfiguration/maximumSpeed`` a `locbench --geofences` run gives the engine
/// (`--geofence-max-speed`): each trajectory's own top speed — as a deployment that knows its vehicle (or that its
/// users walk) sets it — or one fixed speed for every trajectory.
public enum GeofenceSpeed: Sendable, Hashable {
    /// Each trajectory's ``GeofenceShape/topSpeed``.
    case trajectory
    /// This speed, m/s, for every trajectory.
    case fixed(Double)

    /// Parses `trajectory`, `default` (the engine's default, 30 m/s) or a speed in m/s within (0, 1000].
    public init(parsing text: String) throws(LocbenchError) {
        switch text {
        case "trajectory": self = .trajectory
        case "default": self = .fixed(GeofenceConfiguration().maximumSpeed)
        default:
            guard let speed = Double(text), speed.isFinite, speed > 0, speed <= 1000 else {
                throw .badArgument("--geofence-max-speed must be 'trajectory', 'default' or a speed in m/s within (0, 1000] (got '\(text)')")
            }
            self = .fixed(speed)
        }
    }

    /// The speed for `shape`, m/s.
    public func speed(for shape: GeofenceShape) -> Double {
        switch self {
        case .trajectory: shape.topSpeed
        case .fixed(let speed): speed
        }
    }

    /// How the speed was chosen, for the report.
    public var description: String {
        switch self {
        case .trajectory: "each trajectory's top speed"
        case .fixed(let speed): "\(speed) m/s for every trajectory"
        }
    }
}

import LocationEngine

/// The ``GeofenceConfiguration/maximumSpeed`` (and ``GeofenceConfiguration/maximumAcceleration``) a
/// `locbench --geofences` run gives the engine (`--geofence-max-speed`): each trajectory's own top speed and
/// largest forward acceleration — as a deployment that knows its vehicle (or that its users walk) sets them — or
/// one fixed speed for every trajectory, with no acceleration bound.
public enum GeofenceSpeed: Sendable, Hashable {
    /// Each trajectory's ``GeofenceShape/topSpeed`` and its motion's largest forward acceleration.
    case trajectory
    /// This speed, m/s, for every trajectory.
    case fixed(Double)

    /// Parses `trajectory`, `default` (the engine's default, 30 m/s) or a speed in m/s from 0.1 (slower than anyone
    /// walks: a smaller one would let the receiver sleep for days) to 1000, written in decimal.
    public init(parsing text: String) throws(LocbenchError) {
        switch text {
        case "trajectory": self = .trajectory
        case "default": self = .fixed(GeofenceConfiguration().maximumSpeed)
        default:
            guard text.allSatisfy({ $0.isNumber || $0 == "." }), let speed = Double(text), (0.1...1000).contains(speed) else {
                throw .badArgument("--geofence-max-speed must be 'trajectory', 'default' or a speed in m/s from 0.1 to 1000 (got '\(text)')")
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

    /// The acceleration bound for `shape`, m/s² (`nil`: none).
    public func acceleration(for shape: GeofenceShape) -> Double? {
        switch self {
        case .trajectory: shape.motion.acceleration
        case .fixed: nil
        }
    }

    /// How the speed was chosen, for the report.
    public var description: String {
        switch self {
        case .trajectory: "each trajectory's top speed and acceleration"
        case .fixed(let speed): "\(speed) m/s for every trajectory"
        }
    }
}

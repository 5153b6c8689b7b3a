/// Everything that determines a synthetic run: where and how the device moves, what the sky looks like,
/// when it is blocked, how often the receiver reports, and the seed. Same scenario, same output, bit for bit.
public struct Scenario: Sendable, Hashable {
    /// How the device moves.
    public enum Motion: Sendable, Hashable {
        /// It stays put.
        case stationary
        /// An endless random route of legs, turns and stops with this profile.
        case randomRoute(MotionProfile)
        /// Along these waypoints (at least two) with this profile, then it stays at the last one.
        case waypoints([Coordinate], MotionProfile)
    }

    /// A short name for logs and file headers.
    public var name: String
    /// How the device moves.
    public var motion: Motion
    /// Where it starts.
    public var origin: Coordinate
    /// Altitude above mean sea level at the start, in metres.
    public var altitude: Double
    /// Height of the geoid above the WGS-84 ellipsoid at the site, in metres (ellipsoidal = MSL + this).
    public var geoidSeparation: Double
    /// UTC time of the start, in seconds since 1970.
    public var startTime: Double
    /// Seconds between epochs in the finest power modes (`1` = 1 Hz).
    public var fixInterval: Double

    /// The fix rates the tools run a synthetic receiver at, in fixes per second: from one every 1,000 s to 100 a
    /// second (``fixInterval`` is one over the rate).
    public static let fixRates: ClosedRange<Double> = 0.001...100
    /// The seed of every random choice.
    public var seed: UInt64
    /// The antenna's surroundings.
    public var environment: Environment
    /// When the sky is blocked.
    public var outages: OutagePlan
    /// The receiver's memory at the first power-on.
    public var startCondition: StartCondition
    /// How much of the error model's position and velocity error the fixes carry (the satellites' fixes and the
    /// network locator's alike): `1` (the default) all of it, `0` none — each fix then lies on the truth and
    /// gives the true velocity, while its reported accuracy
    /// (and everything else: the sky, the restarts, the outages) stays the receiver's. Between, the error
    /// scaled. For measuring what the noise alone costs a design, not for a receiver's behaviour.
    public var fixErrorScale: Double = 1

    /// Creates a scenario. Defaults: Berlin, 34 m MSL, 2026-01-01T00:00:00Z, 1 Hz, hot start.
    public init(
        name: String, motion: Motion, seed: UInt64, origin: Coordinate = Coordinate(latitude: 52.520_008, longitude: 13.404_954),
        altitude: Double = 34, geoidSeparation: Double = 39.6, startTime: Double = 1_767_225_600,
        fixInterval: Double = 1, environment: Environment = .suburban, outages: OutagePlan = .none,
        startCondition: StartCondition = .hot
    ) {
        self.name = name
        self.motion = motion
        self.seed = seed
        self.origin = origin
        self.altitude = altitude
        self.geoidSeparation = geoidSeparation
        self.startTime = startTime
        self.fixInterval = fixInterval
        self.environment = environment
        self.outages = outages
        self.startCondition = startCondition
    }

    /// The names ``named(_:seed:)`` accepts.
    public static let names = ["stationary", "walk", "drive", "tunnel"]

    /// A device lying on a table under open sky.
    public static func stationary(seed: UInt64) -> Scenario {
        Scenario(name: "stationary", motion: .stationary, seed: seed, environment: .openSky)
    }

    /// A pedestrian walking city blocks, waiting at crossings.
    public static func walk(seed: UInt64) -> Scenario {
        Scenario(name: "walk", motion: .randomRoute(.walking), seed: seed, environment: .urban)
    }

    /// A car on suburban and urban roads, with intersections, lights and bends.
    public static func drive(seed: UInt64) -> Scenario {
        Scenario(name: "drive", motion: .randomRoute(.driving), seed: seed, environment: .suburban)
    }

    /// ``drive(seed:)`` with a 60 s tunnel every 5 minutes, the first at 2 minutes.
    public static func tunnel(seed: UInt64) -> Scenario {
        var scenario = drive(seed: seed)
        scenario.name = "tunnel"
        scenario.outages = OutagePlan(repeating: RepeatingOutage(first: 120, period: 300, duration: 60))
        return scenario
    }

    /// The scenario called `name` (one of ``names``).
    /// - Throws: ``SyntheticGPSError`` when the name is unknown.
    public static func named(_ name: String, seed: UInt64) throws(SyntheticGPSError) -> Scenario {
        switch name.lowercased() {
        case "stationary": stationary(seed: seed)
        case "walk", "walking": walk(seed: seed)
        case "drive", "driving": drive(seed: seed)
        case "tunnel": tunnel(seed: seed)
        default: throw .unknownScenario(name)
        }
    }
}

/// How a mover behaves: speeds, accelerations, how sharp its turns are and how often it stops.
///
/// The presets are plausible figures for a pedestrian in a city and a car on urban and suburban roads.
public struct MotionProfile: Sendable, Hashable {
    /// Speed limits a leg may have, in m/s, drawn with equal probability (repeat a value to weight it).
    public var cruiseSpeeds: [Double]
    /// Relative spread of the cruise speed between legs (`0.1` = ±10 %).
    public var speedJitter: Double
    /// Largest forward acceleration in m/s².
    public var acceleration: Double
    /// Comfortable braking deceleration in m/s².
    public var deceleration: Double
    /// Largest lateral acceleration in turns, in m/s² (limits the speed on arcs to √(a·R)).
    public var lateralAcceleration: Double
    /// Range of straight leg lengths in metres.
    public var legLength: ClosedRange<Double>
    /// Radius range of sharp (intersection) turns in metres.
    public var sharpTurnRadius: ClosedRange<Double>
    /// Radius range of gentle bends in metres.
    public var bendRadius: ClosedRange<Double>
    /// Probability that a leg ends in a sharp ±90° turn rather than a gentle bend.
    public var sharpTurnProbability: Double
    /// Probability of stopping at the end of a leg.
    public var stopProbability: Double
    /// Range of stop durations in seconds.
    public var stopDuration: ClosedRange<Double>
    /// Largest road grade (rise per metre, symmetric).
    public var maximumGrade: Double

    /// Creates a profile.
    public init(
        cruiseSpeeds: [Double], speedJitter: Double, acceleration: Double,
        deceleration: Double, lateralAcceleration: Double, legLength: ClosedRange<Double>,
        sharpTurnRadius: ClosedRange<Double>, bendRadius: ClosedRange<Double>, sharpTurnProbability: Double,
        stopProbability: Double, stopDuration: ClosedRange<Double>, maximumGrade: Double
    ) {
        self.cruiseSpeeds = cruiseSpeeds
        self.speedJitter = speedJitter
        self.acceleration = acceleration
        self.deceleration = deceleration
        self.lateralAcceleration = lateralAcceleration
        self.legLength = legLength
        self.sharpTurnRadius = sharpTurnRadius
        self.bendRadius = bendRadius
        self.sharpTurnProbability = sharpTurnProbability
        self.stopProbability = stopProbability
        self.stopDuration = stopDuration
        self.maximumGrade = maximumGrade
    }

    /// A pedestrian: about 1.4 m/s, blocks of 20–200 m, waits at crossings.
    public static let walking = MotionProfile(
        cruiseSpeeds: [1.25, 1.4, 1.4, 1.6], speedJitter: 0.08, acceleration: 0.6,
        deceleration: 0.9, lateralAcceleration: 0.8, legLength: 20...200, sharpTurnRadius: 1...2,
        bendRadius: 15...60, sharpTurnProbability: 0.6, stopProbability: 0.25, stopDuration: 5...35,
        maximumGrade: 0.03
    )

    /// A car: 30, 50 and 80 km/h roads, intersections, traffic lights and bends.
    public static let driving = MotionProfile(
        cruiseSpeeds: [30 / 3.6, 50 / 3.6, 50 / 3.6, 50 / 3.6, 80 / 3.6, 80 / 3.6], speedJitter: 0.06, acceleration: 2.0,
        deceleration: 2.5, lateralAcceleration: 2.5, legLength: 120...900, sharpTurnRadius: 8...15,
        bendRadius: 80...400, sharpTurnProbability: 0.5, stopProbability: 0.3, stopDuration: 5...45,
        maximumGrade: 0.05
    )

    /// Draws a cruise speed for one leg.
    func drawCruiseSpeed(using random: inout SeededGenerator) -> Double {
        guard !cruiseSpeeds.isEmpty else { return 1 }
        let index = min(cruiseSpeeds.count - 1, Int(random.nextUnit() * Double(cruiseSpeeds.count)))
        return max(0.1, cruiseSpeeds[index] * (1 + speedJitter * (2 * random.nextUnit() - 1)))
    }
}

/// What surrounds the antenna: how much sky it sees and how often reflections disturb it.
public struct Environment: Sendable, Hashable {
    /// Satellites below this elevation (degrees) are not tracked.
    public var elevationMask: Double
    /// Satellites below this elevation (degrees) may be hidden by buildings.
    public var canyonElevation: Double
    /// Probability that a satellite below ``canyonElevation`` is blocked (re-drawn every minute).
    public var blockageProbability: Double
    /// Mean number of multipath events per hour.
    public var multipathPerHour: Double

    /// Creates an environment.
    public init(elevationMask: Double, canyonElevation: Double, blockageProbability: Double, multipathPerHour: Double) {
        self.elevationMask = elevationMask
        self.canyonElevation = canyonElevation
        self.blockageProbability = blockageProbability
        self.multipathPerHour = multipathPerHour
    }

    /// An open field: everything above 5° is visible, rare multipath.
    public static let openSky = Environment(
        elevationMask: 5, canyonElevation: 0, blockageProbability: 0, multipathPerHour: 2
    )
    /// Suburban roads: some low satellites behind trees and houses.
    public static let suburban = Environment(
        elevationMask: 10, canyonElevation: 25, blockageProbability: 0.2, multipathPerHour: 8
    )
    /// City streets: many low satellites hidden, frequent multipath.
    public static let urban = Environment(
        elevationMask: 10, canyonElevation: 35, blockageProbability: 0.35, multipathPerHour: 20
    )
}

/// A time window with no sky at all (a tunnel, an underground car park), in seconds since the start.
public struct Outage: Sendable, Hashable {
    /// When the outage begins.
    public var start: Double
    /// How long it lasts.
    public var duration: Double

    /// Creates an outage window.
    public init(start: Double, duration: Double) {
        self.start = start
        self.duration = duration
    }

    /// Whether `elapsed` falls inside the window (start inclusive, end exclusive).
    public func contains(_ elapsed: Double) -> Bool {
        elapsed >= start && elapsed < start + duration
    }
}

/// When the sky is blocked: explicit windows, plus optionally a repeating pattern (a road with a tunnel
/// every few minutes).
public struct OutagePlan: Sendable, Hashable {
    /// Explicit windows.
    public var windows: [Outage]
    /// A window of `duration` seconds every `period` seconds, the first starting at `first`; `nil` for none.
    public var repeating: (first: Double, period: Double, duration: Double)? {
        get { repeatingStorage.map { ($0.start, $0.period, $0.duration) } }
        set { repeatingStorage = newValue.map { Repeating(start: $0.first, period: $0.period, duration: $0.duration) } }
    }
    private var repeatingStorage: Repeating?
    private struct Repeating: Sendable, Hashable {
        var start: Double
        var period: Double
        var duration: Double
    }

    /// A plan with `windows` and an optional repeating pattern.
    public init(windows: [Outage] = [], repeating: (first: Double, period: Double, duration: Double)? = nil) {
        self.windows = windows
        self.repeating = repeating
    }

    /// No outages.
    public static let none = OutagePlan()

    /// Whether the sky is blocked at `elapsed` seconds.
    /// - Complexity: O(number of explicit windows).
    public func isBlocked(at elapsed: Double) -> Bool {
        if let r = repeatingStorage, elapsed >= r.start, r.period > 0,
            (elapsed - r.start).truncatingRemainder(dividingBy: r.period) < r.duration
        {
            return true
        }
        return windows.contains { $0.contains(elapsed) }
    }
}

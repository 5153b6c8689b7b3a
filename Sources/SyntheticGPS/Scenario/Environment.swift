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

/// A window of `duration` seconds every `period` seconds, the first starting at `first` (a road with a
/// tunnel every few minutes).
public struct RepeatingOutage: Sendable, Hashable {
    /// When the first window begins, in seconds since the start.
    public var first: Double
    /// Seconds from one window's start to the next (`> 0`).
    public var period: Double
    /// Length of each window in seconds.
    public var duration: Double

    /// Creates a repeating pattern.
    public init(first: Double, period: Double, duration: Double) {
        self.first = first
        self.period = period
        self.duration = duration
    }
}

/// When the sky is blocked: explicit windows plus, optionally, a repeating pattern.
public struct OutagePlan: Sendable, Hashable {
    /// Explicit windows.
    public var windows: [Outage]
    /// A repeating pattern, or `nil`.
    public var repeating: RepeatingOutage?

    /// A plan with `windows` and an optional repeating pattern.
    public init(windows: [Outage] = [], repeating: RepeatingOutage? = nil) {
        self.windows = windows
        self.repeating = repeating
    }

    /// No outages.
    public static let none = OutagePlan()

    /// Whether the sky is blocked at `elapsed` seconds.
    /// - Complexity: O(number of explicit windows).
    public func isBlocked(at elapsed: Double) -> Bool {
        if let r = repeating, elapsed >= r.first, r.period > 0,
            (elapsed - r.first).truncatingRemainder(dividingBy: r.period) < r.duration
        {
            return true
        }
        return windows.contains { $0.contains(elapsed) }
    }
}

extension Outage {
    /// Parses `START+LENGTH` with ``DurationText`` durations, e.g. `120s+45s` or `2m+1m`.
    /// - Throws: ``SyntheticGPSError`` when either part is malformed or the length is zero.
    public init(parsing text: String) throws(SyntheticGPSError) {
        let parts = text.split(separator: "+", omittingEmptySubsequences: false)
        guard parts.count == 2 else {
            throw .invalidArgument("bad outage '\(text)'; write START+LENGTH, e.g. 120s+45s")
        }
        let start = try DurationText.seconds(parsing: String(parts[0]))
        let duration = try DurationText.seconds(parsing: String(parts[1]))
        guard duration > 0 else { throw .invalidArgument("bad outage '\(text)'; the length must be positive") }
        self.init(start: start, duration: duration)
    }
}

import LocationEngine

/// How far past a boundary the truth must be before a fix can decide the crossing, instant by instant: the engine's
/// decision distance (``GeofenceConfiguration/decisionDistance(accuracy:)``) at the accuracy the receiver gave at that
/// instant while tracking continuously. A design that refuses false transitions cannot decide sooner on that
/// receiver's fixes, whatever it does with its power: when the sky degrades the fixes (multipath, a blocked view)
/// the distance grows with them for every design alike.
///
/// ``median`` is the same rule at the receiver's median accuracy: the one distance that says which excursions are
/// too shallow to be owed a transition, and the yardstick of the decidable instants printed beside the others.
public struct DecisionMargin: Sendable, Hashable {
    /// At the receiver's median accuracy, metres.
    public var median: Double
    /// At each whole second of the run, metres (`median` where the receiver gave no fix); empty: `median` throughout.
    public var perSecond: [Double]

    /// One distance throughout.
    public init(constant metres: Double) {
        median = metres
        perSecond = []
    }

    /// The rules' decision distance at `accuracies` (the receiver's fix at each second of the run while tracking
    /// continuously, metres; `nil` where it gave none), and at `medianAccuracy`.
    public init(rules: GeofenceConfiguration, medianAccuracy: Double, accuracies: [Double?]) {
        let median = rules.decisionDistance(accuracy: medianAccuracy)
        self.median = median
        perSecond = accuracies.map { $0.map(rules.decisionDistance(accuracy:)) ?? median }
    }

    /// The distance at `seconds`, read linearly between the whole seconds around it (the receiver's accuracy moves
    /// between its fixes; neither neighbour alone is the instant's).
    /// - Complexity: O(1)
    public func at(_ seconds: Double) -> Double {
        guard !perSecond.isEmpty, seconds >= 0 else { return median }
        let lower = Int(seconds.rounded(.down))
        guard lower + 1 < perSecond.count else { return perSecond[min(lower, perSecond.count - 1)] }
        let fraction = seconds - Double(lower)
        return perSecond[lower] + (perSecond[lower + 1] - perSecond[lower]) * fraction
    }
}

import LocationEngine
import LocbenchModel

/// A true crossing the engine never reported although its excursion went deeper than the margin, with what its
/// fixes saw of it: the fix that came nearest to deciding it (the most past the boundary on the far side beyond
/// what the engine's rules ask of a fix of its accuracy), how far past it was, its accuracy, and what was asked. The margin is the decision distance at the
/// receiver's *median* accuracy; an excursion a metre or two past it is decided by a fix's noise and accuracy.
struct GeofenceMiss: Codable, Sendable {
    var fence: Int
    var entering: Bool
    /// The true crossing, seconds since the start.
    var crossingSeconds: Double
    /// How far past the boundary the true path went before it crossed back (or the run ended), metres.
    var excursionDepth: Double
    /// The fixes taken during the excursion.
    var fixes: Int
    /// A fix taken during the excursion: how far past the boundary on the far side it was, its accuracy, and the
    /// distance the rules ask of a fix that accurate, metres.
    struct Fix: Codable, Sendable {
        var depth: Double
        var accuracy: Double
        var asked: Double
    }
    /// The fix that came nearest to deciding the crossing, the most past the distance asked of it (`nil`: no fix
    /// during the excursion).
    var nearestFix: Fix?
    /// See ``MissedCrossing/endsMissedExcursion``.
    var endsMissedExcursion: Bool

    /// The engine's missed crossings in `comparison`, against the fixes of `design`.
    static func list(comparison: TransitionComparison, design: GeofenceDesignRun, fences: [PlacedFence], rules: GeofenceConfiguration, end: Double) -> [GeofenceMiss] {
        comparison.missedCrossings.map { missed in
            let crossing = missed.crossing
            let region = fences[missed.fence].region
            let side: Double = crossing.entering ? -1 : 1
            let first = max(0, Int(crossing.seconds.rounded(.up)))
            let last = min(design.fixes.count - 1, Int((missed.next?.seconds ?? end).rounded(.down)))
            let taken: [Fix] = first <= last
                ? (first...last).compactMap { second in
                    guard let fix = design.fixes[second], let accuracy = design.fixAccuracies[second] else { return nil }
                    return Fix(depth: side * region.signedDistance(to: fix), accuracy: accuracy, asked: rules.decisionDistance(accuracy: accuracy))
                }
                : []
            return GeofenceMiss(
                fence: missed.fence, entering: crossing.entering, crossingSeconds: crossing.seconds, excursionDepth: crossing.excursionDepth,
                fixes: taken.count, nearestFix: taken.max { $0.depth - $0.asked < $1.depth - $1.asked },
                endsMissedExcursion: missed.endsMissedExcursion)
        }
    }
}

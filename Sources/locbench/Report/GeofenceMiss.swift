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
    /// The fix that came nearest to deciding the crossing — the most past the boundary on the far side beyond the
    /// distance the rules asked of a fix of its accuracy (`nil`: no fix during the excursion): how far past the
    /// boundary it was, its accuracy, and that distance, metres.
    var nearestFixDepth: Double?
    var nearestFixAccuracy: Double?
    var nearestFixAskedDepth: Double?
    /// Whether the crossing ends an excursion whose first crossing was missed too (the crossing just before it, of
    /// the same fence, missed and not itself such an end): the design's state, never changed, is right again, and
    /// only the first crossing says what its fixes missed.
    var endsMissedExcursion: Bool

    /// The engine's missed crossings in `comparison`, against the fixes of `design`.
    static func list(comparison: TransitionComparison, design: GeofenceDesignRun, fences: [PlacedFence], rules: GeofenceConfiguration, end: Double) -> [GeofenceMiss] {
        var misses: [GeofenceMiss] = []
        var previous: (fence: Int, index: Int, endsExcursion: Bool)?
        for (fence, index, crossing, next) in comparison.missedCrossings {
            let endsMissedExcursion = previous.map { $0.fence == fence && $0.index == index - 1 && !$0.endsExcursion } ?? false
            previous = (fence, index, endsMissedExcursion)
            let region = fences[fence].region
            let side: Double = crossing.entering ? -1 : 1
            let first = max(0, Int(crossing.seconds.rounded(.up)))
            let last = min(design.fixes.count - 1, Int((next?.seconds ?? end).rounded(.down)))
            var fixes = 0
            var nearest: (depth: Double, accuracy: Double, asked: Double)?
            if first <= last {
                for second in first...last {
                    guard let fix = design.fixes[second], let accuracy = design.fixAccuracies[second] else { continue }
                    fixes += 1
                    let depth = side * region.signedDistance(to: fix)
                    let asked = rules.decisionDistance(accuracy: accuracy)
                    if depth - asked > nearest.map({ $0.depth - $0.asked }) ?? -.infinity { nearest = (depth, accuracy, asked) }
                }
            }
            misses.append(
                GeofenceMiss(
                    fence: fence, entering: crossing.entering, crossingSeconds: crossing.seconds, excursionDepth: crossing.excursionDepth,
                    fixes: fixes, nearestFixDepth: nearest?.depth, nearestFixAccuracy: nearest?.accuracy, nearestFixAskedDepth: nearest?.asked,
                    endsMissedExcursion: endsMissedExcursion))
        }
        return misses
    }
}

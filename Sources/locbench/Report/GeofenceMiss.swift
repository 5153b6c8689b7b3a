import LocationEngine
import LocbenchModel

/// A true crossing the engine never reported although its excursion went deeper than the margin, with what its
/// fixes saw of it: the deepest fix on the far side during the excursion, that fix's accuracy, and how far across
/// the boundary the engine's rules asked a fix of that accuracy to be. The margin is the decision distance at the
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
    /// The fix that went deepest past the boundary on the far side (`nil`: no fix during the excursion): how far,
    /// its accuracy, and the distance the rules asked of a fix of that accuracy, metres.
    var deepestFixDepth: Double?
    var deepestFixAccuracy: Double?
    var deepestFixAskedDepth: Double?
    /// Whether the crossing ends an excursion whose first crossing was missed too: the design's state, never
    /// changed, is right again, and only the first crossing says what its fixes missed.
    var endsMissedExcursion: Bool

    /// The engine's missed crossings in `comparison`, against the fixes of `design`.
    static func list(comparison: TransitionComparison, design: GeofenceDesignRun, fences: [PlacedFence], rules: GeofenceConfiguration, end: Double) -> [GeofenceMiss] {
        let missed = comparison.missedCrossings
        return missed.indices.map { index in
            let (fence, crossing, next) = missed[index]
            let region = fences[fence].region
            let side: Double = crossing.entering ? -1 : 1
            let first = max(0, Int(crossing.seconds.rounded(.up)))
            let last = min(design.fixes.count - 1, Int((next?.seconds ?? end).rounded(.down)))
            var fixes = 0
            var deepest: (depth: Double, accuracy: Double?)?
            if first <= last {
                for second in first...last {
                    guard let fix = design.fixes[second] else { continue }
                    fixes += 1
                    let depth = side * region.signedDistance(to: fix)
                    if depth > deepest?.depth ?? -.infinity { deepest = (depth, design.fixAccuracies[second]) }
                }
            }
            return GeofenceMiss(
                fence: fence, entering: crossing.entering, crossingSeconds: crossing.seconds, excursionDepth: crossing.excursionDepth, fixes: fixes,
                deepestFixDepth: deepest?.depth, deepestFixAccuracy: deepest?.accuracy,
                deepestFixAskedDepth: deepest?.accuracy.map { rules.decisionDistance(accuracy: $0) },
                endsMissedExcursion: index > 0 && missed[index - 1].fence == fence && missed[index - 1].next?.seconds == crossing.seconds)
        }
    }
}

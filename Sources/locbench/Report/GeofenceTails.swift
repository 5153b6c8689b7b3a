import LocationEngine
import LocbenchModel

/// The slowest transitions of one design over one trajectory, each with what set its latency: how fast the mover
/// went at the true crossing, what the receiver was doing then, how many seconds after it had no fix, and how far
/// past the boundary (and how accurate) the fix that decided it was.
struct GeofenceTail: Codable, Sendable {
    var fence: Int
    var entering: Bool
    /// The true crossing and the delivery, seconds since the start.
    var crossingSeconds: Double
    var latencySeconds: Double
    /// The design's estimate of the crossing minus the true crossing, seconds (`nil`: no estimate).
    var estimateErrorSeconds: Double?
    /// The true speed at the crossing, m/s.
    var speed: Double
    /// The receiver's mode in the second of the crossing (`off`, or the mode it ran in).
    var receiverAtCrossing: String
    /// Seconds between the crossing and the delivery with no fix (the receiver off, or acquiring).
    var secondsWithoutFix: Int
    /// The deciding fix (at the delivery): its accuracy, and how far past the boundary it was on the new side, metres
    /// (negative: still on the old side, as a crossing found between two fixes can be).
    var decidingAccuracy: Double?
    var decidingDepth: Double?
    /// How far past the boundary the true path was at the delivery, metres.
    var trueDepthAtDelivery: Double
    /// How far the true path went between the crossing and the delivery, metres (much more than the depth: it ran
    /// along the boundary).
    var travelledToDelivery: Double

    /// The `count` detected transitions of `design` against `judged` that score highest by `score` (the latency, or
    /// the estimate's error), highest first.
    static func worst(
        _ count: Int, judged: [JudgedTransition], design: GeofenceDesignRun, fences: [PlacedFence], path: TruthPath,
        by score: (JudgedTransition) -> Double = { $0.seconds - $0.crossing!.seconds }
    ) -> [GeofenceTail] {
        let detected = judged.filter { $0.verdict == .detected && $0.crossing != nil }
        let slowest = detected.sorted { score($0) > score($1) }.prefix(count)
        return slowest.map { judged in
            let crossing = judged.crossing!
            let region = fences[judged.fence].region
            let side: Double = judged.entering ? -1 : 1
            let delivery = Int(judged.seconds.rounded())
            let first = Int(crossing.seconds.rounded(.up))
            let crossingSecond = min(design.modes.count - 1, max(0, Int(crossing.seconds.rounded(.down))))
            let withoutFix = first <= delivery ? (first...delivery).count { $0 < design.fixes.count && design.fixes[$0] == nil } : 0
            let decidingFix = delivery < design.fixes.count ? design.fixes[delivery] : nil
            let speedIndex = min(path.samples.count - 1, max(0, Int(crossing.seconds.rounded())))
            return GeofenceTail(
                fence: judged.fence, entering: judged.entering, crossingSeconds: crossing.seconds,
                latencySeconds: judged.seconds - crossing.seconds, estimateErrorSeconds: judged.estimatedCrossing.map { $0 - crossing.seconds }, speed: path.samples[speedIndex].speed,
                receiverAtCrossing: design.modes[crossingSecond].map { "\($0)" } ?? "off", secondsWithoutFix: withoutFix,
                decidingAccuracy: delivery < design.fixAccuracies.count ? design.fixAccuracies[delivery] : nil,
                decidingDepth: decidingFix.map { side * region.signedDistance(to: $0) },
                trueDepthAtDelivery: side * region.signedDistance(to: path.position(at: judged.seconds)),
                travelledToDelivery: path.distanceAlong[min(path.samples.count - 1, delivery)] - path.distanceAlong[speedIndex])
        }
    }
}

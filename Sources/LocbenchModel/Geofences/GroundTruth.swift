import LocationEngine

/// One true crossing of a fence's boundary by the path.
public struct TrueCrossing: Sendable, Hashable {
    /// When the path crossed, seconds since the start.
    public var seconds: Double
    /// Into the region (`true`) or out of it.
    public var entering: Bool
    /// Where it crossed.
    public var point: GeoPoint
    /// How far beyond the boundary the path went before it crossed back (or the run ended), metres, exact up to
    /// ``GroundTruth/depthLimit`` (deeper excursions read at least that).
    public var excursionDepth: Double
    /// The first instant the path was the margin or more past the boundary on the far side, the margin at the
    /// accuracy the receiver gave then (``DecisionMargin``), seconds: the earliest a design that refuses false
    /// transitions can decide the crossing on that receiver's fixes (`nil`: not found, see
    /// ``FenceTruth/findingDecidableInstants(of:along:margin:)``).
    public var decidable: Double?
    /// The same instant for the margin at the receiver's median accuracy throughout, seconds (`nil`: not found).
    public var decidableAtMedianAccuracy: Double?

    /// A crossing at `seconds`, into the region or out of it, at `point`, beginning an excursion `excursionDepth` deep,
    /// decidable from `decidable` (from `decidableAtMedianAccuracy` at the median accuracy's margin).
    public init(seconds: Double, entering: Bool, point: GeoPoint, excursionDepth: Double, decidable: Double? = nil, decidableAtMedianAccuracy: Double? = nil) {
        self.seconds = seconds
        self.entering = entering
        self.point = point
        self.excursionDepth = excursionDepth
        self.decidable = decidable
        self.decidableAtMedianAccuracy = decidableAtMedianAccuracy
    }
}

/// The ground truth of one fence: its state at the start and every crossing, in order.
public struct FenceTruth: Sendable, Hashable {
    /// Whether the path started inside.
    public var startsInside: Bool
    /// The crossings, alternating in and out.
    public var crossings: [TrueCrossing]

    /// The truth of a fence the path starts inside of or not, with its crossings in order.
    public init(startsInside: Bool, crossings: [TrueCrossing]) {
        self.startsInside = startsInside
        self.crossings = crossings
    }

    /// Whether the path was inside at `seconds`.
    public func isInside(at seconds: Double) -> Bool {
        crossings.last { $0.seconds <= seconds }?.entering ?? startsInside
    }
}

/// Computes every crossing of every fence by a ``TruthPath``, exactly on the straight lines between samples:
/// the sign of the region's own ``GeofenceRegion/signedDistance(to:)`` (so the truth and the engine agree on
/// where the boundary is) is read every metre along each line that passes near the boundary, and each change
/// of sign is bisected to a millimetre.
public enum GroundTruth {
    /// The depth up to which an excursion's depth is exact, metres: deeper than any hysteresis margin.
    public static let depthLimit = 150.0
    /// The distance between sign readings along a line, metres: a shorter touch is not seen.
    public static let resolution = 1.0

    /// The truth of each of `regions` along `path`.
    /// - Complexity: O(n · s) for n regions and s samples in the worst case; far regions are passed over in
    ///   strides as long as their distance to the path.
    public static func fences(_ regions: [GeofenceRegion], along path: TruthPath) -> [FenceTruth] {
        regions.map { truth(of: $0, along: path) }
    }

    /// The truth of one region along `path`.
    public static func truth(of region: GeofenceRegion, along path: TruthPath) -> FenceTruth {
        let samples = path.samples
        let along = path.distanceAlong
        let startsInside = region.contains(samples[0].point)
        var crossings: [TrueCrossing] = []
        var depth = 0.0
        /// Closes the excursion before a crossing (its depth) and opens the next.
        func cross(at seconds: Double, entering: Bool) {
            if !crossings.isEmpty { crossings[crossings.count - 1].excursionDepth = depth }
            crossings.append(TrueCrossing(seconds: seconds, entering: entering, point: path.position(at: seconds), excursionDepth: 0))
            depth = 0
        }
        var index = 0
        while index < samples.count - 1 {
            let a = samples[index], b = samples[index + 1]
            let distance = region.signedDistance(to: a.point)
            let length = along[index + 1] - along[index]
            // The signed distance changes by at most the distance travelled (1 % and half a metre spare for the
            // local plane a polygon is measured in), so a line that starts farther away than its length stays on
            // its side. Beyond the depth that matters, whole stretches are passed over at once; nearer, every line is
            // read every metre, so that an excursion's depth is exact.
            if abs(distance) >= depthLimit && abs(distance) > length * 1.01 + 0.5 {
                depth = depthLimit
                let reach = (abs(distance) - 0.5) / 1.01
                var next = index + 1
                while next + 1 < samples.count, along[next + 1] - along[index] < reach { next += 1 }
                index = next
                continue
            }
            depth = max(depth, min(abs(distance), depthLimit))
            let steps = max(1, Int((length / resolution).rounded(.up)))
            var previous = distance
            for step in 1...steps {
                let t = Double(step) / Double(steps)
                let current = region.signedDistance(to: TruthPath.interpolate(a.point, b.point, t))
                if (previous <= 0) != (current <= 0) {
                    let instant = bisect(region, a, b, from: Double(step - 1) / Double(steps), to: t, insideAtStart: previous <= 0)
                    cross(at: instant, entering: current <= 0)
                }
                depth = max(depth, min(abs(current), depthLimit))
                previous = current
            }
            index += 1
        }
        if !crossings.isEmpty { crossings[crossings.count - 1].excursionDepth = depth }
        return FenceTruth(startsInside: startsInside, crossings: crossings)
    }

    /// Whether `path` comes within `distance` metres of `region`'s boundary at some sample (a path that enters comes
    /// within a second's travel of it).
    public static func comesWithin(_ distance: Double, of region: GeofenceRegion, along path: TruthPath) -> Bool {
        var found = false
        path.visitSamples(within: distance, of: region) { _ in
            found = true
            return false
        }
        return found
    }

    /// The instant, to a millimetre of travel, where the line from `a` to `b` changes side between the fractions `low` and `high`.
    static func bisect(_ region: GeofenceRegion, _ a: TruthPath.Sample, _ b: TruthPath.Sample, from low: Double, to high: Double, insideAtStart: Bool) -> Double {
        var low = low, high = high
        let length = max(a.point.distance(to: b.point), 1e-3)
        while (high - low) * length > 0.001 {
            let middle = (low + high) / 2
            if region.contains(TruthPath.interpolate(a.point, b.point, middle)) == insideAtStart { low = middle } else { high = middle }
        }
        return a.seconds + (b.seconds - a.seconds) * (low + high) / 2
    }
}

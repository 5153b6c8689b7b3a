import LocationEngine

extension FenceTruth {
    /// This truth with each crossing's decidable instants: the first instant after the crossing, and before the next
    /// one, at which the path along `path` is the margin or more past `region`'s boundary on the far side — the
    /// margin at that instant for ``TrueCrossing/decidable``, the median one for
    /// ``TrueCrossing/decidableAtMedianAccuracy``. A crossing of an excursion shallower than the median margin has
    /// neither.
    /// - Complexity: O(m) signed distances for the m metres the path travels from each crossing until it is past the
    ///   margin (read every ``GroundTruth/resolution``, then bisected to a millimetre).
    public func findingDecidableInstants(of region: GeofenceRegion, along path: TruthPath, margin: DecisionMargin) -> FenceTruth {
        var found = self
        let median = DecisionMargin(constant: margin.median)
        for index in crossings.indices where crossings[index].excursionDepth >= margin.median {
            let until = index + 1 < crossings.count ? crossings[index + 1].seconds : path.duration
            found.crossings[index].decidable = GroundTruth.firstInstant(past: margin, after: crossings[index], of: region, along: path, until: until)
            found.crossings[index].decidableAtMedianAccuracy =
                margin.perSecond.isEmpty
                ? found.crossings[index].decidable
                : GroundTruth.firstInstant(past: median, after: crossings[index], of: region, along: path, until: until)
        }
        return found
    }
}

extension GroundTruth {
    /// The first instant after `crossing`, no later than `until`, at which `path` is the margin at that instant or
    /// more past `region`'s boundary on the crossing's far side (inside for an entry), seconds; `nil` if there is none.
    static func firstInstant(past margin: DecisionMargin, after crossing: TrueCrossing, of region: GeofenceRegion, along path: TruthPath, until: Double) -> Double? {
        let samples = path.samples
        /// How far past the boundary on the far side a point is (negative on the near side).
        func depth(_ point: GeoPoint) -> Double {
            let signed = region.signedDistance(to: point)
            return crossing.entering ? -signed : signed
        }
        var index = path.sample(before: crossing.seconds)
        while index < samples.count - 1, samples[index].seconds < until {
            let a = samples[index], b = samples[index + 1]
            let steps = max(1, Int((a.point.distance(to: b.point) / resolution).rounded(.up)))
            var low = 0.0
            for step in 1...steps {
                let t = Double(step) / Double(steps)
                let instant = a.seconds + (b.seconds - a.seconds) * t
                if instant > until { return nil }
                if instant > crossing.seconds, depth(TruthPath.interpolate(a.point, b.point, t)) >= margin.at(instant) {
                    var high = t
                    let length = max(a.point.distance(to: b.point), 1e-3)
                    // To a millimetre of travel and a tenth of a millisecond: with the margin moving in time, a path
                    // standing still can become decidable within its second too.
                    while (high - low) * length > 0.001 || (high - low) * (b.seconds - a.seconds) > 1e-4 {
                        let middle = (low + high) / 2
                        let past = depth(TruthPath.interpolate(a.point, b.point, middle)) >= margin.at(a.seconds + (b.seconds - a.seconds) * middle)
                        if past { high = middle } else { low = middle }
                    }
                    return max(crossing.seconds, a.seconds + (b.seconds - a.seconds) * high)
                }
                low = t
            }
            index += 1
        }
        return nil
    }
}

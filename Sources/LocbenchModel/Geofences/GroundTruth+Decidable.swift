import LocationEngine

extension FenceTruth {
    /// This truth with each crossing's ``TrueCrossing/decidable`` instant: the first instant after the crossing, and
    /// before the next one, at which the path along `path` is `margin` metres or more past `region`'s boundary on the
    /// far side. A crossing of an excursion shallower than the margin has none.
    /// - Complexity: O(m) signed distances for the m metres the path travels from each crossing until it is past the
    ///   margin (read every ``GroundTruth/resolution``, then bisected to a millimetre).
    public func findingDecidableInstants(of region: GeofenceRegion, along path: TruthPath, margin: Double) -> FenceTruth {
        var found = self
        for index in crossings.indices where crossings[index].excursionDepth >= margin {
            let until = index + 1 < crossings.count ? crossings[index + 1].seconds : path.duration
            found.crossings[index].decidable = GroundTruth.firstInstant(past: margin, after: crossings[index], of: region, along: path, until: until)
        }
        return found
    }
}

extension GroundTruth {
    /// The first instant after `crossing`, no later than `until`, at which `path` is `margin` metres or more past
    /// `region`'s boundary on the crossing's far side (inside for an entry), seconds; `nil` if there is none.
    static func firstInstant(past margin: Double, after crossing: TrueCrossing, of region: GeofenceRegion, along path: TruthPath, until: Double) -> Double? {
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
                if instant > crossing.seconds, depth(TruthPath.interpolate(a.point, b.point, t)) >= margin {
                    var high = t
                    let length = max(a.point.distance(to: b.point), 1e-3)
                    while (high - low) * length > 0.001 {
                        let middle = (low + high) / 2
                        if depth(TruthPath.interpolate(a.point, b.point, middle)) >= margin { high = middle } else { low = middle }
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

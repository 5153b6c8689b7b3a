import LocationEngine

extension TruthPath {
    /// Calls `body` with the index of every sample within `distance` metres of `region`'s boundary (either side), in
    /// order, until it returns `false`.
    ///
    /// The distance to the boundary changes by at most the distance travelled (1 % and half a metre spare for the
    /// local plane a polygon is measured in), so the samples nearer along the path than a sample's excess over
    /// `distance` are passed over unread: far from a region, one reading covers a long stretch.
    /// - Complexity: O(s) for s samples in the worst case.
    func visitSamples(within distance: Double, of region: GeofenceRegion, _ body: (Int) -> Bool) {
        var index = 0
        while index < samples.count {
            let away = abs(region.signedDistance(to: samples[index].point))
            if away <= distance {
                guard body(index) else { return }
                index += 1
                continue
            }
            let excess = (away - distance - 0.5) / 1.01
            var next = index + 1
            while next < samples.count, distanceAlong[next] - distanceAlong[index] < excess { next += 1 }
            index = next
        }
    }
}

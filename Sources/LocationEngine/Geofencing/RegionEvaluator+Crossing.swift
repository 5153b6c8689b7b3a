import DequeModule

extension RegionEvaluator {
    /// A fix the evaluator took, kept to estimate when a boundary was crossed: stamped `at` (its decisions'
    /// instant, never before one already reported) and `taken` when it was taken (earlier for an aged fix
    /// that arrived after a deadline reported).
    struct RecentFix: Sendable {
        var position: GeoPoint
        /// The radius of the fix's confidence circle (``GeofenceConfiguration/confidenceScale`` × its accuracy):
        /// where the device was when it was taken.
        var confidence: Double
        var decisionDistance: Double
        var at: EngineInstant
        var taken: EngineInstant
    }

    /// The straight segment from the last fix to the one being taken, searched for regions it passes
    /// through: where it starts, and the box enclosing it. A crossing is reported only when certain
    /// (``mustHavePassed``).
    struct CrossingSegment: Sendable {
        var from: RecentFix
        var bounds: GeoBounds
    }

    /// How many of the latest fixes are kept for the estimate: at one fix per second, two minutes — a walker
    /// covers the widest margin (an accuracy of 25 m) in well under that.
    static let recentFixLimit = 128

    /// Keeps the fix just taken for later estimates, forgetting the oldest beyond ``recentFixLimit``.
    /// - Complexity: O(1) amortised, no allocation once the buffer is full.
    mutating func remember(_ fix: RecentFix) {
        if recentFixes.count == Self.recentFixLimit { recentFixes.removeFirst() }
        recentFixes.append(fix)
    }

    /// When the device most likely crossed region `slot`'s boundary, for a change of state to inside
    /// (`entering`) or outside decided by the fix at `position`, `now` (see
    /// ``GeofenceEvent/estimatedCrossing``).
    ///
    /// The window runs from the latest earlier fix that was confidently on the old side (its decision
    /// distance across the boundary) to the deciding fix. Each fix's distance from the boundary is
    /// averaged with its neighbours' (``crossingSmoothing`` fixes, fewer at the window's ends), which damps
    /// the noise of fixes that straddle the boundary, and the estimate is the last change of side of the
    /// averaged distances, placed between its two fixes in proportion to their distances. The last change,
    /// not the first: a device that waits at the boundary (a light, a queue) and then crosses is placed at
    /// its crossing, not where the noise first flipped it over. When the average flattens every change of side
    /// (a window of a few fixes, each averaged over nearly all of them), the distances themselves are read.
    /// - Complexity: O(w) distance computations for the w fixes in the window (at most ``recentFixLimit``),
    ///   only for a decided transition.
    func estimatedCrossing(_ slot: Int32, entering: Bool, position: GeoPoint, now: EngineInstant) -> EngineInstant? {
        guard !recentFixes.isEmpty else { return nil }
        let region = records[Int(slot)]!.region
        // Distances measured towards the new side: positive there, negative on the old side.
        let side: Double = entering ? -1 : 1
        var first = recentFixes.count - 1
        while first > 0 {
            let fix = recentFixes[first]
            if side * region.signedDistance(to: fix.position) <= -fix.decisionDistance { break }
            first -= 1
        }
        var window: [(at: EngineInstant, distance: Double)] = []
        window.reserveCapacity(recentFixes.count - first + 1)
        for index in first..<recentFixes.count {
            let fix = recentFixes[index]
            window.append((fix.at, side * region.signedDistance(to: fix.position)))
        }
        window.append((now, side * region.signedDistance(to: position)))
        let half = Self.crossingSmoothing / 2
        var sum = 0.0
        var smoothed = [Double](repeating: 0, count: window.count)
        // A running sum over [index − half, index + half], clipped to the window.
        for index in 0..<min(half, window.count) { sum += window[index].distance }
        for index in window.indices {
            if index + half < window.count { sum += window[index + half].distance }
            if index - half - 1 >= 0 { sum -= window[index - half - 1].distance }
            smoothed[index] = sum / Double(min(window.count - 1, index + half) - max(0, index - half) + 1)
        }
        var index = window.count - 1
        while index > 0 && (smoothed[index - 1] > 0) == (smoothed[index] > 0) { index -= 1 }
        if index == 0 {
            // The average flattened every change of side (a window of a few fixes, each averaged over all of
            // them: fixes minutes apart under a latency budget): the distances themselves have one, the
            // window's first fix on the old side and the deciding one on the new.
            smoothed = window.map(\.distance)
            index = window.count - 1
            while index > 0 && (smoothed[index - 1] > 0) == (smoothed[index] > 0) { index -= 1 }
            guard index > 0 else { return window[0].at }
        }
        let before = abs(smoothed[index - 1]), after = abs(smoothed[index])
        let fraction = before / max(before + after, .leastNormalMagnitude)
        return window[index - 1].at + (window[index].at - window[index - 1].at) * fraction
    }

    /// How many fixes the crossing estimate averages each fix's distance over (``estimatedCrossing``).
    static let crossingSmoothing = 5

    /// Whether every way from the fix `from` to the fix `to` that the device can have taken at
    /// ``GeofenceConfiguration/maximumSpeed`` passes through region `slot`, whose boundary the straight line
    /// between them crosses.
    ///
    /// The device was somewhere in each fix's confidence circle (radii `r₁`, `r₂`) when it was taken, so at
    /// least `d′ = d − r₁ − r₂` from where it was at the other, `d` the fixes' distance apart. A way no longer
    /// than `L` (the maximum speed times the time between the fixes) between those two true positions lies
    /// within the ellipse whose foci they are and whose major axis is `L`; across the straight line between
    /// them it reaches at most `h = √(L² − d′²) / 2`, so it passes within `h` of every point of that line. That
    /// line's point a fraction `t` along lies within `(1 − t) r₁ + t r₂` of the fixes' line's. So the way passes
    /// through the region if some point of the fixes' line lies deeper inside than `h` and that much more (read
    /// at 64 points along it). Between fixes far apart — a sleep the monitors planned, or a source's own gap (an
    /// outage, a tunnel, a source that gives a fix a minute) — a device slower than the maximum speed could
    /// have gone around a region the line cuts through (a road skirting it): that crossing would be false; and
    /// a line that only grazes a region says nothing of where the true way went. A device at the maximum speed
    /// over the whole gap (`d′ ≥ L`) went straight: `h` is zero; fixes a second apart leave `h` a few metres.
    /// Fixes farther apart than four times `L` and both fixes' decision distances are not a passage at all: no
    /// device goes four times its maximum speed, one of the two is wrong (a multipath jump, two sources that
    /// disagree at one instant), and the line between them says nothing.
    /// - Complexity: O(64) distance computations, only for a crossing found between two fixes.
    func mustHavePassed(_ slot: Int32, from: RecentFix, to: RecentFix) -> Bool {
        let region = records[Int(slot)]!.region
        // The time the device had between the two fixes, from when each was taken: their stamps can be
        // closer (an aged fix stamped at a deadline reported after it was taken), which would shrink the
        // ways it can have gone and make a crossing look certain.
        let gap = (to.taken - from.taken).components
        let longest = configuration.maximumSpeed * (Double(gap.seconds) + Double(gap.attoseconds) * 1e-18)
        let apart = from.position.distance(to: to.position)
        guard apart <= 4 * longest + from.decisionDistance + to.decisionDistance else { return false }
        let leastApart = max(0, apart - from.confidence - to.confidence)
        let reach = leastApart < longest ? (longest * longest - leastApart * leastApart).squareRoot() / 2 : 0
        let steps = 64
        for step in 1..<steps {
            let fraction = Double(step) / Double(steps)
            let point = from.position.along(to: to.position, fraction)
            let uncertainty = (1 - fraction) * from.confidence + fraction * to.confidence
            if -region.signedDistance(to: point) > reach + uncertainty { return true }
        }
        return false
    }

    /// The instants a straight path from the fix at `from` to the one at `to` (both outside) most likely
    /// entered and left the region: where the straight line between them first and last lies inside,
    /// read at 64 points along it (the point nearest the boundary when none lies inside), in proportion
    /// to the time between the two fixes.
    /// - Complexity: O(64) distance computations, only for a crossing found between two fixes.
    func estimatedPassage(_ slot: Int32, from: RecentFix, to position: GeoPoint, now: EngineInstant) -> (entered: EngineInstant, exited: EngineInstant) {
        let region = records[Int(slot)]!.region
        let steps = 64
        var firstInside: Int?, lastInside: Int?
        var nearest = 0, nearestDistance = Double.infinity
        for step in 0...steps {
            let point = from.position.along(to: position, Double(step) / Double(steps))
            let distance = region.signedDistance(to: point)
            if distance <= 0 {
                if firstInside == nil { firstInside = step }
                lastInside = step
            }
            if distance < nearestDistance { nearestDistance = distance; nearest = step }
        }
        let span = now - from.at
        func instant(_ step: Int) -> EngineInstant { from.at + span * (Double(step) / Double(steps)) }
        return (instant(firstInside ?? nearest), instant(lastInside ?? nearest))
    }
}

/// Which of a set of designs no other beats on energy, latency and missed transitions: the Pareto front of an
/// energy/latency curve (less of each is better).
///
/// Missed transitions are the third measure because a latency percentile is read over the transitions a design
/// delivered: one that sleeps long enough to miss most brief crossings (a car driving through a fence between
/// two fixes minutes apart) keeps a low latency over the few it sees, and on energy and latency alone it would
/// look better than one that delivers them all.
public enum ParetoFront {
    /// One design's figures.
    public struct Point: Sendable, Hashable {
        public var energy: Double
        public var latency: Double
        public var missed: Int

        public init(energy: Double, latency: Double, missed: Int) {
            self.energy = energy
            self.latency = latency
            self.missed = missed
        }
    }

    /// Whether `a` dominates `b`: no more energy, no more latency, no more missed transitions, and less of one.
    public static func dominates(_ a: Point, _ b: Point) -> Bool {
        a.energy <= b.energy && a.latency <= b.latency && a.missed <= b.missed
            && (a.energy < b.energy || a.latency < b.latency || a.missed < b.missed)
    }

    /// For each of `points`, whether no other point dominates it.
    /// - Complexity: O(n²) for n points (a sweep has 16).
    public static func members(of points: [Point]) -> [Bool] {
        points.map { point in !points.contains { dominates($0, point) } }
    }
}

/// Which of a set of designs no other beats on both energy and latency: the Pareto front of an
/// energy/latency curve (less of each is better).
public enum ParetoFront {
    /// Whether `a` dominates `b`: no more energy and no more latency, and less of one.
    public static func dominates(_ a: (energy: Double, latency: Double), _ b: (energy: Double, latency: Double)) -> Bool {
        a.energy <= b.energy && a.latency <= b.latency && (a.energy < b.energy || a.latency < b.latency)
    }

    /// For each of `points`, whether no other point dominates it.
    /// - Complexity: O(n²) for n points (a sweep has a dozen).
    public static func members(of points: [(energy: Double, latency: Double)]) -> [Bool] {
        points.map { point in !points.contains { dominates($0, point) } }
    }
}

/// The latency budgets (``GeofenceOptions/responsiveness``) of the monitored regions, counted by value: the
/// power planner plans by the smallest, so that no region hears of a transition later than it asked.
///
/// Regions share a handful of budgets, so a count per distinct value is small; a heap of every region's
/// budget would grow with the regions for nothing.
struct ResponsivenessBudgets: Sendable, Hashable {
    private var counts: [Duration: Int] = [:]
    /// The smallest budget of any region; zero when none is monitored.
    private(set) var smallest: Duration = .zero

    /// No region.
    init() {}

    /// A region with `budget` joins.
    /// - Complexity: O(1) amortised.
    mutating func add(_ budget: Duration) {
        smallest = counts.isEmpty ? budget : min(smallest, budget)
        counts[budget, default: 0] += 1
    }

    /// A region with `budget` leaves.
    /// - Complexity: O(1), or O(b) for b distinct budgets when the last region with the smallest one leaves.
    mutating func remove(_ budget: Duration) {
        guard let count = counts[budget] else { preconditionFailure("ResponsivenessBudgets: removing \(budget), which no region has") }
        guard count == 1 else {
            counts[budget] = count - 1
            return
        }
        counts[budget] = nil
        if budget == smallest { smallest = counts.keys.min() ?? .zero }
    }
}

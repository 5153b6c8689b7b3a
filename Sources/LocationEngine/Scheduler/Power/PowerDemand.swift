/// What the admitted requests ask of the source: how many demand each ``PowerMode``. The requests own it
/// (each admitted request adds its mode and removes it when it ends or is held back); the power planner
/// reads it on every reconciliation.
///
/// A count per mode, so adding, removing and finding the most demanding mode are O(1).
struct PowerDemand: Sendable, Equatable {
    /// The counts in place, one per mode: an array here put a uniqueness check and a heap access on every
    /// admission and ending.
    private var counts = InlineArray<5, Int>(repeating: 0)
    /// How many of the requests are one-shots, which wait for a fix (the power planner answers them quickly).
    private(set) var oneShots = 0
    /// How many of the requests want the course (heading subscriptions): among several sources, one that gives
    /// it is chosen.
    private(set) var courses = 0

    /// A request demanding `mode` became active.
    /// - Complexity: O(1)
    @inline(__always)
    mutating func add(_ mode: PowerMode) {
        assert(counts.count == PowerMode.allCases.count, "PowerDemand keeps one count per PowerMode")
        counts[mode.rawValue] += 1
    }

    /// A request demanding `mode` ended (or is held back).
    /// - Complexity: O(1)
    @inline(__always)
    mutating func remove(_ mode: PowerMode) {
        precondition(counts[mode.rawValue] > 0, "PowerDemand.remove(\(mode)) with no demand in that mode")
        counts[mode.rawValue] -= 1
    }

    /// A one-shot demanding `mode` became active: it waits for a first fix.
    /// - Complexity: O(1)
    @inline(__always)
    mutating func addOneShot(_ mode: PowerMode) {
        add(mode)
        oneShots += 1
    }

    /// A one-shot demanding `mode` ended (or is held back).
    /// - Complexity: O(1)
    @inline(__always)
    mutating func removeOneShot(_ mode: PowerMode) {
        remove(mode)
        oneShots -= 1
    }

    /// A subscription demanding `mode` became active; `course`: it wants the course (a heading subscription).
    /// - Complexity: O(1)
    @inline(__always)
    mutating func add(_ mode: PowerMode, course: Bool) {
        add(mode)
        if course { courses += 1 }
    }

    /// A subscription demanding `mode` ended (or is held back); `course` as it was added.
    /// - Complexity: O(1)
    @inline(__always)
    mutating func remove(_ mode: PowerMode, course: Bool) {
        remove(mode)
        if course { courses -= 1 }
    }

    /// Whether any of the requests wants the course.
    var wantsCourse: Bool { courses > 0 }

    /// The mode of the most demanding request, if any.
    /// - Complexity: O(1) (five counters).
    var mode: PowerMode? {
        var index = counts.count - 1
        while index >= 0 {
            if counts[index] > 0 { return PowerMode(rawValue: index) }
            index -= 1
        }
        return nil
    }

    /// How many requests demand `mode`.
    /// - Complexity: O(1)
    func count(in mode: PowerMode) -> Int { counts[mode.rawValue] }

    static func == (lhs: PowerDemand, rhs: PowerDemand) -> Bool {
        lhs.oneShots == rhs.oneShots && lhs.courses == rhs.courses && PowerMode.allCases.allSatisfy { lhs.counts[$0.rawValue] == rhs.counts[$0.rawValue] }
    }
}

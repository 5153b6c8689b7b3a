/// Which lane of the ``Deadlines`` holds each timeout: the timeouts' whole nanoseconds kept sorted, looked up
/// by halving. There are at most ``Deadlines/maximumLanes`` of them, so a lookup is about ten comparisons; a
/// dictionary hashed every `Int64` through the standard library's seeded hasher first (about 140
/// instructions a lookup in a callgrind profile of requests with sixty different timeouts, against about
/// 50 for the halving).
struct TimeoutLanes {
    /// The timeouts with a lane, ascending.
    private var timeouts: [Int64] = []
    /// The lane of each timeout, in the same order.
    private var lanes: [Int32] = []

    /// The number of timeouts with a lane.
    var count: Int { timeouts.count }

    /// The lane of `timeout`, if it has one.
    /// - Complexity: O(log n)
    @inline(__always)
    func lane(of timeout: Int64) -> Int32? {
        let index = firstIndex(notBelow: timeout)
        return index < timeouts.count && timeouts[index] == timeout ? lanes[index] : nil
    }

    /// Gives `timeout`, which has none, the lane `lane`.
    /// - Complexity: O(n)
    mutating func insert(_ timeout: Int64, lane: Int32) {
        let index = firstIndex(notBelow: timeout)
        assert(index == timeouts.count || timeouts[index] != timeout, "TimeoutLanes.insert(\(timeout)): it has a lane")
        timeouts.insert(timeout, at: index)
        lanes.insert(lane, at: index)
    }

    /// Every timeout with its lane, ascending by timeout.
    var all: Zip2Sequence<[Int64], [Int32]> { zip(timeouts, lanes) }

    /// The index of the first timeout at or above `timeout` (the count when there is none). Through the
    /// buffer: the halving's indices stay within it, and the array's checks on each step were most of its
    /// cost.
    @inline(__always)
    private func firstIndex(notBelow timeout: Int64) -> Int {
        timeouts.withUnsafeBufferPointer { timeouts in
            var low = 0
            var high = timeouts.count
            while low < high {
                let middle = (low &+ high) >> 1
                if timeouts[middle] < timeout { low = middle &+ 1 } else { high = middle }
            }
            return low
        }
    }
}

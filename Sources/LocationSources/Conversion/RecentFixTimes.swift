/// Remembers the receiver times of the last few delivered fixes, so that a repeated report of one
/// epoch (gpsd prints early epochs two or three times; a reconnect may replay the last one) is not
/// delivered twice.
struct RecentFixTimes: Sendable {
    private var times: [Double] = []
    private var next = 0
    private let capacity: Int

    /// Keeps the last `capacity` times (at least 1).
    init(capacity: Int = 16) {
        self.capacity = max(1, capacity)
        times.reserveCapacity(self.capacity)
    }

    /// Records `time` and returns `true`, or returns `false` when it was seen recently.
    /// - Complexity: O(capacity)
    mutating func insert(_ time: Double) -> Bool {
        if times.contains(time) { return false }
        if times.count < capacity {
            times.append(time)
        } else {
            times[next] = time
            next = (next + 1) % capacity
        }
        return true
    }
}

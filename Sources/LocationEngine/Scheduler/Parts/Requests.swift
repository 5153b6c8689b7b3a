extension SchedulerStateMachine {
    /// The pending requests — one-shots, subscriptions and region monitors — with the accuracy index a
    /// fix completes one-shots through and the deadlines their timeouts and durations run on.
    struct Requests {
        /// Pending one-shots, by ID.
        var oneShots = RequestTable<OneShot>()
        /// Live subscriptions and monitors, by ID.
        var subscriptions: [RequestID: Subscription] = [:]
        /// The admitted one-shots by accuracy, for the fix that can complete them.
        var index = OneShotIndex()
        /// One entry per running timeout or duration, in FIFO lanes by length.
        var deadlines = DeadlineQueue()
    }
}

extension SchedulerStateMachine.Requests: Sendable where OneShotHandler: Sendable, SubscriptionHandler: Sendable {}

extension SchedulerStateMachine.Requests {
    /// Requests that can own queue entries: every pending one-shot and subscription.
    @inline(__always)
    var count: Int { oneShots.count + subscriptions.count }

    /// Whether a request with this ID is pending.
    @inline(__always)
    func contains(_ id: RequestID) -> Bool { oneShots[id] != nil || subscriptions[id] != nil }

    /// Whether the request with this ID is pending and not admitted (it waits for access).
    func isWaiting(_ id: RequestID) -> Bool {
        oneShots[id].map { $0.phase != .admitted } ?? subscriptions[id].map { $0.phase != .admitted } ?? false
    }

    // MARK: Compaction

    /// Drops the deadlines of ended requests at the head of the queue, so that the next wake-up is live.
    /// - Complexity: O(a log n) for a abandoned entries at the head.
    @inline(__always)
    mutating func dropAbandonedDeadlineHead() {
        // A loop over the head rather than `dropAbandonedHead(isLive:)`: its closure would need copies
        // of the tables (retained and released on every removal) while the queue changes.
        while let id = deadlines.earliestID, !contains(id) { deadlines.dropEarliest() }
    }

    /// Whether the queues hold more than `bound` entries of ended requests.
    @inline(__always)
    func abandonedEntries(beyond bound: Int) -> Bool {
        deadlines.abandonedAtLeast(pending: count) > bound || index.abandonedAtLeast(pending: oneShots.count) > bound
    }

    /// How many entries ``compact()`` would scan now.
    var compactionBacklog: Int {
        var work = 0
        if deadlines.needsCompaction(pending: count) { work += deadlines.count }
        if index.needsCompaction(pending: oneShots.count) { work += index.count }
        return work + oneShots.compactionWork
    }

    /// Drops the queue entries of ended requests once they dominate, and lets the table settle.
    /// - Complexity: O(n) when it compacts.
    mutating func compact() {
        if deadlines.needsCompaction(pending: count) {
            let oneShots = self.oneShots
            let subscriptions = self.subscriptions
            deadlines.compact { oneShots[$0] != nil || subscriptions[$0] != nil }
        }
        if index.needsCompaction(pending: oneShots.count) {
            let oneShots = self.oneShots
            index.compact { oneShots[$0] != nil }
        }
        if oneShots.needsCompaction { oneShots.compact() }
    }
}

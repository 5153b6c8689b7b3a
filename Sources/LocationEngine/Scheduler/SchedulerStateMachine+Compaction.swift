extension SchedulerStateMachine {
    /// Keeps the next wake-up live after requests ended: abandoned deadlines at the head of the queue
    /// are dropped, so the owner never wakes for a request that has already ended. Bulk compaction
    /// does not run here (this is on the delivery and expiry paths) unless abandoned entries grow past
    /// a memory bound that an owner calling ``compact()`` when idle never reaches.
    /// - Complexity: O(a log n) for a abandoned entries at the head.
    mutating func afterRemovals() {
        if deadlines.count > 0 {
            let oneShots = self.oneShots
            let subscriptions = self.subscriptions
            deadlines.dropAbandonedHead { oneShots[$0] != nil || subscriptions[$0] != nil }
        }
        let bound = 1 << 20
        if deadlines.abandonedAtLeast(pending: pendingRequests) > bound || index.abandonedAtLeast(pending: oneShots.count) > bound
            || awaitingAuthorization.count + awaitingFullAccuracy.count > 4 * bound
        {
            compact()
        }
    }

    /// Requests that can own queue entries: every pending one-shot and subscription.
    var pendingRequests: Int { oneShots.count + subscriptions.count }

    /// How many entries ``compact()`` would scan now (0 when it has nothing worth doing).
    var compactionBacklog: Int {
        var work = 0
        if deadlines.needsCompaction(pending: pendingRequests) { work += deadlines.count }
        if index.needsCompaction(pending: oneShots.count) { work += index.count }
        work += oneShots.compactionWork
        if awaitingAuthorization.count + awaitingFullAccuracy.count > waitingListLimit {
            work += awaitingAuthorization.count + awaitingFullAccuracy.count
        }
        return work
    }

    /// The owner is idle at `now`: the core drops abandoned queue entries if there is enough time
    /// before its next wake-up for that much work (about 20 ns an entry), so that compaction never
    /// delays a timeout or a delivery. It changes no request's fate.
    /// - Complexity: O(n) when it compacts.
    mutating func compactIfIdle(now: EngineInstant) {
        let backlog = compactionBacklog
        guard backlog > 0, outbox.isEmpty else { return }
        if let next = nextWakeup, next - now < .nanoseconds(20 * backlog) + .microseconds(200) { return }
        compact()
    }

    /// Drops abandoned queue entries and stale waiting-list entries once they dominate, so memory
    /// stays proportional to pending requests; it changes no request's fate.
    /// - Complexity: O(n) when it compacts.
    mutating func compact() {
        if deadlines.needsCompaction(pending: pendingRequests) {
            let oneShots = self.oneShots
            let subscriptions = self.subscriptions
            deadlines.compact { oneShots[$0] != nil || subscriptions[$0] != nil }
        }
        if index.needsCompaction(pending: oneShots.count) {
            let oneShots = self.oneShots
            index.compact { oneShots[$0] != nil }
        }
        if awaitingAuthorization.count + awaitingFullAccuracy.count > waitingListLimit {
            let oneShots = self.oneShots
            let subscriptions = self.subscriptions
            let isWaiting = { (id: RequestID) in
                oneShots[id].map { $0.phase != .admitted } ?? subscriptions[id].map { $0.phase != .admitted } ?? false
            }
            awaitingAuthorization.removeAll { !isWaiting($0) }
            awaitingFullAccuracy.removeAll { !isWaiting($0) }
            waitingListLimit = max(1024, 2 * (awaitingAuthorization.count + awaitingFullAccuracy.count))
        }
        if oneShots.needsCompaction { oneShots.compact() }
    }
}

extension SchedulerStateMachine {
    /// Keeps the next wake-up live after requests ended: abandoned deadlines at the head of the queue
    /// are dropped, so the owner never wakes for a request that has already ended. Bulk compaction
    /// does not run here (this is on the delivery and expiry paths) unless abandoned entries grow past
    /// a memory bound that an owner calling ``compact()`` when idle never reaches.
    /// - Complexity: O(a log n) for a abandoned entries at the head.
    mutating func afterRemovals() {
        requests.dropAbandonedDeadlineHead()
        let bound = 1 << 20
        if requests.abandonedEntries(beyond: bound) || access.awaitingAuthorization.count + access.awaitingFullAccuracy.count > 4 * bound {
            compact()
        }
    }

    /// How many entries ``compact()`` would scan now (0 when it has nothing worth doing).
    var compactionBacklog: Int {
        var work = requests.compactionBacklog
        if access.awaitingAuthorization.count + access.awaitingFullAccuracy.count > access.waitingListLimit {
            work += access.awaitingAuthorization.count + access.awaitingFullAccuracy.count
        }
        return work
    }

    /// The owner is idle at `now`: the core drops abandoned queue entries if there is enough time
    /// before its next wake-up for that much work (about 20 ns an entry), so that compaction never
    /// delays a timeout or a delivery. It changes no request's fate.
    /// - Complexity: O(n) when it compacts.
    mutating func compactIfIdle(now: EngineInstant) {
        let backlog = compactionBacklog
        guard backlog > 0, delivery.outbox.isEmpty else { return }
        if let next = nextWakeup, next - now < .nanoseconds(20 * backlog) + .microseconds(200) { return }
        compact()
    }

    /// Drops abandoned queue entries and stale waiting-list entries once they dominate, so memory
    /// stays proportional to pending requests; it changes no request's fate.
    /// - Complexity: O(n) when it compacts.
    mutating func compact() {
        requests.compact()
        if access.awaitingAuthorization.count + access.awaitingFullAccuracy.count > access.waitingListLimit {
            let requests = self.requests
            access.awaitingAuthorization.removeAll { !requests.isWaiting($0) }
            access.awaitingFullAccuracy.removeAll { !requests.isWaiting($0) }
            access.waitingListLimit = max(1024, 2 * (access.awaitingAuthorization.count + access.awaitingFullAccuracy.count))
        }
    }
}

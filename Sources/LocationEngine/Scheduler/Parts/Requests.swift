extension SchedulerStateMachine {
    /// The pending requests — one-shots, subscriptions and region monitors — with the accuracy index a
    /// fix completes one-shots through, the deadlines their timeouts and durations run on, and the power
    /// demand of those admitted (what the power planner serves).
    ///
    /// Its invariants: a request is in one table or the other, never both; the demand counts exactly the
    /// admitted requests (one-shots by their accuracy's mode, subscriptions by theirs, monitors not at
    /// all: the monitors' share is the power planner's); a one-shot past ``Phase/waiting`` has one index
    /// entry. Queue entries of ended requests stay behind until reached or compacted away.
    struct Requests {
        /// Pending one-shots, by ID.
        var oneShots = RequestTable<OneShot>()
        /// Live subscriptions and monitors, by ID.
        var subscriptions: [RequestID: Subscription] = [:]
        /// The admitted one-shots by accuracy, for the fix that can complete them.
        var index = OneShotIndex()
        /// One entry per running timeout or duration, in FIFO lanes by length.
        var deadlines = DeadlineQueue()
        /// What the admitted requests demand of the source.
        private(set) var demand = PowerDemand()
    }
}

extension SchedulerStateMachine.Requests: Sendable where OneShotHandler: Sendable, SubscriptionHandler: Sendable {}

extension SchedulerStateMachine.Requests {
    typealias OneShot = SchedulerStateMachine.OneShot
    typealias Subscription = SchedulerStateMachine.Subscription

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

    // MARK: Admission and removal

    /// Stores a one-shot as admitted: counted in the demand and (once) in the accuracy index.
    /// - Complexity: amortised O(1); O(log c) for a custom accuracy among c.
    mutating func admit(_ id: RequestID, _ request: inout OneShot) {
        let accuracy = request.wish.accuracy
        if !request.phase.isIndexed { index.insert(id, accuracy: accuracy) }
        request.phase = .admitted
        oneShots[id] = request
        demand.add(accuracy.requiredPowerMode)
    }

    /// Stores a subscription as admitted: counted in the demand (a monitor is not: see the type).
    /// - Complexity: amortised O(1)
    mutating func admit(_ id: RequestID, _ subscription: inout Subscription) {
        subscription.phase = .admitted
        subscriptions[id] = subscription
        if let mode = subscription.options.powerDemand { demand.add(mode) }
    }

    /// Starts the timeout of a one-shot that waited for access to start it, if it has one.
    mutating func startDelayedTimeout(_ id: RequestID, _ request: inout OneShot, now: EngineInstant) {
        guard request.timeoutAwaitsAccess, let timeout = request.wish.delayedTimeout else { return }
        deadlines.insert(id, timeout: timeout, from: now)
        request.timeoutAwaitsAccess = false
    }

    /// Removes a pending one-shot and its share of the demand. Its entries in the deadline queue and the
    /// index, if any, stay behind until they are reached or compacted away.
    /// - Complexity: amortised O(1)
    mutating func removeOneShot(_ id: RequestID) -> OneShot? {
        guard let request = oneShots.removeValue(forKey: id) else { return nil }
        if request.phase == .admitted { demand.remove(request.wish.powerMode) }
        return request
    }

    /// Removes a subscription or monitor and its share of the demand (its deadline entry, if any, stays
    /// behind until reached or compacted away).
    /// - Complexity: amortised O(1)
    mutating func removeSubscription(_ id: RequestID) -> Subscription? {
        guard let subscription = subscriptions.removeValue(forKey: id) else { return nil }
        if subscription.phase == .admitted, let mode = subscription.options.powerDemand { demand.remove(mode) }
        return subscription
    }

    /// Takes every admitted request for which `isUnservable` holds (by accuracy for one-shots, by options
    /// for subscriptions) out of the demand and holds it: one-shots keep their index entry (no coarsened
    /// fix can reach it). Returns their IDs in submission order.
    /// - Complexity: O(n log n)
    mutating func hold(
        where isUnservable: (LocationAccuracy) -> Bool, _ subscriptionIsUnservable: (SubscriptionOptions) -> Bool
    ) -> [RequestID] {
        var ids: [RequestID] = []
        oneShots.forEach { id, request in
            if request.phase == .admitted && isUnservable(request.wish.accuracy) { ids.append(id) }
        }
        for (id, subscription) in subscriptions where subscription.phase == .admitted && subscriptionIsUnservable(subscription.options) {
            ids.append(id)
        }
        for id in ids {
            if var request = oneShots[id] {
                demand.remove(request.wish.powerMode)
                request.phase = .held
                oneShots[id] = request
            } else if var subscription = subscriptions[id] {
                if let mode = subscription.options.powerDemand { demand.remove(mode) }
                subscription.phase = .held
                subscriptions[id] = subscription
            }
        }
        return ids.sorted()
    }

    /// The IDs of every pending request (only those admitted, if `onlyAdmitted`): one-shots first, each
    /// kind in submission order.
    /// - Complexity: O(n log n)
    func ids(onlyAdmitted: Bool) -> [RequestID] {
        var ids: [RequestID] = []
        oneShots.forEach { id, request in if !onlyAdmitted || request.phase == .admitted { ids.append(id) } }
        ids.sort()
        return ids + subscriptions.lazy.filter { !onlyAdmitted || $0.value.phase == .admitted }.map(\.key).sorted()
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

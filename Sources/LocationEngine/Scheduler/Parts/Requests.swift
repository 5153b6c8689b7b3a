extension SchedulerStateMachine {
    /// The pending requests — one-shots, subscriptions and region monitors, in one table by ID whose
    /// entries say each one's kind — with the accuracy index a fix completes one-shots through, the lists of
    /// those waiting for access, and the power demand of those admitted (what the power planner serves).
    /// Their timeouts and durations wait in this part's own ``Deadlines``; the core reads the earliest
    /// as it reads each other part's next deadline.
    ///
    /// Its invariants: a request has one entry in the table, of its kind; a subscription's state is in
    /// ``subscriptions``, and a monitor's in ``monitors``, exactly while the table has its entry; the
    /// demand counts exactly the admitted requests (one-shots by their accuracy's mode, subscriptions by
    /// theirs, monitors not at all: the monitors' share is the power planner's); a one-shot admitted once
    /// (``Phase/isIndexed``) has one index entry; between events, a request that waits is in the waiting
    /// list of its phase. Entries of ended requests in the queues and waiting lists stay behind until
    /// reached or compacted away, and compaction keeps them proportional to the pending requests.
    struct Requests {
        /// Every pending request, by ID: one entry each, of its kind.
        var table = RequestTable<Entry>()
        /// The state of each live subscription (its filters and last delivery), by ID: what a fix walks, in
        /// submission order.
        var subscriptions = SubmissionOrderedTable<Subscription>()
        /// The handler and phase of each live monitor, by ID, in submission order: what a region's transition
        /// reaches.
        var monitors = SubmissionOrderedTable<Monitor>()
        /// The admitted one-shots by accuracy, for the fix that can complete them.
        var index = OneShotIndex()
        /// Requests waiting for authorization, in submission order; ended ones are skipped lazily.
        var awaitingAuthorization: [RequestID] = []
        /// Requests that need full accuracy and wait for the answer to a temporary-full-accuracy request;
        /// ended ones are skipped lazily.
        var awaitingFullAccuracy: [RequestID] = []
        /// The waiting lists are compacted when they grow past this.
        var waitingListLimit = 1024
        /// What the admitted requests demand of the source: changed only by admission, holding and
        /// removal (this part's own methods), read by the power planner.
        var demand = PowerDemand()
        /// The timeouts and durations of the pending requests (and, lazily, of ended ones).
        var deadlines = Deadlines()

        /// A pending request, by kind. A one-shot is kept whole; a subscription's state — about 200 bytes
        /// of options, filters and last delivery — is kept in ``subscriptions``, which a fix walks, and a
        /// monitor's in ``monitors``, which transitions reach. An entry is then a one-shot or one of two
        /// markers, laid out as a one-shot alone is (the markers take values a one-shot never has): a
        /// million pending one-shots take no more memory than in a table of their own, and reading or
        /// replacing an entry copies no more (an entry that could hold a monitor too cost 80 instructions
        /// more a one-shot, 130 a cancel, in copies through the runtime's enum layout).
        enum Entry {
            case oneShot(OneShot)
            case subscription
            case monitor
        }

        /// A request taken out of the table, with what its ending needs: a one-shot whole, the handler of a
        /// subscription or a monitor (a subscription's whole state would make every removal copy 200 bytes).
        enum Removal {
            case oneShot(OneShot)
            case subscription(SubscriptionHandler)
            case monitor(MonitorHandler)
        }
    }
}

extension SchedulerStateMachine.Requests: Sendable where OneShotHandler: Sendable, SubscriptionHandler: Sendable, MonitorHandler: Sendable {}
extension SchedulerStateMachine.Requests.Entry: Sendable where OneShotHandler: Sendable {}

extension SchedulerStateMachine.Requests {
    typealias OneShot = SchedulerStateMachine.OneShot
    typealias Subscription = SchedulerStateMachine.Subscription
    typealias Monitor = SchedulerStateMachine.Monitor
    typealias Phase = SchedulerStateMachine.Phase

    /// Every pending request: one-shots, subscriptions and monitors.
    @inline(__always)
    var count: Int { table.count }

    /// The pending one-shots.
    @inline(__always)
    var oneShotCount: Int { table.count - subscriptions.count - monitors.count }

    /// The pending monitors.
    var monitorCount: Int { monitors.count }

    /// Whether a request with this ID is pending.
    @inline(__always)
    func contains(_ id: RequestID) -> Bool { table[id] != nil }

    /// The pending one-shot with this ID.
    @inline(__always)
    func oneShot(_ id: RequestID) -> OneShot? {
        if case .oneShot(let request)? = table[id] { return request }
        return nil
    }

    /// The pending monitor with this ID.
    func monitor(_ id: RequestID) -> Monitor? { monitors[id] }

    /// The phase of the one-shot or subscription with this ID, if it is pending.
    func phase(of id: RequestID) -> Phase? {
        switch table[id] {
        case .oneShot(let request)?: request.phase
        case .subscription?: subscriptions[id]?.phase
        case .monitor?, nil: nil
        }
    }

    /// Whether the request with this ID is pending and waits for authorization.
    func awaitsAuthorization(_ id: RequestID) -> Bool {
        switch table[id] {
        case .oneShot(let request)?: request.phase == .awaitingAuthorization
        case .subscription?: subscriptions[id]?.phase == .awaitingAuthorization
        case .monitor?: monitors[id]?.phase == .awaitingAuthorization
        case nil: false
        }
    }

    /// Stores a one-shot, new or changed. An ID names one request while it is pending (the core's owner
    /// hands out each ID once, and the submissions assert it).
    @inline(__always)
    mutating func store(_ id: RequestID, _ request: OneShot) {
        assert(subscriptions[id] == nil && monitors[id] == nil, "request \(id) is pending as another kind")
        table.insert(.oneShot(request), for: id)
    }

    /// Stores a subscription, new or changed.
    mutating func store(_ id: RequestID, _ subscription: Subscription) {
        guard subscriptions.updateValue(subscription, forKey: id) == nil else { return }
        assert(table[id] == nil, "request \(id) is pending as another kind")
        table.insert(.subscription, for: id)
    }

    /// Stores a monitor, new or changed.
    mutating func store(_ id: RequestID, _ monitor: Monitor) {
        guard monitors.updateValue(monitor, forKey: id) == nil else { return }
        assert(table[id] == nil, "request \(id) is pending as another kind")
        table.insert(.monitor, for: id)
    }

    // MARK: Admission and removal

    /// Stores a one-shot as admitted: counted in the demand and (once) in the accuracy index.
    /// - Complexity: amortised O(1); O(log c) for a custom accuracy among c.
    // Always inlined: a submission's request was never admitted, so the index check folds away with
    // the call (35 instructions fewer per one-shot submitted, Scripts/count-engine-instructions.sh).
    @inline(__always)
    mutating func admit(_ id: RequestID, _ request: inout OneShot) {
        let accuracy = request.wish.accuracy
        if !request.phase.isIndexed { index.insert(id, accuracy: accuracy) }
        request.phase = .admitted
        store(id, request)
        demand.addOneShot(accuracy.requiredPowerMode)
    }

    /// Stores a subscription as admitted: counted in the demand.
    /// - Complexity: amortised O(1)
    mutating func admit(_ id: RequestID, _ subscription: inout Subscription) {
        subscription.phase = .admitted
        store(id, subscription)
        if let mode = subscription.options.powerDemand { demand.add(mode, course: subscription.options.wantsCourse) }
    }

    /// Removes the request with this ID, of whatever kind, and its share of the demand. Its entries in the
    /// deadlines and the index, if any, stay behind until they are reached or compacted away.
    /// - Complexity: amortised O(1)
    @inline(__always)
    mutating func remove(_ id: RequestID) -> Removal? {
        switch table.removeValue(forKey: id) {
        case .oneShot(let request)?:
            leaveDemand(request)
            return .oneShot(request)
        case .subscription?:
            guard let subscription = subscriptions.removeValue(forKey: id) else {
                assertionFailure("subscription \(id) had an entry and no state")
                return nil
            }
            if subscription.phase == .admitted, let mode = subscription.options.powerDemand {
                demand.remove(mode, course: subscription.options.wantsCourse)
            }
            return .subscription(subscription.handler)
        case .monitor?:
            guard let monitor = monitors.removeValue(forKey: id) else {
                assertionFailure("monitor \(id) had an entry and no state")
                return nil
            }
            return .monitor(monitor.handler)
        case nil:
            return nil
        }
    }

    /// Removes the pending one-shot with this ID and its share of the demand; a request of another kind
    /// stays. The accuracy index names one-shots, and ended ones it has not dropped yet: an ID the owner
    /// used again for a subscription or a monitor after its one-shot ended is left alone (taken out and
    /// put back, so that the usual case pays one lookup).
    /// - Complexity: amortised O(1)
    @inline(__always)
    mutating func removeOneShot(_ id: RequestID) -> OneShot? {
        switch table.removeValue(forKey: id) {
        case .oneShot(let request)?:
            leaveDemand(request)
            return request
        case let other?:
            table.insert(other, for: id)
            return nil
        case nil:
            return nil
        }
    }

    /// A one-shot that left the table leaves the demand, if it was in it (admitted).
    @inline(__always)
    private mutating func leaveDemand(_ request: OneShot) {
        if request.phase == .admitted { demand.removeOneShot(request.wish.powerMode) }
    }

    /// What leaving the table took: the recipients of the endings to deliver (a monitor's region goes
    /// too).
    struct Removed {
        var oneShots: [Recipient<OneShotHandler>] = []
        var subscribers: [Recipient<SubscriptionHandler>] = []
        var monitors: [Recipient<MonitorHandler>] = []
    }

    /// Removes these requests (those still pending).
    /// - Complexity: O(k) for k IDs.
    mutating func remove(_ ids: [RequestID]) -> Removed {
        var removed = Removed()
        for id in ids { remove(id, into: &removed) }
        return removed
    }

    /// Removes every pending request (only those admitted, if `onlyAdmitted`; else nobody waits any
    /// more), one-shots, then subscriptions, then monitors, each kind in submission order.
    /// - Complexity: O(n log n)
    mutating func removeAll(onlyAdmitted: Bool) -> Removed { removeAll(onlyAdmitted: onlyAdmitted, unservedBy: []) }

    /// Removes the pending requests (only those admitted, if `onlyAdmitted`) that none of `sources` serves
    /// (see ``SourceCapabilities/serves(_:)``), or, for a heading subscription, none gives the course: with no
    /// source, every one. Requests demanding no power (passive subscriptions, monitors) are served by any source.
    /// - Complexity: O(n log n).
    mutating func removeAll(onlyAdmitted: Bool, unservedBy sources: [SourceCapabilities]) -> Removed {
        let givesCourse = sources.contains(where: \.providesCourse)
        func unservable(_ mode: PowerMode?, course: Bool = false) -> Bool {
            guard !sources.isEmpty else { return true }
            if course && !givesCourse { return true }
            return mode.map { mode in !sources.contains { $0.serves(mode) } } ?? false
        }
        var ids: [RequestID] = []
        table.forEach { id, entry in
            if case .oneShot(let request) = entry, (!onlyAdmitted || request.phase == .admitted) && unservable(request.wish.powerMode) {
                ids.append(id)
            }
        }
        ids.sort()
        ids += subscriptions.lazy.filter {
            (!onlyAdmitted || $0.value.phase == .admitted) && unservable($0.value.options.powerDemand, course: $0.value.options.wantsCourse)
        }
        .map(\.id)
        // A monitor demands no power of its own: only no source at all leaves it unserved.
        if sources.isEmpty { ids += monitors.lazy.filter { !onlyAdmitted || $0.value.phase == .admitted }.map(\.id) }
        if !onlyAdmitted {
            awaitingAuthorization.removeAll()
            awaitingFullAccuracy.removeAll()
        }
        return remove(ids)
    }

    /// Removes the requests whose timeout or duration is due at `now`.
    /// - Complexity: O(e log L) for e expired deadlines over L deadline lanes.
    mutating func expire(now: EngineInstant) -> Removed {
        var removed = Removed()
        while let id = deadlines.popDue(at: now) { remove(id, into: &removed) }
        return removed
    }

    private mutating func remove(_ id: RequestID, into removed: inout Removed) {
        switch remove(id) {
        case .oneShot(let request)?: removed.oneShots.append(Recipient(id, request.handler))
        case .subscription(let handler)?: removed.subscribers.append(Recipient(id, handler))
        case .monitor(let handler)?: removed.monitors.append(Recipient(id, handler))
        case nil: break
        }
    }

    // MARK: Compaction

    /// Drops the deadlines of ended requests at the head of the queue, so that the next wake-up is live.
    /// - Complexity: O(a log n) for a abandoned entries at the head.
    @inline(__always)
    mutating func dropAbandonedDeadlineHead() {
        // A loop over the head rather than a method of the queue taking an `isLive` closure: the closure
        // would need a copy of the table (retained and released on every removal) while the queue changes.
        while let id = deadlines.earliestID, !contains(id) { deadlines.dropEarliest() }
    }

    /// Keeps the next wake-up live after requests ended: abandoned deadlines at the head of the queue
    /// are dropped, so the owner never wakes for a request that has already ended. Bulk compaction does
    /// not run here (this is on the delivery and expiry paths) unless abandoned entries grow past a
    /// memory bound that an owner compacting when idle never reaches.
    /// - Complexity: O(a log n) for a abandoned entries at the head.
    @inline(__always)
    mutating func afterRemovals() {
        dropAbandonedDeadlineHead()
        let bound = 1 << 20
        if deadlines.abandonedAtLeast(pending: count) > bound || index.abandonedAtLeast(pending: oneShotCount) > bound
            || awaitingAuthorization.count + awaitingFullAccuracy.count > 4 * bound
        {
            compact()
        }
    }

    /// The subscriptions admitted to the source, as recipients, in submission order.
    /// - Complexity: O(s) for s subscriptions.
    func admittedSubscribers() -> [Recipient<SubscriptionHandler>] {
        subscriptions.filter { $0.value.phase == .admitted }.map { Recipient($0.id, $0.value.handler) }
    }

    /// The monitors admitted, as recipients, in submission order.
    /// - Complexity: O(m) for m monitors.
    func admittedMonitors() -> [Recipient<MonitorHandler>] {
        monitors.filter { $0.value.phase == .admitted }.map { Recipient($0.id, $0.value.handler) }
    }

    /// How many entries ``compact()`` would scan now (0 when it has nothing worth doing).
    func compactionBacklog() -> Int {
        var work = 0
        if deadlines.needsCompaction(pending: count) { work += deadlines.count }
        if index.needsCompaction(pending: oneShotCount) { work += index.count }
        let waiting = awaitingAuthorization.count + awaitingFullAccuracy.count
        if waiting > waitingListLimit { work += waiting }
        return work + table.compactionWork
    }

    /// Compacts (``compact()``) if there is enough time before `nextWakeup` for that much work (about
    /// 20 ns an entry), so that compaction never delays a timeout or a delivery.
    /// - Complexity: O(n) when it compacts.
    mutating func compact(ifIdleUntil nextWakeup: EngineInstant?, now: EngineInstant) {
        let backlog = compactionBacklog()
        guard backlog > 0 else { return }
        if let nextWakeup, nextWakeup - now < .nanoseconds(20 * backlog) + .microseconds(200) { return }
        compact()
    }

    /// Drops the entries of ended requests from the queues and waiting lists once they dominate, and
    /// lets the table settle. It changes no request's fate.
    /// - Complexity: O(n) when it compacts.
    mutating func compact() {
        if deadlines.needsCompaction(pending: count) {
            let table = self.table
            deadlines.compact { table[$0] != nil }
        }
        if index.needsCompaction(pending: oneShotCount) {
            // The index holds one-shots' IDs: a live one is a pending one-shot's (an ID used again for
            // another kind after its one-shot ended is not).
            let table = self.table
            index.compact { if case .oneShot? = table[$0] { true } else { false } }
        }
        if table.needsCompaction { table.compact() }
        if awaitingAuthorization.count + awaitingFullAccuracy.count > waitingListLimit {
            let requests = self
            awaitingAuthorization.removeAll { !requests.awaitsAuthorization($0) }
            awaitingFullAccuracy.removeAll { requests.phase(of: $0)?.awaitsFullAccuracy != true }
            waitingListLimit = max(1024, 2 * (awaitingAuthorization.count + awaitingFullAccuracy.count))
        }
    }
}

extension SchedulerStateMachine.Delivery {
    typealias Action = SchedulerAction<OneShotHandler, SubscriptionHandler, MonitorHandler>

    // MARK: Events

    /// An event begins at `moment`. Between events, what mid-delivery events kept for recipients ahead
    /// of the owner is moot: everything decided before has been carried out.
    @inline(__always)
    mutating func begin(at moment: Moment) {
        self.moment = moment
        if moment == .betweenEvents && hasOvertakenMidDelivery { forgetOvertaken() }
    }

    /// Whether a decided delivery still ahead of the owner may have been overtaken: by an event
    /// mid-delivery, or by a withdrawal held behind a barrier.
    @inline(__always)
    var hasOvertaken: Bool { hasOvertakenMidDelivery || !held.isEmpty }

    /// Whether an event mid-delivery may have overtaken a decided delivery still ahead of the owner.
    @inline(__always)
    private var hasOvertakenMidDelivery: Bool {
        !overtaken.isEmpty || !endedMidDelivery.isEmpty || reducedMidDelivery != nil || accessLostMidDelivery != nil
            || !barrierEnded.isEmpty
    }

    private mutating func forgetOvertaken() {
        overtaken = [:]
        endedMidDelivery = []
        reducedMidDelivery = nil
        accessLostMidDelivery = nil
        barrierEnded = []
    }

    /// Hands over what the event decided, and starts afresh.
    @inline(__always)
    mutating func takeEffects() -> SchedulerEffects<OneShotHandler, SubscriptionHandler, MonitorHandler> {
        guard !effects.isEmpty else { return SchedulerEffects() }
        return replace(&effects, with: SchedulerEffects())
    }

    // MARK: Deciding

    /// Decides an action.
    @inline(__always)
    mutating func emit(_ action: Action) { effects.append(action) }

    /// Decides a source command, carried out ahead of the event's other actions (``SchedulerEffects``).
    @inline(__always)
    mutating func emitCommand(_ action: Action) { effects.appendCommand(action) }

    /// Decides the regions' transitions so far, one action each, to their monitors still pending in
    /// `requests`.
    mutating func emitTransitions(from evaluator: inout RegionEvaluator, of requests: SchedulerStateMachine.Requests) {
        while let event = evaluator.nextEvent() {
            guard let monitor = requests.monitor(event.id) else { continue }
            emit(.notifyRegion(event, Recipient(event.id, monitor.handler)))
        }
    }

    /// Decides one result for these ended one-shots, and counts them.
    mutating func emitOneShots(_ recipients: [Recipient<OneShotHandler>], _ result: LocationResult) {
        guard !recipients.isEmpty else { return }
        counts.count(OneShotTally(result.status), recipients.count)
        emit(.completeOneShots(recipients, result))
    }

    /// Decides one event for these subscriptions (an `.ended` event for subscriptions that have ended),
    /// and counts it.
    mutating func emitSubscribers(_ recipients: [Recipient<SubscriptionHandler>], _ event: SubscriptionEvent) {
        guard !recipients.isEmpty else { return }
        switch event {
        case .location, .heading: counts.subscriptionUpdates += recipients.count
        case .sourceError: break
        case .ended: counts.subscriptionsEnded += recipients.count
        }
        emit(.notifySubscriptions(recipients, event))
    }

    /// Decides one event — a source error, or the ending of monitors that have ended — for these
    /// monitors, and counts an ending as a subscription's.
    mutating func emitMonitors(_ recipients: [Recipient<MonitorHandler>], _ event: RegionEvent) {
        guard !recipients.isEmpty else { return }
        if case .ended = event { counts.subscriptionsEnded += recipients.count }
        emit(.notifyMonitors(recipients, event))
    }

    /// Decides what a fix brought the subscriptions (``Requests/offer(_:now:)``): its location and heading
    /// updates, one delivery per run of one kind, so that the subscriptions hear the fix in the order they were
    /// made; then the ends of those it exhausted, which the updates still reach (they were decided with them live).
    mutating func emit(_ fanOut: SchedulerStateMachine.Requests.FanOut, of fix: StampedFix, now: EngineInstant) {
        for recipient in fanOut.exhausted { subscriptionEnded(recipient.id) }
        for run in fanOut.runs {
            if run.heading {
                // Only a fix with a course passes a heading subscription's filter.
                guard let course = fix.location.course else { continue }
                emitSubscribers(run.recipients, .heading(HeadingUpdate(course: course, location: fix.location)))
            } else {
                let update = LocationUpdate(location: fix.location, age: fix.age(at: now), achievedAccuracy: fix.achieved(at: now))
                emitSubscribers(run.recipients, .location(update))
            }
        }
        emitSubscribers(fanOut.exhausted, .ended(.maximumUpdatesReached))
    }

    /// Whether a subscription or monitor ended or was withdrawn mid-delivery: an update, notice or
    /// transition decided for it before, and still ahead of the owner, skips it.
    /// A cancel held behind a barrier counts as such an ending.
    @inline(__always)
    func hasEndedMidDelivery(_ id: RequestID) -> Bool {
        endedMidDelivery.contains(id) || overtaken[id] != nil || (!held.isEmpty && held[id] == .cancel)
    }

    /// The withdrawal that overtook the ending `end` decided for a subscription or monitor, taken (it takes
    /// effect once), with the counters moved from the ending to a cancel; `nil` when the decided ending
    /// stands — none overtook it, or it was a force-complete's own (the first withdrawal made wins).
    mutating func takeWithdrawal(overtaking end: SubscriptionEnd, of id: RequestID) -> Withdrawal? {
        guard end != .forceCompleted, let withdrawal = takeWithdrawal(overtaking: id) else { return nil }
        if withdrawal == .cancel {
            counts.subscriptionsEnded -= 1
            counts.subscriptionsCancelled += 1
        }
        return withdrawal
    }

    /// The withdrawal that overtook the ending decided for request `id`, taken: a cancel held behind a
    /// barrier (made before any withdrawal that reached the core since), else one made mid-delivery.
    @inline(__always)
    mutating func takeWithdrawal(overtaking id: RequestID) -> Withdrawal? {
        if !held.isEmpty, let withdrawal = held.removeValue(forKey: id) {
            // The held one was made before any that overtook the ending since (holding needs the request
            // pending): a held force-complete lets the decided ending stand, and a later cancel changes nothing.
            overtaken[id] = nil
            return withdrawal == .cancel ? .cancel : nil
        }
        return overtaken.isEmpty ? nil : overtaken.removeValue(forKey: id)
    }

    /// A withdrawal of request `id` reached the core while its owner must hold it behind a barrier: kept
    /// (the first of the request) until the owner hands it over.
    mutating func hold(_ id: RequestID, _ withdrawal: Withdrawal) {
        if held[id] == nil { held[id] = withdrawal }
    }

    /// A barrier event ended these requests, withdrawals of which were held: the barrier's endings stand,
    /// the held withdrawals go, and none handed over mid-delivery replaces those endings.
    /// - Complexity: O(k) for k requests.
    mutating func keepBarrierEndings(of ids: [RequestID]) {
        for id in ids {
            held[id] = nil
            barrierEnded.insert(id)
        }
    }

    /// A subscription or monitor ended: mid-delivery, an update or transition for it that may still be
    /// ahead of the owner skips it.
    @inline(__always)
    mutating func subscriptionEnded(_ id: RequestID) {
        if moment == .midDelivery { endedMidDelivery.insert(id) }
    }

    // MARK: Withdrawals

    /// Ends a cancelled one-shot: its handler hears of the cancel.
    @inline(__always)
    mutating func cancel(_ recipient: Recipient<OneShotHandler>) {
        counts.oneShotsCancelled += 1
        emit(.cancelOneShot(recipient))
    }

    /// Ends a force-completed one-shot with `result` (the best fix known).
    mutating func forceComplete(_ recipient: Recipient<OneShotHandler>, _ result: LocationResult) {
        emitOneShots([recipient], result)
    }

    /// Ends a withdrawn subscription as its withdrawal says.
    mutating func redirect(_ recipient: Recipient<SubscriptionHandler>, _ withdrawal: Withdrawal) {
        switch withdrawal {
        case .cancel:
            counts.subscriptionsCancelled += 1
            emit(.cancelSubscription(recipient))
        case .forceComplete:
            emitSubscribers([recipient], .ended(.forceCompleted))
        }
    }

    /// Ends a withdrawn monitor as its withdrawal says (counted as a subscription's ending).
    mutating func redirect(_ recipient: Recipient<MonitorHandler>, _ withdrawal: Withdrawal) {
        switch withdrawal {
        case .cancel:
            counts.subscriptionsCancelled += 1
            emit(.cancelMonitor(recipient))
        case .forceComplete:
            emitMonitors([recipient], .ended(.forceCompleted))
        }
    }

    /// A withdrawal of a request that is not pending. An ID not submitted yet ends so as it arrives.
    /// Mid-delivery, the request may have ended with its ending still ahead of the owner: the
    /// withdrawal is kept for it (``SchedulerStateMachine/reached(oneShot:receiving:)``). The first
    /// withdrawal of a request is the one that takes effect: a later one changes nothing.
    mutating func recordWithdrawal(_ id: RequestID, _ withdrawal: Withdrawal) {
        if id > lastSubmittedID {
            if ahead[id] == nil { ahead[id] = withdrawal }
        } else if moment == .midDelivery, overtaken[id] == nil, barrierEnded.isEmpty || !barrierEnded.contains(id) {
            overtaken[id] = withdrawal
        }
    }

    /// A request arrives under `id`: whether it was withdrawn before it arrived, and how.
    @inline(__always)
    mutating func takeWithdrawalAhead(of id: RequestID) -> Withdrawal? {
        if id > lastSubmittedID { lastSubmittedID = id }
        guard !ahead.isEmpty else { return nil }
        return ahead.removeValue(forKey: id)
    }
}

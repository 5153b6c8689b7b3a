import DequeModule

/// A fix whose one-shots are being handed out: the index buckets it satisfies, taken from the index
/// when it arrived, and whether the custom-accuracy entries are still to be checked. Its one-shots stay
/// pending until they are handed out (``SchedulerStateMachine/nextOneShot()``), so that a withdrawal
/// issued meanwhile still reaches them, and each costs nothing until then.
struct FixCompletion {
    /// The fix, and the instant it was processed (custom accuracies' recency is judged then).
    var fix: StampedFix
    var processedAt: EngineInstant
    /// The best standard level the fix met when it was processed.
    var achieved: AccuracyLevel?
    /// What every request it completes receives.
    var result: LocationResult
    /// The satisfied buckets still to hand out, coarsest level first.
    var buckets: Deque<Deque<RequestID>>
    /// Whether every custom-accuracy entry the fix is accurate enough for has been taken.
    var customsTaken = false
    /// Custom entries the fix was accurate enough for but too old for; they go back at the end.
    var failedRecency: [OneShotIndex.CustomEntry] = []
}

extension SchedulerStateMachine {
    /// Queues the completion of every one-shot that `fix` satisfies: they are taken from the index
    /// bucket by bucket as they are handed out.
    /// - Complexity: O(levels)
    mutating func completeOneShots(with fix: StampedFix, now: EngineInstant) {
        guard !requests.oneShots.isEmpty else { return }
        let achieved = fix.achieved(at: now)
        var buckets = Deque<Deque<RequestID>>()
        if let achieved {
            for level in AccuracyLevel.allCases where level <= achieved {
                let bucket = requests.index.takeBucket(level)
                if !bucket.isEmpty { buckets.append(bucket) }
            }
        }
        guard !buckets.isEmpty || requests.index.hasCustom(accurateEnough: fix.location.horizontalAccuracy) else { return }
        delivery.fixCompletion = FixCompletion(
            fix: fix, processedAt: now, achieved: achieved,
            result: LocationResult(status: .success, location: fix.location, age: fix.age(at: now), achievedAccuracy: achieved),
            buckets: buckets)
        delivery.outbox.append(.fixCompletion)
    }

    /// Takes the next one-shot the fix being completed satisfies out of the tables, or ends the
    /// completion (putting back the custom entries that were too old) when none is left.
    /// - Complexity: amortised O(1) per one-shot taken; O(log c) for a custom accuracy among c.
    mutating func takeNextFixRecipient() -> Recipient<OneShotHandler>? {
        while delivery.fixCompletion != nil {
            if !delivery.fixCompletion!.buckets.isEmpty {
                guard let id = delivery.fixCompletion!.buckets[0].popFirst() else {
                    delivery.fixCompletion!.buckets.removeFirst()
                    continue
                }
                if let request = removeOneShot(id) {
                    return Recipient(id, request.handler)
                }
                continue
            }
            if !delivery.fixCompletion!.customsTaken {
                let metres = delivery.fixCompletion!.fix.location.horizontalAccuracy
                guard let entry = requests.index.popCustom(accurateEnough: metres) else {
                    delivery.fixCompletion!.customsTaken = true
                    continue
                }
                let id = RequestID(rawValue: entry.id)
                guard let request = requests.oneShots[id] else { continue }
                let age = delivery.fixCompletion!.fix.age(at: delivery.fixCompletion!.processedAt)
                if request.wish.accuracy.isSatisfied(horizontalAccuracy: metres, age: age) {
                    _ = removeOneShot(id)
                    return Recipient(id, request.handler)
                }
                delivery.fixCompletion!.failedRecency.append(entry)
                continue
            }
            for entry in delivery.fixCompletion!.failedRecency { requests.index.reinsert(entry) }
            delivery.fixCompletion = nil
            // The one-shots it completed no longer need the source.
            afterRemovals()
            reconcilePower(now: latestNow)
        }
        return nil
    }

    /// Takes every one-shot the fix being completed still satisfies out of the tables at once, so that
    /// a change about to apply (an authorization change due between two slices of the fix's delivery)
    /// finds them ended: the fix came first. Their delivery keeps its place in the outbox.
    /// - Complexity: O(k) for k one-shots left.
    mutating func settleFixCompletion() {
        guard let result = delivery.fixCompletion?.result else { return }
        var recipients: [Recipient<OneShotHandler>] = []
        while let recipient = takeNextFixRecipient() { recipients.append(recipient) }
        let settled = Outbox<OneShotHandler, SubscriptionHandler>.Entry.oneShots(recipients, start: 0, result, .succeeded)
        if delivery.outbox.handing == .fix {
            delivery.outbox.finishCurrentGroup()
            if !recipients.isEmpty { delivery.outbox.queue.prepend(settled) }
            return
        }
        let isFix = { (entry: Outbox<OneShotHandler, SubscriptionHandler>.Entry) in if case .fixCompletion = entry { true } else { false } }
        if let position = delivery.outbox.queue.firstIndex(where: isFix) {
            if recipients.isEmpty { delivery.outbox.queue.remove(at: position) } else { delivery.outbox.queue[position] = settled }
        } else if let position = delivery.outbox.interim.firstIndex(where: isFix) {
            if recipients.isEmpty { delivery.outbox.interim.remove(at: position) } else { delivery.outbox.interim[position] = settled }
        }
    }

    /// Whether the fix being completed will complete this pending one-shot: it waits in a bucket the
    /// fix took, or it is a custom accuracy the fix meets (its entry not yet taken).
    func fixCompletionCovers(_ id: RequestID, _ request: OneShot) -> Bool {
        guard let completion = delivery.fixCompletion, request.phase.isIndexed else { return false }
        switch request.wish {
        case .level(let level):
            guard let achieved = completion.achieved else { return false }
            return level <= achieved
        case .detailed(let details):
            if let level = details.accuracy.level {
                guard let achieved = completion.achieved else { return false }
                return level <= achieved
            }
            return details.accuracy.isSatisfied(
                horizontalAccuracy: completion.fix.location.horizontalAccuracy, age: completion.fix.age(at: completion.processedAt))
        }
    }
}

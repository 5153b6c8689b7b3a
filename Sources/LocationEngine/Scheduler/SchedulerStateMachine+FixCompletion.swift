import DequeModule

/// A fix whose one-shots are completed a piece at a time (see
/// ``SchedulerStateMachine/Configuration/completionPiece``): the index buckets it satisfies, taken
/// from the index when it arrived, and whether the custom-accuracy entries are still to be checked.
struct FixCompletion {
    /// The fix, and the instant it was processed (custom accuracies' recency is judged then).
    var fix: StampedFix
    var processedAt: EngineInstant
    /// The best standard level the fix met when it was processed.
    var achieved: AccuracyLevel?
    /// What every request it completes receives.
    var result: LocationResult
    /// The satisfied buckets still to complete, coarsest level first.
    var buckets: Deque<Deque<RequestID>>
    /// Whether every custom-accuracy entry the fix is accurate enough for has been taken.
    var customsTaken = false
    /// Custom entries the fix was accurate enough for but too old for; they go back at the end.
    var failedRecency: [OneShotIndex.CustomEntry] = []

    var isDone: Bool { buckets.isEmpty && customsTaken }
}

extension SchedulerStateMachine {
    /// Whether a fix's one-shots are still being completed piece by piece (see
    /// ``Configuration/completionPiece``). While it is, the owner calls
    /// ``continueFixCompletion(now:into:)``; any other event but a cancel or force-complete completes
    /// the rest at once before it applies.
    public var isCompletingFix: Bool { fixCompletion != nil }

    /// Expires what is due at `now`, then completes the next piece of the fix being completed. A
    /// request the fix satisfies succeeds even when its deadline passes meanwhile: the fix arrived first.
    /// - Complexity: O(e log L + p) for e expired deadlines over L deadline lanes and a piece of p completions.
    @_specialize(exported: true, where OneShotHandler == ClosureOneShotHandler, SubscriptionHandler == ClosureSubscriptionHandler)
    public mutating func continueFixCompletion(now: EngineInstant, into actions: inout [Action]) {
        let now = tick(now)
        applyDueAuthorizationChanges(upTo: now, into: &actions)
        expireDeadlines(now: now, into: &actions)
        completeNextPiece(limit: configuration.completionPiece, into: &actions)
        afterRemovals()
        reconcilePower(now: now, into: &actions)
    }

    /// Starts completing every one-shot that `fix` satisfies; completes the first piece.
    mutating func completeOneShots(with fix: StampedFix, now: EngineInstant, into actions: inout [Action]) {
        guard !oneShots.isEmpty else { return }
        let achieved = fix.achieved(at: now)
        var buckets = Deque<Deque<RequestID>>()
        if let achieved {
            for level in AccuracyLevel.allCases where level <= achieved {
                let bucket = index.takeBucket(level)
                if !bucket.isEmpty { buckets.append(bucket) }
            }
        }
        fixCompletion = FixCompletion(
            fix: fix, processedAt: now, achieved: achieved,
            result: LocationResult(status: .success, location: fix.location, age: fix.age(at: now), achievedAccuracy: achieved),
            buckets: buckets)
        completeNextPiece(limit: configuration.completionPiece, into: &actions)
    }

    /// Completes up to `limit` more one-shots of the fix being completed, in one grouped action;
    /// ends the completion when nothing is left.
    mutating func completeNextPiece(limit: Int, into actions: inout [Action]) {
        guard var completion = replace(&fixCompletion, with: nil) else { return }
        var handlers: [Recipient<OneShotHandler>] = []
        handlers.reserveCapacity(min(limit, completion.buckets.reduce(0) { $0 + $1.count }))
        while handlers.count < limit, !completion.buckets.isEmpty {
            guard let id = completion.buckets[0].popFirst() else {
                completion.buckets.removeFirst()
                continue
            }
            if let request = removeOneShot(id, removedFromIndex: true, removedFromDeadlines: false) {
                handlers.append(Recipient(id, request.handler))
            } else {
                index.noteAbandonedEntryRemoved()
            }
        }
        if !completion.buckets.isEmpty && completion.buckets[0].isEmpty { completion.buckets.removeFirst() }
        if completion.buckets.isEmpty && !completion.customsTaken {
            let fix = completion.fix
            while true {
                guard index.hasCustom(accurateEnough: fix.location.horizontalAccuracy) else {
                    completion.customsTaken = true
                    break
                }
                guard handlers.count < limit, let entry = index.popCustom(accurateEnough: fix.location.horizontalAccuracy) else { break }
                let id = RequestID(rawValue: entry.id)
                guard oneShots[id] != nil else {
                    index.noteAbandonedEntryRemoved()
                    continue
                }
                if customAccuracies[id]!.isSatisfied(horizontalAccuracy: fix.location.horizontalAccuracy, age: fix.age(at: completion.processedAt)) {
                    handlers.append(Recipient(id, removeOneShot(id, removedFromIndex: true, removedFromDeadlines: false)!.handler))
                } else {
                    completion.failedRecency.append(entry)
                }
            }
        }
        if !handlers.isEmpty {
            counters.oneShotsSucceeded += handlers.count
            actions.append(.completeOneShots(handlers, completion.result))
        }
        if completion.isDone {
            for entry in completion.failedRecency { index.reinsert(entry) }
        } else {
            fixCompletion = completion
        }
    }

    /// Completes what is left of the fix being completed, at once.
    mutating func finishFixCompletion(now: EngineInstant, into actions: inout [Action]) {
        guard fixCompletion != nil else { return }
        completeNextPiece(limit: .max, into: &actions)
        afterRemovals()
        reconcilePower(now: now, into: &actions)
    }

    /// Whether the fix being completed will complete this pending one-shot: it waits in a bucket the
    /// fix took, or it is a custom accuracy the fix meets (its entry not yet taken).
    func fixCompletionCovers(_ id: RequestID, _ request: OneShot) -> Bool {
        guard let completion = fixCompletion, request.phase.isIndexed else { return false }
        if request.level == Self.customLevel {
            return customAccuracies[id]!.isSatisfied(
                horizontalAccuracy: completion.fix.location.horizontalAccuracy, age: completion.fix.age(at: completion.processedAt))
        }
        guard let achieved = completion.achieved else { return false }
        return Int(request.level) <= achieved.rawValue
    }

    /// The start of every event but cancels, force-completes and the passing of time: the timeline
    /// moves to `now`, and a fix still being completed piece by piece completes first.
    mutating func enter(_ now: EngineInstant, into actions: inout [Action]) -> EngineInstant {
        let now = tick(now)
        if fixCompletion != nil { finishFixCompletion(now: now, into: &actions) }
        return now
    }
}

import DequeModule

/// A fix whose one-shots are being handed out: the index buckets it satisfies, taken from the index
/// when it arrived, then the custom-accuracy entries it is accurate enough for. Its one-shots stay
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
    /// Custom entries the fix was accurate enough for but too old for; they go back at the end.
    var failedRecency: [OneShotIndex.CustomEntry] = []

    /// Whether it will complete a pending one-shot asking for `wish` (indexed, if `isIndexed`): the
    /// one-shot waits in a bucket it took, or it is a custom accuracy it meets (its entry not yet taken).
    func covers(_ wish: OneShotWish, isIndexed: Bool) -> Bool {
        guard isIndexed else { return false }
        switch wish {
        case .level(let level):
            guard let achieved else { return false }
            return level <= achieved
        case .detailed(let details):
            if let level = details.accuracy.level {
                guard let achieved else { return false }
                return level <= achieved
            }
            return details.accuracy.isSatisfied(horizontalAccuracy: fix.location.horizontalAccuracy, age: fix.age(at: processedAt))
        }
    }
}

extension SchedulerStateMachine.Requests {
    /// The completion of every one-shot that `fix`, processed at `now`, satisfies, or `nil` when it
    /// satisfies none: the satisfied buckets leave the index now, their one-shots the table as they are
    /// taken (``takeNext(of:)``).
    /// - Complexity: O(levels)
    mutating func beginCompletion(with fix: StampedFix, now: EngineInstant) -> FixCompletion? {
        guard !oneShots.isEmpty else { return nil }
        let achieved = fix.achieved(at: now)
        var buckets = Deque<Deque<RequestID>>()
        if let achieved {
            for level in AccuracyLevel.allCases where level <= achieved {
                let bucket = index.takeBucket(level)
                if !bucket.isEmpty { buckets.append(bucket) }
            }
        }
        guard !buckets.isEmpty || index.hasCustom(accurateEnough: fix.location.horizontalAccuracy) else { return nil }
        return FixCompletion(
            fix: fix, processedAt: now, achieved: achieved,
            result: LocationResult(status: .success, location: fix.location, age: fix.age(at: now), achievedAccuracy: achieved),
            buckets: buckets)
    }

    /// Takes the next pending one-shot `completion` satisfies out of the tables; `nil` when none is left,
    /// and then the custom entries that were too old are back in the index. The buckets go first, then
    /// the custom entries accurate enough, until the index has none left: what is left of the completion
    /// is in the index itself, so taking again after `nil` checks those too old again, puts them back
    /// again and gives `nil` again.
    /// - Complexity: amortised O(1) per one-shot taken; O(log c) for a custom accuracy among c.
    mutating func takeNext(of completion: inout FixCompletion) -> Recipient<OneShotHandler>? {
        while !completion.buckets.isEmpty {
            guard let id = completion.buckets[0].popFirst() else {
                completion.buckets.removeFirst()
                continue
            }
            if let request = removeOneShot(id) { return Recipient(id, request.handler) }
        }
        let metres = completion.fix.location.horizontalAccuracy
        let age = completion.fix.age(at: completion.processedAt)
        while let entry = index.popCustom(accurateEnough: metres) {
            let id = RequestID(rawValue: entry.id)
            guard let request = oneShots[id] else { continue }
            if request.wish.accuracy.isSatisfied(horizontalAccuracy: metres, age: age) {
                _ = removeOneShot(id)
                return Recipient(id, request.handler)
            }
            completion.failedRecency.append(entry)
        }
        for entry in completion.failedRecency { index.reinsert(entry) }
        completion.failedRecency = []
        return nil
    }
}

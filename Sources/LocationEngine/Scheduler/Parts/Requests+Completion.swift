extension SchedulerStateMachine.Requests {
    /// Takes every pending one-shot that `fix`, processed at `now`, satisfies out of the table, with
    /// the result they all receive; `nil` when it satisfies none. The index buckets it meets go whole,
    /// then the custom accuracies it is accurate enough for — those it is too old for go back to the index.
    /// - Complexity: O(levels + k) for k one-shots completed, plus O(log c) per custom accuracy among c.
    mutating func complete(with fix: StampedFix, now: EngineInstant) -> ([Recipient<OneShotHandler>], LocationResult)? {
        guard oneShotCount > 0 else { return nil }
        let achieved = fix.achieved(at: now)
        let metres = fix.location.horizontalAccuracy
        var recipients: [Recipient<OneShotHandler>] = []
        if let achieved {
            for level in AccuracyLevel.allCases where level <= achieved {
                for id in index.takeBucket(level) {
                    if let request = removeOneShot(id) { recipients.append(Recipient(id, request.handler)) }
                }
            }
        }
        if index.hasCustom(accurateEnough: metres) {
            let age = fix.age(at: now)
            var tooOld: [OneShotIndex.CustomEntry] = []
            while let entry = index.popCustom(accurateEnough: metres) {
                let id = RequestID(rawValue: entry.id)
                guard let request = oneShot(id) else { continue }
                if request.wish.accuracy.isSatisfied(horizontalAccuracy: metres, age: age) {
                    _ = removeOneShot(id)
                    recipients.append(Recipient(id, request.handler))
                } else {
                    tooOld.append(entry)
                }
            }
            for entry in tooOld { index.reinsert(entry) }
        }
        guard !recipients.isEmpty else { return nil }
        return (recipients, LocationResult(status: .success, location: fix.location, age: fix.age(at: now), achievedAccuracy: achieved))
    }
}

extension SchedulerStateMachine {
    /// Where access stands: the authorization picture (the one copy of it), its open prompts and
    /// scheduled changes, temporary full accuracy, and the throttle of fixes let through under reduced
    /// accuracy. Which requests wait for access is the requests' fact (``Requests``); what decides
    /// whether one must is this part's (``rules``).
    ///
    /// Its invariants: an answer counts only while its prompt is open, and every change of access (and,
    /// for temporary full accuracy, of accuracy) closes the prompts of the period before; at most one
    /// authorization request per not-determined period and one temporary-full-accuracy request per
    /// period of reduced accuracy are open.
    struct Access: Sendable {
        /// The authorization picture, open prompts and scheduled changes.
        var timeline: AuthorizationTimeline
        /// Whether this not-determined period's one authorization request was made.
        var authorizationRequested = false
        /// Where temporary full accuracy stands in this period of reduced accuracy.
        var temporaryFullAccuracy = TemporaryFullAccuracy.notAsked
        /// When the last fix was let through under reduced accuracy (for the throttle).
        var lastCoarseFixAt: EngineInstant?
        /// How fixes are coarsened and throttled under reduced accuracy.
        let reducedAccuracy: ReducedAccuracyPolicy
        /// Prompts asked for, and answers and presses that changed nothing.
        var counts = Counts()

        init(picture: AuthorizationState, reducedAccuracy: ReducedAccuracyPolicy) {
            timeline = AuthorizationTimeline(picture: picture)
            self.reducedAccuracy = reducedAccuracy
        }
    }

    /// What access counts (see ``SchedulerStatistics``).
    struct Counts: Sendable {
        var authorizationRequests = 0
        var fullAccuracyRequests = 0
        var authorizationAnswersIgnored = 0
        var locationButtonPressesIgnored = 0

        /// Writes the counts into `statistics`.
        func add(to statistics: inout SchedulerStatistics) {
            statistics.authorizationRequests = authorizationRequests
            statistics.fullAccuracyRequests = fullAccuracyRequests
            statistics.authorizationAnswersIgnored = authorizationAnswersIgnored
            statistics.locationButtonPressesIgnored = locationButtonPressesIgnored
        }
    }

    /// Where temporary full accuracy stands while accuracy is reduced (reset by every change of
    /// accuracy authorization).
    enum TemporaryFullAccuracy: UInt8 {
        /// Not asked for: the first request that needs it and names a purpose key asks.
        case notAsked
        /// Asked for, the answer still to come: requests needing it wait for that answer.
        case asked
        /// Refused in this session: requests needing it end at once until the next session.
        case refused
    }
}

extension SchedulerStateMachine.Access {
    /// What the picture lets the scheduler do: deliver fixes, wait, or refuse.
    @inline(__always)
    var gate: AuthorizationGate { timeline.picture.gate }

    /// The picture's accuracy authorization.
    @inline(__always)
    var accuracy: AccuracyAuthorization { timeline.picture.accuracy }

    // MARK: Reduced accuracy

    /// What decides, now, whether a request needs full accuracy and may wait for it.
    @inline(__always)
    var rules: AccuracyRules {
        AccuracyRules(reduced: accuracy == .reduced ? reducedAccuracy : nil, fullAccuracyRefused: temporaryFullAccuracy == .refused)
    }

    /// A valid fix arriving at `now`, as the requests may see it: as it is under full accuracy; under
    /// reduced accuracy coarsened, or `nil` when the throttle holds it back.
    /// - Complexity: O(1)
    mutating func letThrough(_ location: Location, now: EngineInstant) -> Location? {
        guard accuracy == .reduced else { return location }
        if let last = lastCoarseFixAt, now - last < reducedAccuracy.minimumInterval { return nil }
        lastCoarseFixAt = now
        return reducedAccuracy.coarsen(location)
    }

    /// Accuracy authorization changed: a refusal of temporary full accuracy is forgotten (the next
    /// request may ask again), and under reduced accuracy the throttle starts afresh.
    mutating func accuracyChanged() {
        temporaryFullAccuracy = .notAsked
        if accuracy == .reduced { lastCoarseFixAt = nil }
    }

    /// Access was lost or regained, or a not-determined period begins: this period's authorization
    /// request is still to be made.
    mutating func accessChanged() { authorizationRequested = false }

    /// Every pending request ends: a temporary-full-accuracy request asked for them is no longer waited
    /// on.
    mutating func forgetWaitingRequests() {
        if temporaryFullAccuracy == .asked { temporaryFullAccuracy = .notAsked }
    }
}

/// What access says, at one instant, about requests that coarsened fixes cannot serve: a small value the
/// requests decide their admission by.
struct AccuracyRules: Sendable {
    /// How fixes are coarsened, while accuracy is reduced; `nil` under full accuracy.
    let reduced: ReducedAccuracyPolicy?
    /// Whether temporary full accuracy was refused in this period.
    let fullAccuracyRefused: Bool

    /// Whether coarsened fixes can never satisfy a one-shot of this accuracy now.
    @inline(__always)
    func needsFullAccuracy(_ accuracy: LocationAccuracy) -> Bool { reduced?.cannotSatisfy(accuracy) ?? false }

    /// Whether coarsened fixes can never serve a subscription with these options now.
    func needsFullAccuracy(_ options: SubscriptionOptions) -> Bool { reduced.map(options.needsFullAccuracy) ?? false }

    /// Whether a request naming `purposeKey` would wait for temporary full accuracy rather than end.
    func mayWaitForFullAccuracy(purposeKey: String?) -> Bool { purposeKey != nil && !fullAccuracyRefused }
}

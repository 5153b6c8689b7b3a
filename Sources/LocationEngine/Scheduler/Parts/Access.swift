extension SchedulerStateMachine {
    /// Where access stands and what it lets the engine reveal: the authorization picture (the one copy
    /// of it), its open prompts and scheduled changes, temporary full accuracy, and the fixes remembered
    /// under it — coarsened (and throttled) under reduced accuracy, forgotten when access is lost. Which
    /// requests wait for access is the requests' fact (``Requests``); what decides whether one must is
    /// this part's (``rules``).
    ///
    /// Its invariants: an answer counts only while its prompt is open, and every change of access (and,
    /// for temporary full accuracy, of accuracy) closes the prompts of the period before; at most one
    /// authorization request per not-determined period and one temporary-full-accuracy request per
    /// period of reduced accuracy are open.
    struct Access: Sendable {
        /// The authorization picture, open prompts and scheduled changes.
        var timeline: AuthorizationTimeline
        /// Whether the next scheduled change may have moved since the core last read it into authorization's
        /// alarm (the event's settle step reads it, ``SchedulerStateMachine/settle()``).
        var alarmMoved = false
        /// Where this not-determined period's one authorization request stands.
        var authorizationRequest = AuthorizationRequest.notMade
        /// Where temporary full accuracy stands in this period of reduced accuracy.
        var temporaryFullAccuracy = TemporaryFullAccuracy.notAsked
        /// When the last fix was let through under reduced accuracy (for the throttle).
        var lastCoarseFixAt: EngineInstant?
        /// The fixes remembered, as they may be revealed under the picture.
        private(set) var history = FixHistory()
        /// How fixes are coarsened and throttled under reduced accuracy.
        let reducedAccuracy: ReducedAccuracyPolicy
        /// What the application declares it may ask for, and the level it prefers.
        let usage: UsageDeclarations
        let preferredAuthorization: AuthorizationLevel
        /// Prompts asked for, and answers and presses that changed nothing.
        var counts = Counts()
        /// The source of the latest fix remembered.
        var latestSource = SourceID.first
        /// How long a fix supersedes a less accurate one from another source inside its circle.
        static var supersedingWindow: Duration { .seconds(30) }

        init(
            picture: AuthorizationState, reducedAccuracy: ReducedAccuracyPolicy, usage: UsageDeclarations = .none,
            preferring preferredAuthorization: AuthorizationLevel = .whenInUse
        ) {
            timeline = AuthorizationTimeline(picture: picture)
            self.reducedAccuracy = reducedAccuracy
            self.usage = usage
            self.preferredAuthorization = preferredAuthorization
        }
    }

    /// What access counts: prompts and the fixes it let through (see ``SchedulerStatistics``).
    struct Counts: Sendable {
        var authorizationRequests = 0
        var fullAccuracyRequests = 0
        var authorizationAnswersIgnored = 0
        var locationButtonPressesIgnored = 0
        var fixesReceived = 0
        var invalidFixes = 0
        var fixesThrottled = 0
        var fixesSuperseded = 0

        /// Writes the counts into `statistics`.
        func add(to statistics: inout SchedulerStatistics) {
            statistics.authorizationRequests = authorizationRequests
            statistics.fullAccuracyRequests = fullAccuracyRequests
            statistics.authorizationAnswersIgnored = authorizationAnswersIgnored
            statistics.locationButtonPressesIgnored = locationButtonPressesIgnored
            statistics.fixesReceived = fixesReceived
            statistics.invalidFixes = invalidFixes
            statistics.fixesThrottled = fixesThrottled
            statistics.fixesSuperseded = fixesSuperseded
        }
    }

    /// Where this not-determined period's one authorization request stands (reset by every change of
    /// access, and when the request ends without a decision).
    enum AuthorizationRequest: UInt8 {
        /// Not made: the first request that must wait for authorization makes it.
        case notMade
        /// Made while a location-button confirmation from not determined was open: its prompt is shown
        /// once that confirmation is answered, if access is still not determined.
        case waitingForLocationButton
        /// Made, and its prompt shown: requests wait for the answer.
        case shown
    }
}

/// Where temporary full accuracy stands while accuracy is reduced (reset by every change of accuracy
/// authorization).
enum TemporaryFullAccuracy: UInt8, Sendable {
    /// Not asked for: the first request that needs it and names a purpose key asks.
    case notAsked
    /// Asked for, the answer still to come: requests needing it wait for that answer.
    case asked
    /// Refused in this session: requests needing it end at once until the next session.
    case refused
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
        AccuracyRules(reduced: accuracy == .reduced ? reducedAccuracy : nil, temporaryFullAccuracy: temporaryFullAccuracy)
    }

    /// A fix from `source` that was `age` old on arrival at `now`, counted, and remembered if it is valid
    /// (finite, in range, not from the future), not superseded (the newest fix is from another source and
    /// more accurate, and either was taken after this one, or no more than ``supersedingWindow`` before it
    /// and lies inside the new fix's circle: GeoClue's rule — the new fix says nothing the current one
    /// contradicts, so a coarse source beside a precise one does not make the position jump, while a coarse
    /// fix that excludes the current position replaces it) and not held back by the throttle
    /// (see ``remember(_:age:now:)``). A superseded fix is not remembered and does not become the latest, but
    /// is still handed back as `superseded`: under full accuracy it may answer a one-shot the latest, grown too
    /// old for it, no longer does (a city request made seconds after a precise fix, whose maximum age the
    /// precise fix has outlived, takes the fresh coarse fix rather than timing out beside it).
    /// - Complexity: O(1)
    mutating func receive(_ location: Location, age: Duration, now: EngineInstant, source: SourceID) -> Reception {
        counts.fixesReceived += 1
        guard Self.isValid(location, age: age) else {
            counts.invalidFixes += 1
            return .dropped
        }
        // An age beyond a century (a source's "unknown" as `Int64.max` seconds) is a century: stale for every
        // request, and far enough from the ends of the engine's timeline that `now - age` and ages read from it
        // stay exact instead of saturating into a fix that looks new.
        let age = min(age, Self.oldestAge)
        let observedAt = now - age
        var location = location
        // A course is a direction in [0, 360): 360 is north; NaN, negative (Core Location's "invalid") or
        // beyond a turn is none, so no heading is made of it.
        if let course = location.course { location.course = course.isFinite && (0...360).contains(course) ? course.truncatingRemainder(dividingBy: 360) : nil }
        if source != latestSource, let latest = history.latest, latest.location.horizontalAccuracy < location.horizontalAccuracy,
            observedAt < latest.observedAt
                || (observedAt - latest.observedAt <= Self.supersedingWindow
                    && latest.location.distance(to: location) <= location.horizontalAccuracy)
        {
            counts.fixesSuperseded += 1
            return .superseded(StampedFix(location: location, observedAt: observedAt))
        }
        let becomesLatest = history.latest.map { observedAt >= $0.observedAt } ?? true
        guard let fix = remember(location, age: age, now: now) else {
            counts.fixesThrottled += 1
            return .dropped
        }
        // The source of the newest fix, which the next fixes of other sources are weighed against: a fix
        // remembered without becoming the newest (an older one) does not change it.
        if becomesLatest { latestSource = source }
        return .accepted(fix)
    }

    /// What became of a fix a source reported.
    enum Reception {
        /// Remembered: it reaches every request that accepts it.
        case accepted(StampedFix)
        /// Kept out by a more accurate latest fix from another source: under full accuracy it may answer
        /// one-shots, never subscriptions (under reduced accuracy, where every fix is coarsened and throttled
        /// first, nothing).
        case superseded(StampedFix)
        /// Invalid, or held back by the reduced-accuracy throttle.
        case dropped
    }

    /// Whether a fix `age` old is one at all: finite and in range, not from the future.
    @inline(__always)
    static func isValid(_ location: Location, age: Duration) -> Bool { location.isValid && age >= .zero }

    /// The oldest age a fix is taken to have: a hundred years.
    static var oldestAge: Duration { .seconds(100 * 365 * 86_400) }

    /// A valid fix that was `age` old on arrival at `now`, as the requests may see it, remembered: as it is
    /// under full accuracy; under reduced accuracy coarsened, or `nil` when the throttle holds it back.
    /// - Complexity: O(1)
    mutating func remember(_ location: Location, age: Duration, now: EngineInstant) -> StampedFix? {
        var location = location
        if accuracy == .reduced {
            if let last = lastCoarseFixAt, now - last < reducedAccuracy.minimumInterval { return nil }
            lastCoarseFixAt = now
            location = reducedAccuracy.coarsen(location)
        }
        let fix = StampedFix(location: location, observedAt: now - age)
        history.record(fix)
        return fix
    }

    /// A result with `status` carrying the best fix known at `now` (none unless authorized).
    // Inlined, like the other reads on a request's way through the core: out of line, the call copied
    // this part (a few hundred bytes) on every submit.
    @inline(__always)
    func result(_ status: LocationStatus, now: EngineInstant) -> LocationResult {
        guard gate == .authorized, let best = history.best(at: now) else {
            return LocationResult(status: status, location: nil, age: nil, achievedAccuracy: nil)
        }
        return LocationResult(status: status, location: best.location, age: best.age(at: now), achievedAccuracy: best.achieved(at: now))
    }

    /// A success from a remembered fix that satisfies `accuracy` at `now`, if one does (none unless
    /// authorized).
    @inline(__always)
    func cachedResult(satisfying accuracy: LocationAccuracy, now: EngineInstant) -> LocationResult? {
        guard gate == .authorized, let cached = history.cached(satisfying: accuracy, at: now) else { return nil }
        return LocationResult(status: .success, location: cached.location, age: cached.age(at: now), achievedAccuracy: cached.achieved(at: now))
    }

    /// The newest fix remembered, as a success at `now` (none unless authorized).
    func lastKnownLocation(now: EngineInstant) -> LocationResult? {
        guard gate == .authorized, let fix = history.latest else { return nil }
        return LocationResult(status: .success, location: fix.location, age: fix.age(at: now), achievedAccuracy: fix.achieved(at: now))
    }

    /// Accuracy authorization changed: a refusal of temporary full accuracy is forgotten (the next
    /// request may ask again); under reduced accuracy the throttle starts afresh and the remembered
    /// fixes are coarsened, so nothing precise is revealed from them.
    mutating func accuracyChanged() {
        temporaryFullAccuracy = .notAsked
        guard accuracy == .reduced else { return }
        lastCoarseFixAt = nil
        history.coarsen(with: reducedAccuracy)
    }

    /// The authorization request of this not-determined period was answered without a decision, or
    /// cannot be made: the next request asks again. Returns whether access is still not determined
    /// (the requests waiting for it then end).
    mutating func awaitingAuthorizationEnded() -> Bool {
        guard gate == .notDetermined else { return false }
        authorizationRequest = .notMade
        return true
    }

    /// Access changed from `previous`: this period's authorization request is still to be made, and when
    /// access is lost (revoked, or a one-time grant lapsed) the remembered fixes are forgotten, so nothing
    /// precise leaks later.
    mutating func accessChanged(from previous: AuthorizationGate) {
        authorizationRequest = .notMade
        switch gate {
        case .authorized: break
        case .notDetermined: if previous == .authorized { history.removeAll() }
        case .unauthorized: history.removeAll()
        }
    }

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
    /// Where temporary full accuracy stands in this period of reduced accuracy.
    let temporaryFullAccuracy: TemporaryFullAccuracy

    /// Whether temporary full accuracy was refused in this period.
    @inline(__always)
    var fullAccuracyRefused: Bool { temporaryFullAccuracy == .refused }

    /// Whether coarsened fixes can never satisfy a one-shot asking for `wish` now. Under full accuracy (the
    /// common case) the wish's accuracy is not even built.
    @inline(__always)
    func needsFullAccuracy(_ wish: OneShotWish) -> Bool {
        guard let reduced else { return false }
        return reduced.cannotSatisfy(wish.accuracy)
    }

    /// Whether coarsened fixes can never serve a subscription with these options now.
    func needsFullAccuracy(_ options: SubscriptionOptions) -> Bool { reduced.map(options.needsFullAccuracy) ?? false }

    /// Whether a request naming `purposeKey` would wait for temporary full accuracy rather than end.
    func mayWaitForFullAccuracy(purposeKey: String?) -> Bool { purposeKey != nil && !fullAccuracyRefused }
}

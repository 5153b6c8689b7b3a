import LocationEngine

/// What an `approximate` client gets: the engine's reduced-accuracy coarsening (``ReducedAccuracyPolicy``,
/// the one the engine applies under reduced accuracy authorization) on every fix before it is sent, at most
/// one newly measured coarse fix per the policy's interval for the whole server (``CoarseFixGate``), and the
/// engine asked for no more than that client can be given. One for the server: its routes share the gate.
struct ApproximateAnswers: Sendable {
    /// The engine's grid and its least time between coarse updates.
    let policy: ReducedAccuracyPolicy
    /// The coarse fix shown last, which the next answers show until the policy's interval has passed.
    let gate: CoarseFixGate

    init(policy: ReducedAccuracyPolicy = ReducedAccuracyPolicy()) {
        self.policy = policy
        gate = CoarseFixGate(minimumInterval: policy.minimumInterval)
    }

    /// What to ask the engine for when an approximate client asks for `accuracy`: the largest measured error whose
    /// coarse form still meets the request (``ReducedAccuracyPolicy/largestMeasuredError(coarsenedWithin:near:_:)``:
    /// the coarse radius is the error plus the cell's farthest corner, about 2.1 km on the default grid, rounded up
    /// to a step); for a request finer than the finest coarse radius there is (any request finer than the grid),
    /// which no coarse fix meets, the largest measured error whose coarse form has that finest radius, so the
    /// source runs no finer than the best answer needs. A fix is
    /// then answered exactly when its coarse form meets the request (or has that finest radius): whether a request
    /// is answered tells no more of the measured error than the coarse radius does. The cell is the one of the
    /// coarse fix shown last (before any, the equator's: a cell's corner is the same to well under a metre
    /// everywhere but the last few kilometres before the poles).
    func engineAccuracy(for accuracy: LocationAccuracy) -> LocationAccuracy {
        let near = gate.lastShown ?? Location(latitude: 0, longitude: 0, horizontalAccuracy: 0)
        let finest = policy.coarsen(Location(latitude: near.latitude, longitude: near.longitude, horizontalAccuracy: 0)).horizontalAccuracy
        // Never nil: the finest coarse radius is one a fix of no error coarsens to.
        let largest = policy.largestMeasuredError(coarsenedWithin: max(finest, accuracy.horizontalAccuracy), near: near.latitude, near.longitude) ?? 0
        return .custom(metres: largest, maximumAge: accuracy.maximumAge)
    }

    /// The one-shot's result, answered at `now`, as the client may see it: the fix coarsened — or, within the
    /// policy's interval of the coarse fix shown last, that one, as old as it is — the level it achieves
    /// recomputed from the coarse radius and its age, a success that the coarse fix does not meet `asked` with
    /// turned into `accuracy_reduced` (as the engine answers a request finer than reduced accuracy allows: a
    /// maximum age shorter than the interval is such a request), and so is a request finer than the grid that
    /// timed out with a fix (no coarse fix could meet it: the wait ran out for want of the finest coarse radius),
    /// and a reason that described the measured fix describing the coarse one.
    func result(_ result: LocationResult, asked: LocationAccuracy, now: EngineInstant) -> LocationResult {
        guard let location = result.location else { return result }
        let (coarse, age) = gate.show(policy.coarsen(location), age: result.age ?? .zero, now: now)
        var answer = result
        answer.location = coarse
        answer.age = age
        answer.achievedAccuracy = AccuracyLevel.achieved(horizontalAccuracy: coarse.horizontalAccuracy, age: age)
        if result.status == .success, !asked.isSatisfied(horizontalAccuracy: coarse.horizontalAccuracy, age: age) {
            answer.status = .accuracyReduced
        }
        if result.status == .timedOut, policy.cannotSatisfy(asked) {
            answer.status = .accuracyReduced
            answer.reason = nil
            return answer
        }
        // The engine's words name the measured fix's radius (and what the finest source reaches): said again
        // of the coarse fix alone.
        if result.reason?.code == EndingReason.accuracyNotReached(best: coarse, age: age, finestReach: 0).code {
            answer.reason = .accuracyNotReached(best: coarse, age: age, finestReach: 0)
        }
        return answer
    }

    /// What a stream without an accuracy filter asks the engine for: every fix (no finite error or age is too
    /// much, as without a filter), from the source's cheapest mode — a coarse fix needs no more, as the
    /// engine runs the source under reduced accuracy. Without it, the engine would run the source at its best
    /// for a client shown one 3 km cell every ten minutes.
    static let everyFix = LocationAccuracy.custom(metres: .greatestFiniteMagnitude, maximumAge: .seconds(Int64.max))

    /// The subscription's options for the engine: its accuracy filter as ``engineAccuracy(for:)`` (none: ``everyFix``), at
    /// most one update per ``ReducedAccuracyPolicy/minimumInterval`` (the engine's "a few updates an hour"),
    /// and its distances (a distance filter, a significant change) no shorter than the grid: the engine
    /// compares the measured positions, so whether an update comes after a 5 m filter would tell the client
    /// the device moved 5 m within its cell.
    func options(_ options: SubscriptionOptions) -> SubscriptionOptions {
        var options = options
        options.accuracy = options.accuracy.map(engineAccuracy(for:)) ?? Self.everyFix
        options.minimumInterval = max(options.minimumInterval, policy.minimumInterval)
        if options.distanceFilter > 0 { options.distanceFilter = max(options.distanceFilter, policy.gridSpacing) }
        options.significantDistance = max(options.significantDistance, policy.gridSpacing)
        return options
    }

    /// A stream's event, sent at `now`, as the client may see it: a location coarsened (or the coarse fix shown
    /// last, within the policy's interval of it: a stream opened every second would otherwise start with a new
    /// one each time), its level recomputed.
    func event(_ event: SubscriptionEvent, now: EngineInstant) -> SubscriptionEvent {
        guard case .location(let update) = event else { return event }
        let (coarse, age) = gate.show(policy.coarsen(update.location), age: update.age, now: now)
        return .location(LocationUpdate(
            location: coarse, age: age, achievedAccuracy: AccuracyLevel.achieved(horizontalAccuracy: coarse.horizontalAccuracy, age: age)))
    }
}

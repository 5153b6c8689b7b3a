import LocationEngine

/// What an `approximate` client gets: the engine's reduced-accuracy coarsening (``ReducedAccuracyPolicy``,
/// the one the engine applies under reduced accuracy authorization) on every fix before it is sent, and
/// the engine asked for no more than that client can be given.
struct ApproximateAnswers: Sendable {
    /// The engine's grid and its least time between coarse updates.
    let policy: ReducedAccuracyPolicy

    init(policy: ReducedAccuracyPolicy = ReducedAccuracyPolicy()) {
        self.policy = policy
    }

    /// What to ask the engine for when an approximate client asks for `accuracy`: a fix whose coarse
    /// form can still meet the request (the coarse radius grows by up to a grid cell), and no finer than
    /// a third of the grid when the request is finer than the grid (which no coarse fix meets), so the
    /// source runs no finer than the answer needs.
    func engineAccuracy(for accuracy: LocationAccuracy) -> LocationAccuracy {
        let metres = max(policy.gridSpacing / 3, accuracy.horizontalAccuracy - policy.gridSpacing)
        return .custom(metres: metres, maximumAge: accuracy.maximumAge)
    }

    /// The one-shot's result as the client may see it: the fix coarsened, the level it achieves
    /// recomputed from the coarse radius, a success that the coarse fix does not meet `asked` with
    /// turned into `accuracy_reduced` (as the engine answers a request finer than reduced accuracy allows),
    /// and a reason that described the measured fix describing the coarse one.
    func result(_ result: LocationResult, asked: LocationAccuracy) -> LocationResult {
        guard let location = result.location else { return result }
        let coarse = policy.coarsen(location)
        let age = result.age ?? .zero
        var answer = result
        answer.location = coarse
        answer.achievedAccuracy = AccuracyLevel.achieved(horizontalAccuracy: coarse.horizontalAccuracy, age: age)
        if result.status == .success, !asked.isSatisfied(horizontalAccuracy: coarse.horizontalAccuracy, age: age) {
            answer.status = .accuracyReduced
        }
        // The engine's words name the measured fix's radius (and what the finest source reaches): said again
        // of the coarse fix alone.
        if result.reason?.code == EndingReason.accuracyNotReached(best: coarse, age: age, finestReach: 0).code {
            answer.reason = .accuracyNotReached(best: coarse, age: age, finestReach: 0)
        }
        return answer
    }

    /// The subscription's options for the engine: its accuracy filter as ``engineAccuracy(for:)``, at
    /// most one update per ``ReducedAccuracyPolicy/minimumInterval`` (the engine's "a few updates an hour"),
    /// and its distances (a distance filter, a significant change) no shorter than the grid: the engine
    /// compares the measured positions, so whether an update comes after a 5 m filter would tell the client
    /// the device moved 5 m within its cell.
    func options(_ options: SubscriptionOptions) -> SubscriptionOptions {
        var options = options
        options.accuracy = options.accuracy.map(engineAccuracy(for:))
        options.minimumInterval = max(options.minimumInterval, policy.minimumInterval)
        if options.distanceFilter > 0 { options.distanceFilter = max(options.distanceFilter, policy.gridSpacing) }
        options.significantDistance = max(options.significantDistance, policy.gridSpacing)
        return options
    }

    /// A stream's event as the client may see it: a location coarsened, its level recomputed.
    func event(_ event: SubscriptionEvent) -> SubscriptionEvent {
        guard case .location(let update) = event else { return event }
        let coarse = policy.coarsen(update.location)
        return .location(LocationUpdate(
            location: coarse, age: update.age, achievedAccuracy: AccuracyLevel.achieved(horizontalAccuracy: coarse.horizontalAccuracy, age: update.age)))
    }
}

/// What kind of continuous request a subscription is.
public enum SubscriptionKind: Sendable, Hashable {
    /// Every fix that passes the subscription's filters; powers the source as its accuracy needs.
    case standard
    /// Only fixes after the device moved ``SubscriptionOptions/significantDistance`` metres since the
    /// last delivered one; runs the source in its cheapest mode.
    case significantChange
    /// Never powers the source; sees only fixes other requests caused (Android's PRIORITY_PASSIVE).
    case passive
    /// Course over ground from fixes that carry one, delivered as ``HeadingUpdate``s. Ends at once with
    /// ``SubscriptionEnd/headingUnavailable`` when no source of the engine provides a course.
    case heading
}

/// How a continuous request filters and paces its updates (see <doc:Subscriptions>).
public struct SubscriptionOptions: Sendable, Hashable {
    /// The kind of subscription.
    public var kind: SubscriptionKind
    /// Deliver only fixes meeting this accuracy (and recency); `nil` delivers every fix and, for a
    /// standard subscription, asks the source for its best.
    public var accuracy: LocationAccuracy?
    /// Deliver a fix only when it is at least this many metres from the last delivered one (`0`: off).
    public var distanceFilter: Double
    /// Deliver at most one fix per this interval (`.zero`: off).
    public var minimumInterval: Duration
    /// End by itself after this many updates (`nil`: unlimited).
    public var maximumUpdates: Int?
    /// End by itself after this long (`nil`: unlimited).
    public var duration: Duration?
    /// The movement that counts as significant, for ``SubscriptionKind/significantChange``.
    public var significantDistance: Double
    /// A declared temporary-full-accuracy purpose key (``UsageDeclarations/temporaryFullAccuracyPurposes``):
    /// under reduced accuracy, a subscription that needs full accuracy asks for it once with this key
    /// instead of ending with ``SubscriptionEnd/accuracyReduced``.
    public var purposeKey: String?

    /// Creates options. Invalid values (a negative or non-finite `distanceFilter`, a `significantDistance` that
    /// is not positive and finite, a negative `minimumInterval`, `maximumUpdates < 1`, a `duration` that is not
    /// positive) make the subscription end at once with ``SubscriptionEnd/rejected(reason:)``.
    public init(
        kind: SubscriptionKind = .standard,
        accuracy: LocationAccuracy? = nil,
        distanceFilter: Double = 0,
        minimumInterval: Duration = .zero,
        maximumUpdates: Int? = nil,
        duration: Duration? = nil,
        significantDistance: Double = 500,
        purposeKey: String? = nil
    ) {
        self.kind = kind
        self.accuracy = accuracy
        self.distanceFilter = distanceFilter
        self.minimumInterval = minimumInterval
        self.maximumUpdates = maximumUpdates
        self.duration = duration
        self.significantDistance = significantDistance
        self.purposeKey = purposeKey
    }

    /// Why these options are invalid, or `nil` when they are usable.
    public var validationFailure: String? {
        if let accuracy, !accuracy.isValid { return "accuracy must be finite and positive with a non-negative maximum age" }
        if !distanceFilter.isFinite || distanceFilter < 0 { return "distanceFilter must be finite and >= 0" }
        if minimumInterval < .zero { return "minimumInterval must be >= 0" }
        if let maximumUpdates, maximumUpdates < 1 { return "maximumUpdates must be >= 1" }
        if let duration, duration <= .zero { return "duration must be > 0" }
        if !significantDistance.isFinite || significantDistance <= 0 { return "significantDistance must be finite and > 0" }
        return nil
    }

    /// Whether coarsened fixes can never serve this subscription: it filters for finer accuracy than
    /// `policy` leaves, or wants course (which reduced accuracy withholds).
    func needsFullAccuracy(_ policy: ReducedAccuracyPolicy) -> Bool {
        if wantsCourse { return true }
        if let accuracy { return policy.cannotSatisfy(accuracy) }
        return false
    }

    /// Whether this subscription wants the course: among several sources, it is served by one that gives it.
    var wantsCourse: Bool { kind == .heading }

    /// The power this subscription asks of the source, or `nil` when it never powers it.
    var powerDemand: PowerMode? {
        switch kind {
        case .passive: nil
        // The cheapest mode, unless its accuracy filter asks for a finer one: a source run in the cheapest
        // mode that never meets the filter would deliver nothing, and nothing would end the subscription.
        case .significantChange: accuracy?.requiredPowerMode ?? .lowest
        case .standard, .heading: accuracy?.requiredPowerMode ?? .best
        }
    }
}

/// A fix delivered to a subscription.
public struct LocationUpdate: Sendable, Hashable {
    /// The fix.
    public var location: Location
    /// Its age at delivery.
    public var age: Duration
    /// The finest level it meets at delivery, or `nil`.
    public var achievedAccuracy: AccuracyLevel?

    /// Creates an update.
    public init(location: Location, age: Duration, achievedAccuracy: AccuracyLevel?) {
        self.location = location
        self.age = age
        self.achievedAccuracy = achievedAccuracy
    }
}

/// A course update delivered to a heading subscription. A course of exactly 0° (north) is valid.
public struct HeadingUpdate: Sendable, Hashable {
    /// Course over ground, degrees clockwise from true north, in `0..<360`.
    public var course: Double
    /// The fix the course came from.
    public var location: Location

    /// Creates an update.
    public init(course: Double, location: Location) {
        self.course = course
        self.location = location
    }
}

/// Why a subscription ended. Delivered exactly once, unless the subscription was cancelled.
public enum SubscriptionEnd: Sendable, Hashable {
    /// It delivered its ``SubscriptionOptions/maximumUpdates``.
    case maximumUpdatesReached
    /// Its ``SubscriptionOptions/duration`` elapsed.
    case durationElapsed
    /// The caller force-completed it.
    case forceCompleted
    /// The source failed for good.
    case failed(SourceError)
    /// No source of the engine provides a course, so a heading subscription cannot be served.
    case headingUnavailable
    /// Location access is not authorized.
    case unauthorized(AuthorizationFailure)
    /// The subscription needs full accuracy (a finer accuracy filter, or course) and only reduced
    /// accuracy is authorized.
    case accuracyReduced
    /// The application's configuration cannot serve the subscription (see ``ConfigurationError``).
    case misconfigured(ConfigurationError)
    /// The options were invalid; nothing was scheduled.
    case rejected(reason: String)
    /// The engine was shut down.
    case shutDown
}

/// What a subscription's handler receives.
public enum SubscriptionEvent: Sendable, Hashable {
    /// A fix that passed the filters.
    case location(LocationUpdate)
    /// A course, for heading subscriptions.
    case heading(HeadingUpdate)
    /// A transient source error; the subscription keeps running.
    case sourceError(SourceError)
    /// The subscription ended; nothing follows.
    case ended(SubscriptionEnd)
}

/// Why a one-shot request ended. Exactly one of these is delivered per request (none when cancelled).
public enum LocationStatus: Sendable, Hashable, CustomStringConvertible {
    /// A fix satisfying the desired accuracy arrived, or was already cached and recent enough.
    case success
    /// The timeout passed before a satisfying fix arrived. The result still carries the best fix known.
    case timedOut
    /// The caller ended the request early with `forceComplete`; the result carries the best fix known.
    case forceCompleted
    /// The source failed for good (a fatal ``SourceError``).
    case failed(SourceError)
    /// Location access is not authorized: denied, restricted, services disabled, a one-time grant
    /// lapsed, or the authorization prompt was dismissed.
    case unauthorized(AuthorizationFailure)
    /// The request needs finer accuracy than reduced accuracy authorization can give, and temporary
    /// full accuracy was not granted (or not asked for: the request named no purpose key). The result
    /// carries the best coarsened fix known.
    case accuracyReduced
    /// The application's configuration cannot serve the request (no usage declared, undeclared
    /// purpose key); nothing was scheduled.
    case misconfigured(ConfigurationError)
    /// The request's arguments were invalid (a non-finite accuracy, a negative timeout…); nothing was scheduled.
    case rejected(reason: String)
    /// The engine was shut down while the request was pending.
    case shutDown

    /// Whether the request got what it asked for.
    public var isSuccess: Bool { self == .success }

    public var description: String {
        switch self {
        case .success: "success"
        case .timedOut: "timed out"
        case .forceCompleted: "force-completed"
        case .failed(let error): "failed (\(error))"
        case .unauthorized(let failure): "unauthorized (\(failure))"
        case .accuracyReduced: "accuracy reduced (full accuracy not authorized)"
        case .misconfigured(let error): "misconfigured (\(error))"
        case .rejected(let reason): "rejected (\(reason))"
        case .shutDown: "engine shut down"
        }
    }
}

/// Why location access is refused (see <doc:AuthorizationAndPrivacy>).
public enum AuthorizationFailure: Sendable, Hashable, CustomStringConvertible {
    /// The user denied access.
    case denied
    /// Access is restricted by policy and the user cannot change it.
    case restricted
    /// Location services are disabled altogether.
    case servicesDisabled
    /// A one-time ("Allow Once") authorization lapsed when the session of use ended; the state is
    /// back to not determined and the next request asks again.
    case lapsed
    /// The authorization prompt was dismissed without a decision; the state is still not determined
    /// and the next request asks again.
    case undecided

    public var description: String {
        switch self {
        case .denied: "denied"
        case .restricted: "restricted"
        case .servicesDisabled: "location services disabled"
        case .lapsed: "one-time authorization lapsed"
        case .undecided: "authorization prompt dismissed"
        }
    }
}

/// The one result of a one-shot request.
///
/// ``status`` says unambiguously how the request ended; ``location`` is the fix that satisfied it
/// (on success) or the best fix the engine knew when it ended (on every other status), and
/// ``achievedAccuracy`` is the finest level that fix meets *at delivery time*.
public struct LocationResult: Sendable, Hashable, CustomStringConvertible {
    /// The request this result ends (set by the engine at delivery; zero in a scheduler action).
    public var requestID: RequestID
    /// How the request ended.
    public var status: LocationStatus
    /// The satisfying fix on success, otherwise the best fix known at the end (possibly none).
    public var location: Location?
    /// How old ``location`` was when the result was produced.
    public var age: Duration?
    /// The finest ``AccuracyLevel`` that ``location`` meets at delivery time, or `nil`.
    public var achievedAccuracy: AccuracyLevel?
    /// Why the request ended without what it asked for, when it timed out: no fix yet, the source still
    /// acquiring, the source's own error (GeoClue waiting for an agent, gpsd unreachable), or fixes that did
    /// not reach the accuracy. `nil` for every other status (their status says why).
    public var reason: EndingReason?

    /// Creates a result.
    public init(
        status: LocationStatus, location: Location?, age: Duration?, achievedAccuracy: AccuracyLevel?,
        requestID: RequestID = RequestID(rawValue: 0)
    ) {
        self.requestID = requestID
        self.status = status
        self.location = location
        self.age = age
        self.achievedAccuracy = achievedAccuracy
    }

    public var description: String {
        let why = reason.map { " (\($0.message))" } ?? ""
        guard let location else { return "\(status), no fix\(why)" }
        let level = achievedAccuracy.map { "\($0)" } ?? "no level"
        return "\(status), fix ±\(location.horizontalAccuracy) m (\(level))\(why)"
    }
}

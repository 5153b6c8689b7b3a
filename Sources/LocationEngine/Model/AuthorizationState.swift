/// The whole authorization picture, as Core Location describes it (see <doc:AuthorizationAndPrivacy>): the user's
/// decision, whether location services are on, full or reduced accuracy, and whether the grant is
/// one-time ("Allow Once") or its full accuracy temporary.
///
/// The engine publishes every change of this value (``LocationEngine/authorizationUpdates()`` and
/// ``LocationEngineConfiguration/onAuthorizationChange``), like MapLibre's
/// `didChangeLocationManagerAuthorization`.
public struct AuthorizationState: Sendable, Hashable, CustomStringConvertible {
    /// The user's (or the operator's) decision.
    public enum Status: Sendable, Hashable, CustomStringConvertible {
        /// Not asked yet, or a one-time grant lapsed: the next request asks.
        case notDetermined
        /// Refused by policy; the user cannot change it.
        case restricted
        /// The user refused.
        case denied
        /// Authorized while the application is in use.
        case authorizedWhenInUse
        /// Authorized at all times.
        case authorizedAlways

        public var description: String {
            switch self {
            case .notDetermined: "not determined"
            case .restricted: "restricted"
            case .denied: "denied"
            case .authorizedWhenInUse: "when in use"
            case .authorizedAlways: "always"
            }
        }

        /// Whether this is a grant (when in use or always).
        public var isGrant: Bool { self == .authorizedWhenInUse || self == .authorizedAlways }
    }

    /// The decision.
    public var status: Status
    /// Whether location services are enabled at all; when not, every request ends with
    /// ``AuthorizationFailure/servicesDisabled`` whatever ``status`` says.
    public var servicesEnabled: Bool
    /// Full or reduced accuracy. Under reduced accuracy every fix is coarsened before anyone sees it.
    public var accuracy: AccuracyAuthorization
    /// The grant is one-time ("Allow Once", or a location-button grant): it lapses back to
    /// ``Status/notDetermined`` when the session of use ends (``LocationEngine/endSession()``).
    public var isOneTime: Bool
    /// Full accuracy is temporary (granted for a purpose key): it reverts to reduced when the session
    /// of use ends.
    public var isFullAccuracyTemporary: Bool

    /// Creates a state.
    public init(
        status: Status,
        servicesEnabled: Bool = true,
        accuracy: AccuracyAuthorization = .full,
        isOneTime: Bool = false,
        isFullAccuracyTemporary: Bool = false
    ) {
        self.status = status
        self.servicesEnabled = servicesEnabled
        self.accuracy = accuracy
        self.isOneTime = isOneTime
        self.isFullAccuracyTemporary = isFullAccuracyTemporary
    }

    /// Not determined, services on.
    public static let notDetermined = AuthorizationState(status: .notDetermined)
    /// Denied by the user.
    public static let denied = AuthorizationState(status: .denied)
    /// Restricted by policy.
    public static let restricted = AuthorizationState(status: .restricted)
    /// Authorized always with full accuracy: what a Linux operator grants by configuring the engine.
    public static let authorizedAlways = AuthorizationState(status: .authorizedAlways)
    /// Authorized while in use with the given accuracy.
    public static func authorizedWhenInUse(accuracy: AccuracyAuthorization = .full, oneTime: Bool = false) -> AuthorizationState {
        AuthorizationState(status: .authorizedWhenInUse, accuracy: accuracy, isOneTime: oneTime)
    }

    /// Whether fixes may be delivered (authorized and services enabled).
    public var isAuthorized: Bool { gate == .authorized }

    /// What the scheduler works under.
    public var gate: AuthorizationGate {
        if !servicesEnabled { return .unauthorized(.servicesDisabled) }
        switch status {
        case .notDetermined: return .notDetermined
        case .restricted: return .unauthorized(.restricted)
        case .denied: return .unauthorized(.denied)
        case .authorizedWhenInUse, .authorizedAlways: return .authorized
        }
    }

    /// This picture with the user's decision from `answer` (status, accuracy, one-time, temporary full
    /// accuracy), keeping whether services are enabled.
    func withDecision(of answer: AuthorizationState) -> AuthorizationState {
        AuthorizationState(
            status: answer.status, servicesEnabled: servicesEnabled, accuracy: answer.accuracy, isOneTime: answer.isOneTime,
            isFullAccuracyTemporary: answer.isFullAccuracyTemporary)
    }

    /// The picture after the user answered a temporary-full-accuracy prompt: temporary full accuracy
    /// when granted, otherwise unchanged.
    public func afterTemporaryFullAccuracy(granted: Bool) -> AuthorizationState {
        guard granted else { return self }
        var result = self
        result.accuracy = .full
        result.isFullAccuracyTemporary = true
        return result
    }

    /// The picture after the user confirmed the location button: one-time authorization with full
    /// accuracy from not determined; back to not determined from denied; otherwise unchanged.
    public var afterLocationButtonConfirmation: AuthorizationState {
        switch status {
        case .notDetermined:
            AuthorizationState(status: .authorizedWhenInUse, servicesEnabled: servicesEnabled, accuracy: .full, isOneTime: true)
        case .denied:
            AuthorizationState(status: .notDetermined, servicesEnabled: servicesEnabled)
        case .restricted, .authorizedWhenInUse, .authorizedAlways:
            self
        }
    }

    public var description: String {
        var parts = ["\(status)"]
        if !servicesEnabled { parts.append("services disabled") }
        parts.append(accuracy == .full ? (isFullAccuracyTemporary ? "temporary full accuracy" : "full accuracy") : "reduced accuracy")
        if isOneTime { parts.append("one-time") }
        return parts.joined(separator: ", ")
    }
}

/// Whether fixes are delivered as measured or coarsened (Core Location's accuracy authorization).
public enum AccuracyAuthorization: Sendable, Hashable, CustomStringConvertible {
    /// Fixes are delivered as the source measured them.
    case full
    /// Every fix is coarsened (``ReducedAccuracyPolicy``) before any caller sees it.
    case reduced

    public var description: String { self == .full ? "full" : "reduced" }
}

/// The level of authorization an application asks for.
public enum AuthorizationLevel: Sendable, Hashable, CustomStringConvertible {
    /// While the application is in use.
    case whenInUse
    /// At all times.
    case always

    public var description: String { self == .whenInUse ? "when in use" : "always" }
}

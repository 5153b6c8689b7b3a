/// Whether the scheduler may power the source and deliver fixes: the seam the authorization model
/// plugs into (see <doc:AuthorizationAndPrivacy>).
public enum AuthorizationGate: Sendable, Hashable {
    /// Fixes may be delivered.
    case authorized
    /// Not decided yet: requests wait (without powering the source); the first one asks for
    /// authorization once.
    case notDetermined
    /// Refused: requests end at once with ``LocationStatus/unauthorized(_:)``.
    case unauthorized(AuthorizationFailure)
}

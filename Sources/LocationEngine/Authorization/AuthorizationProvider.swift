/// Where the engine's authorization picture comes from, and who asks the user (see <doc:AuthorizationAndPrivacy>).
///
/// The engine reads ``currentState()`` once when it is created, then hands the provider a sink for
/// changes the provider observes on its own (the user revoked access in Settings, services were
/// switched off, an operator edited a file). When requests need something the engine asks through
/// one of the `request…` methods — at most one authorization request per not-determined period,
/// however many requests wait — and the provider answers **once** through the reply it was given,
/// with the state that resulted from the user's choice (an unchanged state means the user dismissed
/// the prompt or refused). Replies and changes may come from any thread, at once or later; a delay
/// can also be given on the engine's clock, which is how ``SimulatedAuthorizationProvider`` scripts
/// answers under a virtual clock.
///
/// The engine itself applies the rules that do not need the user: one-time grants lapse at
/// ``LocationEngine/endSession()``, a confirmed location button grants at once. It tells the provider
/// with ``engineDidChange(_:)`` so that its picture follows.
///
/// Shipped providers: ``StaticAuthorizationProvider`` (what an operator configured, for Linux
/// deployments) and ``SimulatedAuthorizationProvider`` (scripted users, for tests, benchmarks and
/// demos).
///
/// ## A platform provider (the Core Location seam)
///
/// On Apple platforms a provider wraps a `CLLocationManager` (not part of this package):
/// - ``currentState()`` maps `authorizationStatus`, `accuracyAuthorization` and
///   `locationServicesEnabled()`; `isOneTime` is not exposed by Core Location and stays `false`
///   (the system lapses the grant itself and reports `.notDetermined`, which ends pending requests
///   with ``AuthorizationFailure/lapsed``);
/// - ``start(changes:)`` keeps the sink and forwards every `locationManagerDidChangeAuthorization(_:)`;
/// - ``requestAuthorization(_:reply:)`` calls `requestWhenInUseAuthorization()` or
///   `requestAlwaysAuthorization()` and replies from the next authorization callback;
/// - ``requestTemporaryFullAccuracy(_:reply:)`` calls
///   `requestTemporaryFullAccuracyAuthorization(withPurposeKey:completion:)` and replies in the completion;
/// - ``confirmLocationButton(current:reply:)`` is answered by the system's `CLLocationButton` flow
///   (reply with the state the tap produced).
public protocol AuthorizationProvider: Sendable {
    /// The authorization picture now; read once, when the engine is created.
    func currentState() -> AuthorizationState

    /// Called once, when the engine starts (``LocationEngine/run()``, or the first
    /// ``LocationEngine/sync()`` of an engine driven by hand): `changes` receives every change the
    /// provider observes on its own. The default does nothing (a provider whose picture never changes
    /// by itself).
    func start(changes: AuthorizationChangeSink)

    /// Called once, when the engine shuts down, if it was started: stop observing; changes sent after
    /// this are dropped. The default does nothing.
    func stop()

    /// Ask the user for authorization; answer once through `reply`.
    func requestAuthorization(_ prompt: AuthorizationPrompt, reply: AuthorizationReply)

    /// Ask the user for temporary full accuracy for a declared purpose; answer once through `reply`
    /// (accuracy still reduced in the answer means refused).
    func requestTemporaryFullAccuracy(_ prompt: FullAccuracyPrompt, reply: AuthorizationReply)

    /// The user pressed the location button for the first time (or after denying): ask them to
    /// confirm; answer once through `reply` with the resulting state — authorized one-time when
    /// confirmed from not determined, not determined when confirmed from denied, unchanged when not.
    func confirmLocationButton(current: AuthorizationState, reply: AuthorizationReply)

    /// The engine changed the picture itself (a one-time grant lapsed at the end of a session, a
    /// confirmed location button granted). The default does nothing.
    func engineDidChange(_ state: AuthorizationState)
}

extension AuthorizationProvider {
    public func start(changes: AuthorizationChangeSink) {}
    public func stop() {}
    public func engineDidChange(_ state: AuthorizationState) {}
}

/// What the engine asks for when requests wait while authorization is not determined.
public struct AuthorizationPrompt: Sendable, Hashable {
    /// The level asked for (following ``UsageDeclarations/level(preferring:)``).
    public var level: AuthorizationLevel
    /// The declared reason to show.
    public var usageDescription: String
    /// The picture when asking.
    public var current: AuthorizationState
}

/// What the engine asks for when a request needs full accuracy under reduced accuracy.
public struct FullAccuracyPrompt: Sendable, Hashable {
    /// The declared purpose key the request named.
    public var purposeKey: String
    /// The declared reason for it.
    public var purpose: String
    /// The picture when asking.
    public var current: AuthorizationState
}

/// How a provider reports a change of the authorization picture it observed on its own.
public struct AuthorizationChangeSink: Sendable {
    let body: @Sendable (AuthorizationState, Duration) -> Void

    /// Reports `state`, taking effect `delay` later on the engine's clock (at once by default).
    public func callAsFunction(_ state: AuthorizationState, after delay: Duration = .zero) {
        body(state, delay)
    }
}

/// How a provider answers one request of the engine. Only the first answer counts; later ones are
/// ignored (and logged).
public struct AuthorizationReply: Sendable {
    let body: @Sendable (AuthorizationState, Duration) -> Void

    /// Answers with the state the user's choice produced, taking effect `delay` later on the engine's
    /// clock (at once by default).
    public func callAsFunction(_ state: AuthorizationState, after delay: Duration = .zero) {
        body(state, delay)
    }
}

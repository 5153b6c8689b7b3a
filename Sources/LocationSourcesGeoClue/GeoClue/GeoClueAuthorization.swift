import LocationEngine
import NIOConcurrencyHelpers

/// The engine's authorization as GeoClue decides it: give it to the engine
/// (`LocationEngineConfiguration.authorizationProvider`) with the source that reports to it
/// (``GeoClueLocationSource/authorization``).
///
/// GeoClue decides when its client starts: by its configuration (`/etc/geoclue/geoclue.conf`) and the
/// user's agent. Until it refuses, the application counts as authorized when in use with full accuracy;
/// when GeoClue refuses, the engine hears *denied* (its requests end as unauthorized, later ones are refused
/// at once, and the source is stopped). A later start GeoClue accepts — after `updateAuthorization(_:)`
/// on the engine, say — counts as authorized again. The engine never prompts through it: GeoClue's agent
/// is the prompt, and asking again answers with the state as it is.
public final class GeoClueAuthorization: AuthorizationProvider {
    private struct State {
        var current = AuthorizationState.authorizedWhenInUse()
        var changes: AuthorizationChangeSink?
    }

    private let state = NIOLockedValueBox(State())

    public init() {}

    public func currentState() -> AuthorizationState { state.withLockedValue { $0.current } }

    public func start(changes: AuthorizationChangeSink) { state.withLockedValue { $0.changes = changes } }

    public func stop() { state.withLockedValue { $0.changes = nil } }

    public func requestAuthorization(_ prompt: AuthorizationPrompt, reply: AuthorizationReply) { reply(currentState()) }

    public func requestTemporaryFullAccuracy(_ prompt: FullAccuracyPrompt, reply: AuthorizationReply) { reply(currentState()) }

    public func confirmLocationButton(current: AuthorizationState, reply: AuthorizationReply) { reply(currentState()) }

    public func engineDidChange(_ state: AuthorizationState) { self.state.withLockedValue { $0.current = state } }

    /// GeoClue refused: the engine hears *denied*. Returns whether an engine was listening.
    func deny() -> Bool { change(to: .denied) }

    /// GeoClue accepted a start: the engine hears *authorized* if it was denied.
    func granted() {
        guard state.withLockedValue({ $0.current.status == .denied }) else { return }
        _ = change(to: .authorizedWhenInUse())
    }

    private func change(to next: AuthorizationState) -> Bool {
        let changes = state.withLockedValue { state -> AuthorizationChangeSink? in
            state.current = next
            return state.changes
        }
        changes?(next)
        return changes != nil
    }
}

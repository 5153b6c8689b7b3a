extension LocationEngine {
    // MARK: Public API

    /// The authorization picture the engine works under, as of what it has processed (``sync()``
    /// first to include changes already due). Reading it changes nothing.
    public var authorizationState: AuthorizationState {
        inspect { $0.authorizationState }
    }

    /// Every change of the authorization picture, starting with the current one (MapLibre's
    /// `didChangeLocationManagerAuthorization`). Keeps the newest 32 for a slow consumer; finishes at
    /// shutdown. Stopping the iteration unregisters it.
    public nonisolated func authorizationUpdates() -> AsyncStream<AuthorizationState> {
        let (stream, continuation) = AsyncStream.makeStream(of: AuthorizationState.self, bufferingPolicy: .bufferingNewest(32))
        let id = submit { .observeAuthorization($0, continuation) }
        // Held as the other sequences hold it: released, the engine would never finish the stream.
        continuation.onTermination = { _ in self.submit(.stopObservingAuthorization(id)) }
        return stream
    }

    /// Reports a new authorization picture (for hosting code that observes the platform itself rather
    /// than through an ``AuthorizationProvider``). Pending requests react as <doc:AuthorizationAndPrivacy> describes.
    public nonisolated func updateAuthorization(_ state: AuthorizationState) {
        submitAuthorization(state, after: .zero, prompt: nil)
    }

    /// The application's session of use ended (it went to the background, the user logged out): a
    /// one-time grant lapses back to not determined — pending requests end with
    /// ``AuthorizationFailure/lapsed`` and the next request asks again — and temporary full accuracy
    /// reverts to reduced. A refusal of temporary full accuracy no longer stands.
    public nonisolated func endSession() {
        submit(.endSession)
    }

    /// The user pressed a location button (a user gesture, like `CLLocationButton`):
    /// - not determined: the first time, the provider asks the user to confirm and a confirmation
    ///   grants one-time authorization with full accuracy; after a confirmation, later presses grant at
    ///   once without asking;
    /// - denied: the provider asks whether to go back to not determined (so the next request may ask);
    /// - already authorized: nothing changes (requests proceed as usual);
    /// - restricted or services disabled: nothing can change (logged).
    public nonisolated func locationButtonPressed() {
        submit(.locationButton)
    }

    // MARK: Submission (any thread)

    nonisolated func submitAuthorization(_ state: AuthorizationState, after delay: Duration, prompt: UInt64?) {
        submit(.authorization(state, due: now() + max(.zero, delay), prompt: prompt))
    }
}

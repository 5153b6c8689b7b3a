import NIOConcurrencyHelpers

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
        continuation.onTermination = { [weak self] _ in self?.submit(.stopObservingAuthorization(id)) }
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

    // MARK: Executing the core's authorization actions (isolated)

    /// The picture changed: buffered `updates()` events are coarsened or dropped as the new access
    /// demands, then observers hear.
    func authorizationChanged(from previous: AuthorizationState, to state: AuthorizationState) {
        if previous.gate == .authorized && state.gate != .authorized { privacy.noteRevocation() }
        if previous.accuracy == .full && state.accuracy == .reduced { privacy.noteReduction() }
        logger.info("authorization changed", metadata: ["authorization": "\(state)"])
        for observer in authorizationObservers.values { observer.yield(state) }
        configuration.onAuthorizationChange?(state)
    }

    func askForAuthorization(_ prompt: AuthorizationPrompt, token: UInt64) {
        logger.debug("asking for authorization", metadata: ["level": "\(prompt.level)"])
        metrics.prompted(.authorization)
        authorizationProvider.requestAuthorization(prompt, reply: makeReply(token))
    }

    func askForTemporaryFullAccuracy(_ prompt: FullAccuracyPrompt, token: UInt64) {
        logger.debug("asking for temporary full accuracy", metadata: ["purpose": "\(prompt.purposeKey)"])
        metrics.prompted(.temporaryFullAccuracy)
        authorizationProvider.requestTemporaryFullAccuracy(prompt, reply: makeReply(token))
    }

    func askToConfirmLocationButton(current: AuthorizationState, token: UInt64) {
        metrics.prompted(.locationButton)
        authorizationProvider.confirmLocationButton(current: current, reply: makeReply(token))
    }

    /// The reply to the prompt the core opened as `token`; it forwards only its first answer.
    func makeReply(_ token: UInt64) -> AuthorizationReply {
        let answered = NIOLockedValueBox(false)
        return AuthorizationReply { [weak self] state, delay in
            let first = answered.withLockedValue { answered in
                defer { answered = true }
                return !answered
            }
            if first { self?.submitAuthorization(state, after: delay, prompt: token) }
        }
    }
}

/// Where an engine's authorization provider stands.
enum ProviderLifetime {
    /// Not started: the engine has not run yet.
    case notStarted
    /// Started: its changes reach the engine.
    case started
    /// Stopped, at the engine's shutdown.
    case stopped
}

extension LocationEngine {
    /// Starts the authorization provider when the engine first runs (or is first synced by hand):
    /// nothing of the engine's is started before that.
    func startAuthorizationProviderIfNeeded() {
        guard case .notStarted = providerLifetime else { return }
        providerLifetime = .started
        authorizationProvider.start(changes: AuthorizationChangeSink { [weak self] state, delay in
            self?.submitAuthorization(state, after: delay, prompt: nil)
        })
    }

    /// Stops the authorization provider at shutdown, if it was started.
    func stopAuthorizationProvider() {
        if case .started = providerLifetime { authorizationProvider.stop() }
        providerLifetime = .stopped
    }
}

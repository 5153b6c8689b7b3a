import Logging
import NIOConcurrencyHelpers

/// The shell's side of authorization: the core holds the picture, the prompts and the scheduled changes;
/// this talks to the ``AuthorizationProvider`` (started with the engine's lifetime, stopped at its
/// shutdown), asks it what the core decided to ask, and tells the observers of the picture.
struct AuthorizationBridge {
    /// Where the provider stands in the engine's lifetime.
    private enum Lifetime {
        /// Not started: the engine has not run yet.
        case notStarted
        /// Started: its changes reach the engine.
        case started
        /// Stopped, at the engine's shutdown.
        case stopped
    }

    /// Hands a picture to the engine, effective after a delay, answering a prompt's token or none.
    typealias Submit = @Sendable (AuthorizationState, Duration, UInt64?) -> Void

    let provider: any AuthorizationProvider
    private var lifetime = Lifetime.notStarted
    private var observers: [RequestID: AsyncStream<AuthorizationState>.Continuation] = [:]
    private let submit: Submit
    private let privacy: PrivacyEpochs
    private let onChange: (@Sendable (AuthorizationState) -> Void)?
    private let metrics: EngineMetrics
    private let logger: Logger

    init(
        provider: any AuthorizationProvider, submit: @escaping Submit, privacy: PrivacyEpochs,
        onChange: (@Sendable (AuthorizationState) -> Void)?, metrics: EngineMetrics, logger: Logger
    ) {
        self.provider = provider
        self.submit = submit
        self.privacy = privacy
        self.onChange = onChange
        self.metrics = metrics
        self.logger = logger
    }

    // MARK: The provider's lifetime

    /// Starts the provider when the engine first runs (or is first synced by hand): nothing of the
    /// engine's is started before that.
    mutating func startIfNeeded() {
        guard case .notStarted = lifetime else { return }
        lifetime = .started
        provider.start(changes: AuthorizationChangeSink { [submit] state, delay in submit(state, delay, nil) })
    }

    /// Stops the provider at shutdown, if it was started, and finishes every observer.
    mutating func shutDown() {
        if case .started = lifetime { provider.stop() }
        lifetime = .stopped
        for observer in observers.values { observer.finish() }
        observers.removeAll()
    }

    // MARK: Observers

    /// Registers an observer, which hears `current` at once; after shutdown it is finished instead.
    mutating func observe(_ id: RequestID, _ observer: AsyncStream<AuthorizationState>.Continuation, current: AuthorizationState) {
        observer.yield(current)
        if case .stopped = lifetime {
            observer.finish()
        } else {
            observers[id] = observer
        }
    }

    mutating func stopObserving(_ id: RequestID) { observers[id] = nil }

    /// The picture changed: buffered `updates()` events are coarsened or dropped as the new access
    /// demands, then observers hear.
    func changed(from previous: AuthorizationState, to state: AuthorizationState) {
        if previous.gate == .authorized && state.gate != .authorized { privacy.noteRevocation() }
        if previous.accuracy == .full && state.accuracy == .reduced { privacy.noteReduction() }
        logger.info("authorization changed", metadata: ["authorization": "\(state)"])
        for observer in observers.values { observer.yield(state) }
        onChange?(state)
    }

    // MARK: Prompts the core decided
    //
    // Only a started provider is asked. The one way the core decides a prompt before then is an engine shut
    // down before it ran, working through what was queued before the shutdown that ends it all: a dialog
    // shown then would be one nothing answers, from a provider never started.

    func askForAuthorization(_ prompt: AuthorizationPrompt, token: UInt64) {
        guard case .started = lifetime else { return }
        logger.debug("asking for authorization", metadata: ["level": "\(prompt.level)"])
        metrics.prompted(.authorization)
        provider.requestAuthorization(prompt, reply: reply(token))
    }

    func askForTemporaryFullAccuracy(_ prompt: FullAccuracyPrompt, token: UInt64) {
        guard case .started = lifetime else { return }
        logger.debug("asking for temporary full accuracy", metadata: ["purpose": "\(prompt.purposeKey)"])
        metrics.prompted(.temporaryFullAccuracy)
        provider.requestTemporaryFullAccuracy(prompt, reply: reply(token))
    }

    func askToConfirmLocationButton(current: AuthorizationState, token: UInt64) {
        guard case .started = lifetime else { return }
        metrics.prompted(.locationButton)
        provider.confirmLocationButton(current: current, reply: reply(token))
    }

    /// The reply to the prompt the core opened as `token`; it forwards only its first answer.
    private func reply(_ token: UInt64) -> AuthorizationReply {
        let answered = NIOLockedValueBox(false)
        return AuthorizationReply { [submit] state, delay in
            let first = answered.withLockedValue { answered in
                defer { answered = true }
                return !answered
            }
            if first { submit(state, delay, token) }
        }
    }
}

import NIOConcurrencyHelpers

/// A scripted user, for tests, benchmarks and demos: answers each prompt with the next scripted choice
/// after a scripted delay on the engine's clock, and changes the picture on its own at scripted times
/// (revocations, services switched off). It records every prompt, so a test can count them.
///
/// Answers are used in order; when a list runs out its last answer repeats; an empty list means
/// the user never answers (requests then wait until their timeouts, as on a real device).
public final class SimulatedAuthorizationProvider: AuthorizationProvider {
    /// A user's answer to an authorization prompt.
    public enum Answer: Sendable, Hashable {
        /// "Allow Once": when in use, lapsing at the end of the session.
        case allowOnce(precise: Bool = true)
        /// "Allow While Using App".
        case allowWhileUsing(precise: Bool = true)
        /// Always (when the prompt asked for always; otherwise when in use).
        case allowAlways(precise: Bool = true)
        /// "Don't Allow".
        case deny
        /// The prompt was dismissed without a choice.
        case dismiss
    }

    /// A value the script produces after a delay on the engine's clock.
    public struct Scripted<Value: Sendable & Hashable>: Sendable, Hashable {
        /// The value.
        public var value: Value
        /// The delay: after the prompt for answers; for changes, after the provider is started (the engine's
        /// first `run()` or `sync()`).
        public var after: Duration

        /// Creates a scripted value.
        public init(_ value: Value, after: Duration = .zero) {
            self.value = value
            self.after = after
        }
    }

    /// What the engine asked.
    public enum Prompt: Sendable, Hashable {
        /// An authorization prompt for this level.
        case authorization(AuthorizationLevel)
        /// A temporary-full-accuracy prompt for this purpose key.
        case temporaryFullAccuracy(purposeKey: String)
        /// A location-button confirmation.
        case locationButton
    }

    /// The whole script.
    public struct Script: Sendable {
        /// The picture at the start.
        public var initial: AuthorizationState
        /// Answers to authorization prompts.
        public var authorizationAnswers: [Scripted<Answer>]
        /// Answers to temporary-full-accuracy prompts (`true`: granted).
        public var fullAccuracyAnswers: [Scripted<Bool>]
        /// Answers to location-button confirmations (`true`: confirmed).
        public var locationButtonAnswers: [Scripted<Bool>]
        /// Changes the user makes on their own, at times after the provider is started (the engine's first
        /// `run()` or `sync()`).
        public var changes: [Scripted<AuthorizationState>]

        /// Creates a script.
        public init(
            initial: AuthorizationState = .notDetermined,
            authorizationAnswers: [Scripted<Answer>] = [],
            fullAccuracyAnswers: [Scripted<Bool>] = [],
            locationButtonAnswers: [Scripted<Bool>] = [],
            changes: [Scripted<AuthorizationState>] = []
        ) {
            self.initial = initial
            self.authorizationAnswers = authorizationAnswers
            self.fullAccuracyAnswers = fullAccuracyAnswers
            self.locationButtonAnswers = locationButtonAnswers
            self.changes = changes
        }
    }

    private struct State {
        var prompts: [Prompt] = []
        var engineChanges: [AuthorizationState] = []
        var authorizationAnswered = 0
        var fullAccuracyAnswered = 0
        var locationButtonAnswered = 0
    }

    let script: Script
    private let state = NIOLockedValueBox(State())

    /// Creates a provider that plays `script`.
    public init(_ script: Script) {
        self.script = script
    }

    /// Every prompt the engine made, in order.
    public var prompts: [Prompt] { state.withLockedValue { $0.prompts } }

    /// Every change the engine made on its own (lapses, location-button grants), in order.
    public var engineChanges: [AuthorizationState] { state.withLockedValue { $0.engineChanges } }

    public func currentState() -> AuthorizationState { script.initial }

    public func start(changes: AuthorizationChangeSink) {
        for change in script.changes { changes(change.value, after: change.after) }
    }

    public func requestAuthorization(_ prompt: AuthorizationPrompt, reply: AuthorizationReply) {
        guard let answer = next(.authorization(prompt.level), from: script.authorizationAnswers, counter: \.authorizationAnswered) else { return }
        let decision: AuthorizationState =
            switch answer.value {
            case .allowOnce(let precise): .authorizedWhenInUse(accuracy: precise ? .full : .reduced, oneTime: true)
            case .allowWhileUsing(let precise): .authorizedWhenInUse(accuracy: precise ? .full : .reduced)
            case .allowAlways(let precise):
                AuthorizationState(status: prompt.level == .always ? .authorizedAlways : .authorizedWhenInUse, accuracy: precise ? .full : .reduced)
            case .deny: .denied
            case .dismiss: prompt.current
            }
        reply(prompt.current.withDecision(of: decision), after: answer.after)
    }

    public func requestTemporaryFullAccuracy(_ prompt: FullAccuracyPrompt, reply: AuthorizationReply) {
        guard let answer = next(.temporaryFullAccuracy(purposeKey: prompt.purposeKey), from: script.fullAccuracyAnswers, counter: \.fullAccuracyAnswered)
        else { return }
        reply(prompt.current.afterTemporaryFullAccuracy(granted: answer.value), after: answer.after)
    }

    public func confirmLocationButton(current: AuthorizationState, reply: AuthorizationReply) {
        guard let answer = next(.locationButton, from: script.locationButtonAnswers, counter: \.locationButtonAnswered) else { return }
        reply(answer.value ? current.afterLocationButtonConfirmation : current, after: answer.after)
    }

    public func engineDidChange(_ state: AuthorizationState) {
        self.state.withLockedValue { $0.engineChanges.append(state) }
    }

    /// Records `prompt` and picks the next answer (the last one repeats; none when the list is empty).
    private func next<Value>(_ prompt: Prompt, from answers: [Scripted<Value>], counter: WritableKeyPath<State, Int>) -> Scripted<Value>? {
        state.withLockedValue { state in
            state.prompts.append(prompt)
            guard !answers.isEmpty else { return nil }
            let index = min(state[keyPath: counter], answers.count - 1)
            state[keyPath: counter] += 1
            return answers[index]
        }
    }
}

import HeapModule

/// Which of the engine's prompts an answer is for.
enum PromptKind: Sendable, Hashable {
    case authorization
    case temporaryFullAccuracy
    /// A location-button confirmation, asked while the status was this.
    case locationButton(from: AuthorizationState.Status)

    var isLocationButton: Bool {
        if case .locationButton = self { return true }
        return false
    }
}

/// An authorization change waiting for its instant. Ordered by (due, sequence), so that changes due
/// at the same instant apply in the order they were made (swift-nio's timer order).
struct ScheduledAuthorizationChange: Comparable, Sendable {
    var due: EngineInstant
    var sequence: UInt64
    var state: AuthorizationState
    /// The prompt this answers, or `nil` for a change the provider observed on its own.
    var prompt: UInt64?

    static func < (lhs: Self, rhs: Self) -> Bool { (lhs.due, lhs.sequence) < (rhs.due, rhs.sequence) }
    static func == (lhs: Self, rhs: Self) -> Bool { lhs.due == rhs.due && lhs.sequence == rhs.sequence }
}

/// The authorization half of the core's timeline: the whole picture (status, accuracy, one-time,
/// services), the prompts still open, and the changes scheduled for later instants.
///
/// The scheduled changes wait in a heap of their own, ordered by (due, sequence) so that changes due at
/// the same instant apply in the order they were scheduled; the earliest is authorization's alarm on
/// the core's ``Timeline``.
struct AuthorizationTimeline: Sendable {
    var picture: AuthorizationState
    /// Open prompts by token; an answer counts only while its prompt is open.
    var openPrompts: [UInt64: PromptKind] = [:]
    var lastPromptToken: UInt64 = 0
    /// A location button was confirmed from not determined once: later presses grant without asking.
    var locationButtonConfirmed = false
    var scheduled = Heap<ScheduledAuthorizationChange>()
    var lastSequence: UInt64 = 0

    init(picture: AuthorizationState) {
        self.picture = picture
    }

    /// When the next scheduled change is due.
    var nextDue: EngineInstant? { scheduled.min?.due }

    mutating func schedule(_ state: AuthorizationState, due: EngineInstant, prompt: UInt64?) {
        lastSequence &+= 1
        scheduled.insert(ScheduledAuthorizationChange(due: due, sequence: lastSequence, state: state, prompt: prompt))
    }

    /// Takes the earliest change if it is due by `now`.
    mutating func popDue(upTo now: EngineInstant) -> ScheduledAuthorizationChange? {
        guard let next = scheduled.min, next.due <= now else { return nil }
        return scheduled.removeMin()
    }

    /// Opens a prompt; its token identifies the answer.
    mutating func open(_ kind: PromptKind) -> UInt64 {
        lastPromptToken &+= 1
        openPrompts[lastPromptToken] = kind
        return lastPromptToken
    }

    func isOpen(_ kind: PromptKind) -> Bool { openPrompts.values.contains(kind) }

    /// Forgets every prompt and scheduled change (the engine shut down).
    mutating func close() {
        openPrompts.removeAll()
        scheduled = Heap()
    }
}

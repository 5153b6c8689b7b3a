/// Where its owner is in carrying out a ``SchedulerStateMachine``'s effects, when handlers may cause
/// more effects on the way: those go first, then the walk resumes at the action and recipient where it
/// was interrupted.
///
/// Interruptions nest on an explicit stack rather than through recursion, so a chain of handlers that
/// each withdraw the next request never grows the call stack, and a finished frame is not kept under the
/// next. The first action is moved out of the walk (the ones after it are copied, a retain each), and a
/// walk that is never interrupted allocates nothing.
///
/// ```swift
/// var walk = EffectsWalk(machine.receiveFix(fix, age: .zero, now: now))
/// while let action = walk.nextAction() {
///     switch action {
///     case .completeOneShots(let recipients, let result):
///         walk.deliver(action, to: recipients,
///             overtaken: { machine.hasOvertaken ? machine.reached(oneShot: $0, receiving: result) : nil },
///             hand: { recipient in
///                 recipient.handler(result)
///                 // A handler withdrew a request: decided now, its effects carried out first.
///                 return withdrawalsMadeByHandlers()
///             })
///     default: carryOut(action)
///     }
/// }
/// ```
public struct EffectsWalk<OneShotHandler, SubscriptionHandler, MonitorHandler> {
    /// The effects type walked.
    public typealias Effects = SchedulerEffects<OneShotHandler, SubscriptionHandler, MonitorHandler>
    /// The action type walked.
    public typealias Action = SchedulerAction<OneShotHandler, SubscriptionHandler, MonitorHandler>

    /// One set of effects being carried out: the actions not taken yet and, for a delivery that was
    /// interrupted, the recipient it resumes at.
    @usableFromInline struct Frame {
        /// The actions; the first is moved out when taken.
        @usableFromInline var effects: Effects
        /// The next action to take from the ones after the first.
        @usableFromInline var nextInRest = 0
        /// Where the delivery in the first place resumes, after an interruption.
        @usableFromInline var resumeAt = 0

        @inlinable init(_ effects: __owned Effects) { self.effects = effects }

        /// Whether every action has been taken.
        @inlinable var isDone: Bool { effects.first == nil && nextInRest >= (effects.rest?.count ?? 0) }
    }

    /// The effects being carried out now.
    @usableFromInline var current: Frame
    /// Effects interrupted by later ones, innermost last (`nil` until the first interruption).
    @usableFromInline var interrupted: [Frame]?
    /// Where the action last taken starts handing out recipients.
    @usableFromInline var position = 0

    /// Starts carrying out `effects`.
    @inlinable public init(_ effects: __owned Effects) { current = Frame(effects) }

    /// Takes the next action, or `nil` when everything has been carried out. After an interruption's
    /// effects, the interrupted delivery comes again (``resumePosition()`` says where).
    /// - Complexity: O(1), amortised over the interruptions.
    @inlinable public mutating func nextAction() -> Action? {
        while true {
            if let action = current.effects.first.take() {
                position = current.resumeAt
                current.resumeAt = 0
                return action
            }
            if let rest = current.effects.rest, current.nextInRest < rest.count {
                defer { current.nextInRest &+= 1 }
                position = 0
                return rest[current.nextInRest]
            }
            guard let resumed = interrupted?.popLast() else { return nil }
            current = resumed
        }
    }

    /// The recipient the delivery just taken starts at: 0, or where it was interrupted.
    @inlinable public func resumePosition() -> Int { position }

    /// Hands `delivery` — the action taken last — to its `recipients`, from ``resumePosition()`` on, and
    /// returns how many were handed it. `hand` runs a recipient's handler and returns what that decided
    /// mid-delivery (withdrawals the handler made, time that fell due), if anything: then the delivery
    /// stops there, those effects go first, and it resumes at the next recipient. While `overtaken`
    /// has an answer for a recipient — the owner's machine had an event mid-delivery — that answer
    /// takes the recipient's place: nothing for a skip, the action it names instead.
    /// - Complexity: O(r) for the r recipients handed out.
    @discardableResult
    @inlinable public mutating func deliver<Handler, Recipients: RandomAccessCollection<Recipient<Handler>>>(
        _ delivery: Action, to recipients: Recipients,
        overtaken: (Recipient<Handler>) -> Reaching<OneShotHandler, SubscriptionHandler, MonitorHandler>?,
        hand: (Recipient<Handler>) -> Effects?
    ) -> Int where Recipients.Index == Int {
        var delivered = 0
        var position = self.position
        while position < recipients.endIndex {
            let recipient = recipients[position]
            position &+= 1
            switch overtaken(recipient) {
            case nil, .asDecided?: break
            case .skip?: continue
            case .instead(let action)?:
                interrupt(with: Effects(action), resuming: delivery, at: position, of: recipients.endIndex)
                return delivered
            }
            let interruption = hand(recipient)
            delivered &+= 1
            if let interruption {
                interrupt(with: interruption, resuming: delivery, at: position, of: recipients.endIndex)
                return delivered
            }
        }
        return delivered
    }

    /// Interrupts the delivery at `position` of `count` recipients: it resumes after `effects` unless
    /// nothing of it is left (a delivery kept to resume at its end would stay on the stack under every
    /// later interruption of a chain).
    @inlinable mutating func interrupt(with effects: __owned Effects, resuming delivery: Action, at position: Int, of count: Int) {
        if position < count {
            interrupt(with: effects, resuming: delivery, at: position)
        } else {
            interrupt(with: effects)
        }
    }

    /// Carries `effects` out before the rest of what is in progress; an empty set changes nothing.
    /// Call it after a handler, then take the next action.
    /// - Complexity: O(1) amortised.
    @inlinable public mutating func interrupt(with effects: __owned Effects) {
        guard !effects.isEmpty else { return }
        suspend(for: effects)
    }

    /// Carries `effects` out first, then `delivery` — the action taken last — again from recipient
    /// `position` on (``resumePosition()``). Not public: an owner interrupts a delivery through
    /// ``deliver(_:to:overtaken:hand:)``, which never keeps one with no recipient left on the stack.
    /// - Complexity: O(1) amortised.
    @usableFromInline mutating func interrupt(with effects: __owned Effects, resuming delivery: Action, at position: Int) {
        current.effects.first = delivery
        current.resumeAt = position
        suspend(for: effects)
    }

    /// Sets what is in progress aside, under the interruptions before it, and starts on `effects`. A
    /// frame with nothing left is dropped rather than kept: a chain of handlers that each cause the
    /// next interruption keeps the stack as deep as the deliveries still to resume, not the chain.
    @inlinable mutating func suspend(for effects: __owned Effects) {
        if !current.isDone {
            if interrupted == nil { interrupted = [current] } else { interrupted!.append(current) }
        }
        current = Frame(effects)
    }

    /// How many interrupted frames wait to be resumed.
    @inlinable public var depth: Int { interrupted?.count ?? 0 }
}

extension EffectsWalk: Sendable where OneShotHandler: Sendable, SubscriptionHandler: Sendable, MonitorHandler: Sendable {}
extension EffectsWalk.Frame: Sendable where OneShotHandler: Sendable, SubscriptionHandler: Sendable, MonitorHandler: Sendable {}

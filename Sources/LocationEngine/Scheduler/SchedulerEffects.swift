/// What one event of a ``SchedulerStateMachine`` decided, in the order it must be carried out:
/// source commands, prompts, and deliveries with their recipients. Every request whose ending is
/// among them has already left the machine's tables, and is counted in its statistics.
///
/// The source commands come first, ahead of everything else the event decided, though the event's settle
/// step decides them last: a handler of one of its deliveries may withdraw a request, and the commands of
/// that withdrawal, decided from the state this event left, must reach the sources after this event's
/// (a source stopped by the withdrawal and then started, or given a mode, by the event before it would run
/// with nothing asking for it).
///
/// Carry the actions out in order (``EffectsWalk`` does the bookkeeping when handlers may withdraw
/// requests mid-delivery). An event that decides nothing returns an empty value, and one that decides
/// a single action keeps it inline: neither allocates.
///
/// Not a `Sequence`: an iterator over an enum payload costs an allocation per walk; read it by index.
public struct SchedulerEffects<OneShotHandler, SubscriptionHandler, MonitorHandler> {
    /// The action type carried.
    public typealias Action = SchedulerAction<OneShotHandler, SubscriptionHandler, MonitorHandler>

    /// The first action, kept inline.
    @usableFromInline var first: Action?
    /// The actions after the first, if any (`nil` rather than empty: nothing to release).
    @usableFromInline var rest: [Action]?
    /// How many actions at the front are source commands.
    @usableFromInline var leadingCommands = 0

    /// Nothing decided.
    @inlinable public init() {}

    /// One action.
    @inlinable public init(_ action: Action) { first = action }

    /// How many actions there are.
    /// - Complexity: O(1)
    @inlinable public var count: Int { first == nil ? 0 : 1 + (rest?.count ?? 0) }

    /// Whether nothing was decided.
    /// - Complexity: O(1)
    @inlinable public var isEmpty: Bool { first == nil }

    /// The action at `index` (`0 ..< count`).
    /// - Complexity: O(1)
    @inlinable public subscript(index: Int) -> Action {
        index == 0 ? first! : rest![index - 1]
    }

    /// Every action, in order, as an array (for tests and logs; the owner reads by index).
    /// - Complexity: O(n)
    public var actions: [Action] { (0..<count).map { self[$0] } }

    /// Appends an action decided after the others.
    /// - Complexity: amortised O(1)
    @inline(__always)
    mutating func append(_ action: Action) {
        if first == nil {
            first = action
        } else if rest == nil {
            rest = [action]
        } else {
            rest!.append(action)
        }
    }

    /// Adds a source command after the source commands already decided and ahead of every other action.
    /// - Complexity: O(1) amortised when the commands are all there is, else O(n) for the n other actions.
    mutating func appendCommand(_ action: Action) {
        defer { leadingCommands += 1 }
        guard leadingCommands < count else { return append(action) }
        if leadingCommands == 0 {
            rest = [first!] + (rest ?? [])
            first = action
        } else {
            rest!.insert(action, at: leadingCommands - 1)
        }
    }

    /// Adds `other`'s actions, decided after these: its source commands after these ones (ahead of every other
    /// action), the rest after these.
    /// - Complexity: O(m) for m actions of `other`, plus O(n) for these n when `other` commands a source.
    mutating func append(contentsOf other: SchedulerEffects) {
        for index in 0..<other.count {
            if index < other.leadingCommands { appendCommand(other[index]) } else { append(other[index]) }
        }
    }
}

extension SchedulerEffects: Sendable where OneShotHandler: Sendable, SubscriptionHandler: Sendable, MonitorHandler: Sendable {}

/// When an event reaches a ``SchedulerStateMachine``: between two events (everything decided before
/// has been carried out), or while the effects of an earlier event are still being carried out — a
/// handler withdrew a request, or its owner lets time pass between two handlers of a long delivery.
///
/// Only ``SchedulerStateMachine/withdraw(_:_:now:at:)`` and ``SchedulerStateMachine/advanceTime(now:at:)``
/// may come mid-delivery. Every other event is between events by definition: it forgets what was kept for
/// recipients still ahead, so an owner queues such events (a submission, a fix) until the effects in
/// progress are carried out, as the engine does.
public enum Moment: Sendable, Hashable {
    /// Everything decided before has been carried out.
    case betweenEvents
    /// Recipients of earlier effects may still be ahead of the owner: a request whose ending was
    /// decided but not carried out yet is *overtaken*: while ``SchedulerStateMachine/hasOvertaken`` says
    /// so, the owner asks ``SchedulerStateMachine/reached(oneShot:receiving:)`` (or the subscription's or
    /// monitor's counterpart) before it delivers to a recipient.
    case midDelivery
}

/// What the owner does with a recipient an event decided mid-delivery may have overtaken.
public enum Reaching<OneShotHandler, SubscriptionHandler, MonitorHandler> {
    /// Deliver what was decided.
    case asDecided
    /// Deliver nothing to it: the subscription or monitor ended after the update was decided.
    case skip
    /// Carry this out instead: a withdrawal reached the request before its ending was carried out.
    case instead(SchedulerAction<OneShotHandler, SubscriptionHandler, MonitorHandler>)
}

extension Reaching: Sendable where OneShotHandler: Sendable, SubscriptionHandler: Sendable, MonitorHandler: Sendable {}

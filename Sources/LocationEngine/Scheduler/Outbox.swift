import DequeModule

/// Which outcome counter a one-shot adds to when it is handed out.
enum OneShotTally: UInt8, Sendable {
    case succeeded, timedOut, forceCompleted, failed
}

/// What kind of event a subscription group carries, for the counters.
enum SubscriberTally: UInt8, Sendable {
    /// A location or heading update.
    case update
    /// A transient source error.
    case notice
    /// The subscriptions' last event: they have ended.
    case end
}

/// What the core has decided and its owner has not carried out yet, in order: plain actions, and
/// groups of requests that share one delivery. A group is handed out a recipient at a time
/// (``SchedulerStateMachine/nextOneShot()``), and a large one a slice at a time: after each slice it
/// lets go first what was decided meanwhile — timeouts that fell due during a long delivery, handed to
/// the core between two handlers — and then goes on where it stopped, ahead of everything that was
/// decided with it or before.
///
/// Hand-written rather than a plain `Deque<Action>` because a group is consumed in place, one
/// recipient at a time, without copying its recipients when a slice ends.
struct Outbox<OneShotHandler, SubscriptionHandler> {
    typealias Action = SchedulerAction<OneShotHandler, SubscriptionHandler>

    /// One decided thing waiting for the owner. The groups are boxed (`indirect`): a burst of cancels
    /// queues one small entry per request, and an entry is as large as its largest case.
    enum Entry {
        /// An action handed over whole.
        case action(Action)
        /// One-shots that have ended (they are out of the core's tables), sharing `result`; handed out
        /// from `start` on.
        indirect case oneShots([Recipient<OneShotHandler>], start: Int, LocationResult, OneShotTally)
        /// Subscriptions to hand `event` to, from `start` on.
        indirect case subscribers([Recipient<SubscriptionHandler>], start: Int, SubscriptionEvent, SubscriberTally)
        /// The rest of the fix being completed; its one-shots are taken from the accuracy index as they
        /// are handed out (``SchedulerStateMachine/fixCompletion``).
        case fixCompletion
    }

    /// What ``SchedulerStateMachine/nextOneShot()`` or ``SchedulerStateMachine/nextSubscriber()``
    /// hands out from now.
    enum Handing: Equatable {
        case nothing
        case oneShots(OneShotTally)
        case subscribers(SubscriberTally)
        case fix
    }

    /// Entries waiting, in the order they were decided.
    var queue = Deque<Entry>()
    /// Entries decided while earlier ones were still being carried out (by the passing of time or a
    /// withdrawal between two handlers): they go first, at the end of the slice in progress.
    var interim = Deque<Entry>()
    /// Whether entries go to ``interim`` now.
    var appendsToInterim = false
    var handing = Handing.nothing
    /// The group being handed out (only one of the two is in use) and the next position in it.
    var oneShots: [Recipient<OneShotHandler>] = []
    var subscribers: [Recipient<SubscriptionHandler>] = []
    var position = 0
    /// What the group being handed out delivers.
    var result: LocationResult?
    var event: SubscriptionEvent?
    /// Recipients handed out of the current group since it was taken up.
    var handedOut = 0
    /// How many recipients a group hands out at least before it lets interim entries go first.
    let slice: Int

    init(slice: Int) {
        self.slice = max(1, slice)
    }

    /// Whether anything decided is still to be carried out.
    var isEmpty: Bool { queue.isEmpty && interim.isEmpty && handing == .nothing }

    /// An event that may come while earlier entries are still being carried out begins: what it
    /// decides is interim if so.
    mutating func beginEvent() { appendsToInterim = !isEmpty }

    /// Appends an entry where the event in progress puts them.
    @inline(__always)
    mutating func append(_ entry: Entry) {
        if appendsToInterim { interim.append(entry) } else { queue.append(entry) }
    }

    /// Takes the next entry: interim ones first.
    mutating func popFirst() -> Entry? { interim.popFirst() ?? queue.popFirst() }

    /// At the end of a used-up slice with interim entries waiting: sets the group being handed out
    /// aside (see ``setAsideCurrentGroup()``) and returns `true`.
    mutating func givesWay() -> Bool {
        guard handedOut >= slice && !interim.isEmpty else { return false }
        setAsideCurrentGroup()
        return true
    }

    /// Stops handing out the current group and puts what is left of it first in the queue (behind the
    /// interim entries), so that it goes on where it stopped.
    mutating func setAsideCurrentGroup() {
        let rest: Entry?
        switch handing {
        case .nothing: rest = nil
        case .oneShots(let tally):
            rest = position < oneShots.count ? .oneShots(oneShots, start: position, result!, tally) : nil
        case .subscribers(let tally):
            rest = position < subscribers.count ? .subscribers(subscribers, start: position, event!, tally) : nil
        case .fix: rest = .fixCompletion
        }
        finishCurrentGroup()
        if let rest { queue.prepend(rest) }
    }

    /// Puts `settled` (the one-shots a fix completion had left, taken at once) where the fix completion
    /// is — being handed out, queued or interim — or drops its place when `settled` is `nil`.
    mutating func replaceFixCompletion(with settled: Entry?) {
        if handing == .fix {
            finishCurrentGroup()
            if let settled { queue.prepend(settled) }
            return
        }
        let isFix = { (entry: Entry) in if case .fixCompletion = entry { true } else { false } }
        if let position = queue.firstIndex(where: isFix) {
            if let settled { queue[position] = settled } else { queue.remove(at: position) }
        } else if let position = interim.firstIndex(where: isFix) {
            if let settled { interim[position] = settled } else { interim.remove(at: position) }
        }
    }

    /// Forgets the group being handed out.
    mutating func finishCurrentGroup() {
        handing = .nothing
        if !oneShots.isEmpty { oneShots = [] }
        if !subscribers.isEmpty { subscribers = [] }
        result = nil
        event = nil
        position = 0
        handedOut = 0
    }
}

extension Outbox: Sendable where OneShotHandler: Sendable, SubscriptionHandler: Sendable {}
extension Outbox.Entry: Sendable where OneShotHandler: Sendable, SubscriptionHandler: Sendable {}

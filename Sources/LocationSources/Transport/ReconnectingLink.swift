import NIOConcurrencyHelpers
import NIOCore

/// What a ``ReconnectingLink`` tells its source about the connection.
enum LinkReport: Sendable {
    /// A link opened (before the peer has said anything): a receiver driver may write to it now.
    case opened
    /// The peer answered in the source's protocol: the link works.
    case connected
    /// The input of the current link ended (before any reconnect), closed by the peer or, unanswered, by the
    /// link itself: flush partial state.
    case inputEnded
    /// A working link was lost, or the first attempt after one failed. Retrying.
    case disconnected(ConnectionStateMachine.Failure)
    /// Attempts kept failing past the policy's limit; the link stays down until restarted.
    case gaveUp(failures: Int, lastFailure: ConnectionStateMachine.Failure)
    /// A finite stream ended and is not replayed.
    case endOfStream
}

/// What a source made of one piece of its link's input.
struct LinkInputOutcome: Sendable {
    /// Whether the input held something in the source's protocol (a gpsd report, an NMEA sentence that
    /// decoded, a receiver's reply): only that makes a new connection count as working.
    var understood: Bool
    /// Completes when the fixes the input held have been delivered, to hold the next read until then (a
    /// paced replay); `nil` when they all went at once.
    var delivered: EventLoopFuture<Void>?

    init(understood: Bool, delivered: EventLoopFuture<Void>? = nil) {
        self.understood = understood
        self.delivered = delivered
    }
}

/// Keeps one link to an endpoint open while started: opens it, greets the peer, reopens it with
/// capped exponential backoff when it fails or drops, and closes it (after a farewell) when stopped.
///
/// The decisions are the pure ``ConnectionStateMachine``'s; this owner holds it under a lock,
/// performs its actions after leaving the lock, and runs every timer on one event loop.
/// ``start()`` and ``stop()`` return at once; all I/O happens on the event loop.
final class ReconnectingLink: Sendable {
    private struct State {
        var machine: ConnectionStateMachine
        var links: [UInt64: any StreamLink] = [:]
        /// Input of an attempt whose open has not been seen yet (a connection's first bytes can come before the
        /// future of its connect), held so the source sees it after the open, in order.
        var early: [UInt64: [LinkInput]] = [:]
    }

    private let state: NIOLockedValueBox<State>
    private let opener: any LinkOpener
    private let framing: LinkFraming
    private let eventLoop: any EventLoop
    private let greeting: ByteBuffer?
    private let farewell: ByteBuffer?
    private let replaysFiniteStreams: Bool
    private let onInput: @Sendable (LinkInput) -> LinkInputOutcome
    private let onReport: @Sendable (LinkReport) -> Void

    /// Creates a stopped link.
    ///
    /// - Parameters:
    ///   - greeting: written right after each connect (gpsd's `?WATCH`).
    ///   - farewell: written before a clean close on ``stop()`` (gpsd's un-watch).
    ///   - replaysFiniteStreams: reopen a finite stream (a file) when it ends, rather than report its end.
    ///   - onInput: receives the input of the current link only, in order, on the event loop, and says
    ///     whether the source understood it: a connection works only once it did.
    ///   - onReport: receives connection reports.
    init(
        opener: any LinkOpener,
        framing: LinkFraming,
        policy: ReconnectPolicy,
        eventLoop: any EventLoop,
        greeting: ByteBuffer? = nil,
        farewell: ByteBuffer? = nil,
        replaysFiniteStreams: Bool = false,
        onInput: @escaping @Sendable (LinkInput) -> LinkInputOutcome,
        onReport: @escaping @Sendable (LinkReport) -> Void
    ) {
        self.state = NIOLockedValueBox(State(machine: ConnectionStateMachine(policy: policy)))
        self.opener = opener
        self.framing = framing
        self.eventLoop = eventLoop
        self.greeting = greeting
        self.farewell = farewell
        self.replaysFiniteStreams = replaysFiniteStreams
        self.onInput = onInput
        self.onReport = onReport
    }

    /// Whether the link is started.
    var isRunning: Bool { state.withLockedValue { $0.machine.isRunning } }

    /// Starts connecting. Returns at once; a no-op when already started.
    func start() {
        perform(state.withLockedValue { $0.machine.start() })
    }

    /// Writes `bytes` to the current link, if one is open; dropped otherwise.
    /// Writes `bytes` on the current connection. Returns `false` when there is none (the link is down or
    /// reconnecting): the bytes are not sent, and the caller says so. `failed` is called if the write itself fails.
    @discardableResult
    func send(_ bytes: ByteBuffer, failed: (@Sendable (any Error) -> Void)? = nil) -> Bool {
        let link = state.withLockedValue { state in state.machine.currentAttempt.flatMap { state.links[$0] } }
        guard let link else { return false }
        link.send(bytes, failed: failed)
        return true
    }

    /// Closes the link (with the farewell if it is open) and stops retrying. Returns at once.
    func stop() {
        perform(state.withLockedValue { $0.machine.stop() })
    }

    private static func now() -> Duration { .nanoseconds(Int64(clamping: NIODeadline.now().uptimeNanoseconds)) }

    private func perform(_ actions: [ConnectionStateMachine.Action]) {
        for action in actions {
            switch action {
            case .open(let attempt):
                open(attempt)
            case .armAnswerTimeout(let attempt, let delay):
                eventLoop.scheduleTask(in: delay.timeAmount) { [weak self] in
                    guard let self else { return }
                    perform(state.withLockedValue { $0.machine.answerTimeout(attempt: attempt, now: Self.now()) })
                }
            case .close(let attempt, let sendFarewell):
                let link = state.withLockedValue { $0.links.removeValue(forKey: attempt) }
                link?.close(farewell: sendFarewell ? farewell : nil)
            case .scheduleRetry(let attempt, let delay):
                eventLoop.scheduleTask(in: delay.timeAmount) { [weak self] in
                    guard let self else { return }
                    perform(state.withLockedValue { $0.machine.retryDue(attempt: attempt) })
                }
            case .reportInputEnded:
                onReport(.inputEnded)
            case .reportConnected:
                onReport(.connected)
            case .reportDisconnected(let failure):
                onReport(.disconnected(failure))
            case .reportGaveUp(let failures, let lastFailure):
                onReport(.gaveUp(failures: failures, lastFailure: lastFailure))
            case .reportEndOfStream:
                onReport(.endOfStream)
            }
        }
    }

    private func open(_ attempt: UInt64) {
        // Opened on the loop, the open's callbacks are registered at once rather than through a hop behind the
        // link's first reads (a file link's first chunk then never comes before its open is seen).
        guard eventLoop.inEventLoop else {
            eventLoop.execute { [self] in
                guard isCurrent(attempt) else { return }
                open(attempt)
            }
            return
        }
        let events = LinkEvents(
            received: { [weak self] input in self?.received(input, attempt: attempt) },
            closed: { [weak self] error in self?.closed(attempt: attempt, error: error) },
            heard: { [weak self] in self?.heard(attempt: attempt) }
        )
        opener.open(on: eventLoop, framing: framing, events: events).whenComplete { [weak self] result in
            guard let self else { return }
            switch result {
            case .success(let link):
                let (actions, accepted, early) = state.withLockedValue { state in
                    state.links[attempt] = link
                    let actions = state.machine.opened(attempt: attempt)
                    return (actions, state.machine.isCurrent(attempt), state.early.removeValue(forKey: attempt) ?? [])
                }
                if accepted, let greeting { link.send(greeting, failed: nil) }
                perform(actions)
                guard accepted else { return }
                onReport(.opened)
                for input in early where isCurrent(attempt) { _ = use(input, attempt: attempt) }
            case .failure(let error):
                perform(state.withLockedValue { state in
                    state.early[attempt] = nil
                    return state.machine.openFailed(attempt: attempt, reason: "\(error)", now: Self.now())
                })
            }
        }
    }

    /// The peer of `attempt` sent bytes, whether or not they made input yet: it answered.
    private func heard(attempt: UInt64) {
        state.withLockedValue { _ = $0.machine.received(attempt: attempt) }
    }

    private func received(_ input: LinkInput, attempt: UInt64) -> EventLoopFuture<Void>? {
        let current = state.withLockedValue { state -> Bool in
            guard state.machine.received(attempt: attempt) else { return false }
            guard state.links[attempt] != nil else {
                state.early[attempt, default: []].append(input)
                return false
            }
            return true
        }
        return current ? use(input, attempt: attempt) : nil
    }

    private func isCurrent(_ attempt: UInt64) -> Bool {
        state.withLockedValue { $0.machine.isCurrent(attempt) }
    }

    /// Hands input of the current attempt to the source.
    private func use(_ input: LinkInput, attempt: UInt64) -> EventLoopFuture<Void>? {
        let outcome = onInput(input)
        if outcome.understood { perform(state.withLockedValue { $0.machine.understood(attempt: attempt, now: Self.now()) }) }
        return outcome.delivered
    }

    private func closed(attempt: UInt64, error: (any Error)?) {
        let (wasCurrent, early) = state.withLockedValue { state in
            state.links.removeValue(forKey: attempt)
            return (state.machine.isCurrent(attempt), state.early.removeValue(forKey: attempt) ?? [])
        }
        guard wasCurrent else { return }
        if !early.isEmpty {
            // A link that ended before its open was seen: what it said still counts, before its end.
            for input in early where isCurrent(attempt) { _ = use(input, attempt: attempt) }
            guard isCurrent(attempt) else { return }
        }
        onReport(.inputEnded)
        let reopen = !opener.isFinite || error != nil || replaysFiniteStreams
        let replay = opener.isFinite && error == nil && replaysFiniteStreams
        perform(state.withLockedValue {
            $0.machine.closed(attempt: attempt, reason: error.map { "\($0)" }, reopen: reopen, replay: replay, now: Self.now())
        })
    }
}

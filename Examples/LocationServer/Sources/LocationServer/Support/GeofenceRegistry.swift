import LocationEngine
import NIOConcurrencyHelpers
import ServiceLifecycle

/// The server's fences and the listeners of `GET /geofences/events`.
///
/// Fence IDs are the server's own, numbered from 1 and never reused. A fence is entered when it is
/// reserved (before the engine sees it, so that the cap holds under concurrent requests) and becomes
/// visible once the route has its engine request (`claim`); the engine's handler may run before that,
/// so whatever it delivers is kept on the fence either way.
///
/// As a `Service` placed before the engine in the server's group, it runs until the group shuts
/// down — after the engine, which has ended every fence with `shut_down` by then — and closes every
/// event stream, whose route then sends the final `end`.
final class GeofenceRegistry: Sendable {
    /// Refusal of a new fence: the server monitors its maximum.
    struct Full: Error {
        var maximum: Int
    }

    /// What listeners hear.
    enum Event: Sendable {
        /// A fence's transition.
        case transition(fence: UInt64, GeofenceEvent)
        /// A fence ended: the engine's outcome name (`shut_down`, `unauthorized`…), `cancelled` for `DELETE`.
        case ended(fence: UInt64, reason: String)
    }

    /// One fence.
    struct Fence: Sendable {
        var id: UInt64
        var body: GeofenceBody
        /// Its state as of the last transition delivered.
        var state = GeofenceState.unknown
        /// The engine's request, once the route has it (until then the fence is not listed).
        var request: RequestID?
        /// An end delivered before the route claimed the fence.
        var earlyEnd: SubscriptionEnd?
    }

    private struct State {
        var fences: [UInt64: Fence] = [:]
        var lastID: UInt64 = 0
        var listeners: [Int: AsyncStream<Event>.Continuation] = [:]
        var lastListener = 0
        var closed = false
    }

    /// The most fences monitored at once.
    let maximumFences: Int
    /// Events kept per listener that reads slower than they come (the newest are kept).
    let listenerBuffer: Int
    let counters: GeofenceCounters
    private let state = NIOLockedValueBox(State())

    init(maximumFences: Int, listenerBuffer: Int = 1024, counters: GeofenceCounters) {
        self.maximumFences = maximumFences
        self.listenerBuffer = listenerBuffer
        self.counters = counters
    }

    // MARK: Fences

    /// Reserves a fence for `body` and returns its ID.
    /// - Throws: ``Full`` when ``maximumFences`` are monitored or reserved.
    func reserve(_ body: GeofenceBody) throws(Full) -> UInt64 {
        let id: UInt64? = state.withLockedValue { state in
            guard state.fences.count < maximumFences else { return nil }
            state.lastID += 1
            state.fences[state.lastID] = Fence(id: state.lastID, body: body)
            return state.lastID
        }
        guard let id else { throw Full(maximum: maximumFences) }
        return id
    }

    /// Records the engine's request for the fence reserved as `id`; returns the end it already had (it
    /// is gone then), or `nil` when it is monitored.
    func claim(_ id: UInt64, request: RequestID) -> SubscriptionEnd? {
        let end: SubscriptionEnd? = state.withLockedValue { state in
            guard let end = state.fences[id]?.earlyEnd else {
                state.fences[id]?.request = request
                return nil
            }
            state.fences[id] = nil
            return end
        }
        if end == nil { counters.created() }
        return end
    }

    /// The monitored fences, by ID.
    var fences: [Fence] { state.withLockedValue { $0.fences.values.filter { $0.request != nil } }.sorted { $0.id < $1.id } }

    /// The monitored fence `id`.
    func fence(_ id: UInt64) -> Fence? {
        state.withLockedValue { state in state.fences[id].flatMap { fence in fence.request == nil ? nil : fence } }
    }

    /// Removes the monitored fence `id` and returns its request to cancel (`nil`: no such fence).
    func remove(_ id: UInt64) -> RequestID? {
        let (request, dropped): (RequestID?, Int) = state.withLockedValue { state in
            guard let request = state.fences[id]?.request else { return (nil, 0) }
            state.fences[id] = nil
            return (request, Self.broadcast(.ended(fence: id, reason: "cancelled"), to: state.listeners))
        }
        guard let request else { return nil }
        counters.ended(deleted: true)
        counters.eventsDropped(dropped)
        return request
    }

    /// The engine's handler for fence `id`.
    func deliver(_ event: RegionEvent, toFence id: UInt64) {
        switch event {
        case .transition(let change):
            // A fence deleted while this was on its way is not heard from again.
            let dropped: Int? = state.withLockedValue { state in
                guard state.fences[id] != nil else { return nil }
                state.fences[id]?.state = change.transition.state
                return Self.broadcast(.transition(fence: id, change), to: state.listeners)
            }
            guard let dropped else { return }
            counters.delivered(change.transition)
            counters.eventsDropped(dropped)
        case .sourceError:
            // Every fence hears the same transient error; /updates streams report those.
            break
        case .ended(let end):
            let outcome: (monitored: Bool, dropped: Int)? = state.withLockedValue { state in
                guard let fence = state.fences[id] else { return nil }
                if fence.request == nil {
                    state.fences[id]?.earlyEnd = end
                } else {
                    state.fences[id] = nil
                }
                return (fence.request != nil, Self.broadcast(.ended(fence: id, reason: end.outcome), to: state.listeners))
            }
            guard let outcome else { return }
            if outcome.monitored { counters.ended(deleted: false) }
            counters.eventsDropped(outcome.dropped)
        }
    }

    // MARK: Listeners

    /// A new listener's events; the sequence finishes when the registry closes (at once if it has).
    func listen() -> AsyncStream<Event> {
        let (stream, continuation) = AsyncStream<Event>.makeStream(bufferingPolicy: .bufferingNewest(max(1, listenerBuffer)))
        let key: Int? = state.withLockedValue { state in
            guard !state.closed else { return nil }
            state.lastListener += 1
            state.listeners[state.lastListener] = continuation
            return state.lastListener
        }
        guard let key else {
            continuation.finish()
            return stream
        }
        counters.listenerOpened()
        continuation.onTermination = { [weak self] _ in
            self?.state.withLockedValue { _ = $0.listeners.removeValue(forKey: key) }
            self?.counters.listenerClosed()
        }
        return stream
    }

    /// Finishes every listener's sequence and refuses new ones.
    func close() {
        let listeners = state.withLockedValue { state in
            state.closed = true
            defer { state.listeners.removeAll() }
            return Array(state.listeners.values)
        }
        // Outside the lock: finishing runs each listener's `onTermination`, which takes it.
        for listener in listeners { listener.finish() }
    }

    /// Sends `event` to every listener; returns how many dropped it (their buffer was full). Called under
    /// the lock, with the change the event reports, so that every listener hears a fence's events in the
    /// order they happened (a deletion cannot slip its `end` in ahead of a transition on its way). A
    /// `yield` only enqueues the event and wakes the listener's task: it runs no listener code, and never
    /// `onTermination` (only `finish` does, which ``close()`` calls outside the lock).
    private static func broadcast(_ event: Event, to listeners: [Int: AsyncStream<Event>.Continuation]) -> Int {
        var dropped = 0
        for listener in listeners.values {
            if case .dropped = listener.yield(event) { dropped += 1 }
        }
        return dropped
    }
}

extension GeofenceRegistry: Service {
    /// Waits for the group's graceful shutdown, then closes every event stream.
    func run() async throws {
        try? await gracefulShutdown()
        close()
    }
}

import Foundation
import LocationEngine
import NIOConcurrencyHelpers
import ServiceLifecycle

/// The server's fences, kept in the database through the ``journal``, which also records every event of
/// `GET /geofences/events`.
///
/// Fence IDs are the server's own, numbered from 1 and never reused, across restarts too. A fence is
/// entered when it is reserved (before the engine sees it, so that the cap holds under concurrent
/// requests) and becomes visible once the route has its engine request (`claim`); the engine's handler
/// may run before that, so whatever it delivers is kept on the fence either way. Every change is appended
/// to the journal under the registry's lock, so the database and the event ids follow the order in which
/// things happened.
///
/// A fence ended by the engine's shutdown stays in the database, and the next start restores it with the
/// state it was in (``restore(_:into:)``); one ended for a reason outside it (the source failed, access was
/// refused) stays too, and is monitored again after a pause (``suspend(_:_:)``); any other end, and `DELETE`,
/// removes it.
///
/// As a `Service` placed before the engine in the server's group, it stores what is appended until the
/// group shuts down — after the engine, which has ended every fence it monitored with `shut_down` by then (a
/// fence waiting to be monitored again has nothing to end) — stores the rest, and ends every event stream once
/// it has sent everything.
final class GeofenceRegistry: Sendable {
    /// Refusal of a new fence: the server monitors its maximum.
    struct Full: Error {
        var maximum: Int
        /// The client's own share is full (``maximumFencesPerClient``), not the server's.
        var perClient: Bool
    }

    /// What listeners hear.
    enum Event: Sendable {
        /// A fence's transition.
        case transition(fence: UInt64, GeofenceEvent)
        /// A fence ended: the engine's outcome name (`shut_down`, `rejected`…), `cancelled` for `DELETE`.
        case ended(fence: UInt64, reason: String)
        /// A fence stopped being monitored for a reason outside it (`failed`, `unauthorized`…): it is kept and
        /// monitored again after a pause.
        case suspended(fence: UInt64, reason: String, detail: String?)
    }

    /// One fence.
    struct Fence: Sendable {
        var id: UInt64
        var body: GeofenceBody
        /// The client that created it (`nil`: stored before clients existed).
        var owner: String?
        /// Its state as of the last transition delivered (or as restored).
        var state = GeofenceState.unknown
        /// Since when it is in that state, Unix seconds (`nil`: never decided).
        var since: Double?
        /// Whether its stay inside dwelled (kept through an unknown stretch of the stay).
        var dwelled = false
        /// Restored at start, and no transition since.
        var restored = false
        /// The engine's request, once the route has it (until then the fence is not listed).
        var request: RequestID?
        /// An end delivered before the route claimed the fence.
        var earlyEnd: SubscriptionEnd?
        /// In the database: claimed after its `POST`, or restored at start.
        var isStored = false
        /// The events the engine delivered before the `POST` claimed the fence, sent once its row is appended
        /// (``claim(_:request:)``): no listener hears of a fence before the database has it, and none of one whose
        /// creation its creator is told failed.
        var held: [ServerSentEvent] = []
        /// Whether an event of it was appended to the journal: listeners may have heard of it, so an end they must
        /// hear too.
        var announced = false
        /// Kept after an end outside it, to be monitored again (`nil`: monitored, as far as the server knows).
        var suspension: Suspension?

        /// The fence as the database keeps it.
        var stored: StoredFence {
            StoredFence(id: id, body: body.storedJSON, owner: owner, state: state.description, since: since, dwelled: dwelled)
        }
    }

    struct State {
        var fences = FenceTable()
        /// Fences deleted whose deletion no `DELETE` has yet seen stored (its owner, its journal sequence), from the
        /// removal on: a `DELETE` again, while the first still waits or after it gave up, waits for that write, and
        /// it is forgotten once stored. At most one per fence deleted; past ``maximumFences`` of them, the oldest
        /// whose write is stored are forgotten, down to half that (a client told `503` that never asks again, one that left while its
        /// `DELETE` waited): a `DELETE` of one of those again is `404`, as a restart would answer too.
        var unstoredDeletions: [UInt64: (owner: String?, sequence: UInt64)] = [:]
        var lastID: UInt64
        /// The engine shut down (a fence ended `shut_down`): the fences left memory but not the database.
        var shutDown = false
        /// Unix seconds at the engine's instant zero: turns the engine's instants into times that mean
        /// something after a restart.
        var timelineOrigin: Double
        /// How kept fences are monitored again: set when the fences are restored into the engine.
        var remonitor: Remonitor?
    }

    /// The most fences monitored at once.
    let maximumFences: Int
    /// The most fences one client has at once: so that one client cannot take every place.
    let maximumFencesPerClient: Int
    let counters: GeofenceCounters
    /// The database's writer and the events' reader.
    let journal: GeofenceJournal
    /// What each client was entitled to hear of the events, kept with them.
    let grants: GrantHistory
    let state: NIOLockedValueBox<State>
    /// Wakes ``retrySuspended()`` when a fence is kept to be monitored again.
    let retryWakes: AsyncStream<Void>.Continuation
    let retryStream: AsyncStream<Void>

    init(maximumFences: Int, maximumFencesPerClient: Int? = nil, journal: GeofenceJournal, lastFenceID: UInt64, grants: [GrantChange] = []) {
        self.maximumFences = maximumFences
        self.maximumFencesPerClient = min(maximumFencesPerClient ?? maximumFences, maximumFences)
        self.journal = journal
        self.grants = GrantHistory(journal: journal, stored: grants)
        counters = journal.counters
        state = NIOLockedValueBox(State(lastID: lastFenceID, timelineOrigin: journal.now()))
        (retryStream, retryWakes) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    // MARK: Fences

    /// Reserves a fence for `body`, owned by the client named `owner`, and returns its ID. Only the ID is
    /// stored yet (never handed out again, whatever happens next); the fence itself is once the engine
    /// monitors it (``claim(_:request:)``).
    /// - Throws: ``Full`` when `owner` has ``maximumFencesPerClient`` fences, or ``maximumFences`` are monitored
    ///   or reserved.
    func reserve(_ body: GeofenceBody, owner: String) throws(Full) -> UInt64 {
        let reserved: Result<UInt64, Full> = state.withLockedValue { state in
            guard state.fences.count(ownedBy: owner) < maximumFencesPerClient else {
                return .failure(Full(maximum: maximumFencesPerClient, perClient: true))
            }
            guard state.fences.count < maximumFences else { return .failure(Full(maximum: maximumFences, perClient: false)) }
            state.lastID += 1
            state.fences[state.lastID] = Fence(id: state.lastID, body: body, owner: owner)
            journal.append([.lastFenceID(state.lastID)])
            return .success(state.lastID)
        }
        return try reserved.get()
    }

    /// What became of a reserved fence once the engine had its request.
    enum Claim: Equatable {
        /// Monitored: its row is appended, as the journal's write numbered `sequence`.
        case monitored(sequence: UInt64)
        /// The engine ended it at once (refused, unauthorized, shut down): it is gone, and was never stored, so
        /// no restart brings back a fence its creator was told failed.
        case ended(SubscriptionEnd)
    }

    /// Records the engine's request for the fence reserved as `id`, and stores the fence (with any state the
    /// engine decided meanwhile) unless the engine had already ended it; the events it delivered meanwhile follow
    /// the fence's row.
    func claim(_ id: UInt64, request: RequestID) -> Claim {
        let claim: Claim = state.withLockedValue { state in
            guard var fence = state.fences[id] else { return .ended(.rejected(reason: "the fence was removed before it was monitored")) }
            if let end = fence.earlyEnd {
                state.fences[id] = nil
                return .ended(end)
            }
            fence.request = request
            fence.isStored = true
            let sequence = journal.append([.fence(fence.stored)])
            for event in fence.held { journal.appendEvent(event.name, fence: id, owner: fence.owner, data: event.data) }
            fence.announced = !fence.held.isEmpty
            fence.held = []
            state.fences[id] = fence
            return .monitored(sequence: sequence)
        }
        if case .monitored = claim { counters.created() }
        return claim
    }

    /// Whether the engine has shut down: the fences it ended are kept for the next start, so what is in memory
    /// no longer says which exist.
    var isShutDown: Bool { state.withLockedValue { $0.shutDown } }

    /// The monitored fences, by ID.
    var fences: [Fence] { state.withLockedValue { $0.fences.values.filter { $0.request != nil } }.sorted { $0.id < $1.id } }

    /// The monitored fences `client` sees (its own; all for an admin), by ID.
    func fences(of client: Client) -> [Fence] { fences.filter { client.sees(owner: $0.owner) } }

    /// The monitored fence `id`.
    func fence(_ id: UInt64) -> Fence? {
        state.withLockedValue { state in state.fences[id].flatMap { fence in fence.request == nil ? nil : fence } }
    }

    /// Removes the monitored fence `id`; returns its request to cancel and the journal's sequence number
    /// for the removal (`nil`: no such fence). Until a `DELETE` sees that write stored (``deletionStored(_:)``),
    /// ``unstoredDeletion(_:)`` gives it: a second `DELETE` sent while the first waits finds the fence gone from
    /// memory, and must wait for the same write rather than answer `404` for a fence a restart would bring back.
    func remove(_ id: UInt64) -> (request: RequestID, sequence: UInt64)? {
        let removed: (RequestID, UInt64)? = state.withLockedValue { state in
            guard let fence = state.fences[id], let request = fence.request else { return nil }
            state.fences[id] = nil
            let end = ServerSentEvent(Event.ended(fence: id, reason: "cancelled"))
            let sequence = journal.appendEvent(end.name, fence: id, owner: fence.owner, data: end.data, then: [.fenceRemoved(id)])
            state.unstoredDeletions[id] = (owner: fence.owner, sequence: sequence)
            if state.unstoredDeletions.count > maximumFences {
                Self.forgetStoredDeletions(&state, keeping: max(1, maximumFences / 2), storedThrough: journal.storedSequence)
            }
            return (request, sequence)
        }
        guard let removed else { return nil }
        counters.ended(deleted: true)
        return removed
    }

    /// Forgets the oldest deletions whose write is stored (sequence at most `stored`) until `keeping` are left, or
    /// no stored one is.
    /// - Complexity: O(d log d) for the d deletions kept: once per half of ``maximumFences`` removals while the
    ///   database takes writes.
    private static func forgetStoredDeletions(_ state: inout State, keeping: Int, storedThrough stored: UInt64) {
        let stale = state.unstoredDeletions.filter { $0.value.sequence <= stored }.sorted { $0.value.sequence < $1.value.sequence }
        for (id, _) in stale.prefix(state.unstoredDeletions.count - keeping) { state.unstoredDeletions[id] = nil }
    }

    /// The deletion of fence `id` no `DELETE` has seen stored yet (one may be waiting for it, or have given up
    /// while the journal retries it): the fence's owner and the write to wait for; `nil` if there is none.
    func unstoredDeletion(_ id: UInt64) -> (owner: String?, sequence: UInt64)? {
        state.withLockedValue { $0.unstoredDeletions[id] }
    }

    /// A `DELETE` of fence `id` saw its deletion stored.
    func deletionStored(_ id: UInt64) {
        state.withLockedValue { _ = $0.unstoredDeletions.removeValue(forKey: id) }
    }

    /// The engine's handler for fence `id`.
    func deliver(_ event: RegionEvent, toFence id: UInt64) {
        switch event {
        case .transition(let change):
            // Encoded before the lock, which only orders the event among the others and the fence's state.
            let sent = ServerSentEvent(Event.transition(fence: id, change))
            // A fence deleted while this was on its way is not heard from again.
            let delivered: Bool = state.withLockedValue { state in
                guard var fence = state.fences[id] else { return false }
                if change.transition != .dwelled {
                    fence.since = state.timelineOrigin + change.at.sinceEpoch.secondsValue
                }
                fence.state = change.transition.state
                switch change.transition {
                case .dwelled: fence.dwelled = true
                // The stay goes on through an unknown stretch (no exit was seen): the engine does not dwell it
                // again, and a restart must not either.
                case .becameUnknown, .determined(.inside): break
                default: fence.dwelled = false
                }
                fence.restored = false
                // A transition says the fence is monitored: a later end starts a new stretch.
                fence.suspension = nil
                if fence.isStored {
                    journal.appendEvent(
                        sent.name, fence: id, owner: fence.owner, data: sent.data,
                        then: [.fenceState(id, state: fence.state.description, since: fence.since, dwelled: fence.dwelled)])
                    fence.announced = true
                } else {
                    // Its row, appended at the claim, carries the state.
                    fence.held.append(sent)
                }
                state.fences[id] = fence
                return true
            }
            if delivered { counters.delivered(change.transition) }
        case .sourceError:
            // Every fence hears the same transient error; /updates streams report those.
            break
        case .ended(let end):
            if suspend(id, end) { return }
            let sent = ServerSentEvent(Event.ended(fence: id, reason: end.outcome))
            let monitored: Bool? = state.withLockedValue { state in
                if case .shutDown = end { state.shutDown = true }
                guard let fence = state.fences[id] else { return nil }
                if fence.request == nil {
                    state.fences[id]?.earlyEnd = end
                } else {
                    state.fences[id] = nil
                }
                // One its `POST` has not claimed was never stored nor heard of: its creator alone is told.
                guard fence.isStored else { return false }
                // Shutdown ends a fence for this run only: the next start restores it.
                journal.appendEvent(
                    sent.name, fence: id, owner: fence.owner, data: sent.data, then: end.keepsFence ? [] : [.fenceRemoved(id)])
                return fence.request != nil
            }
            if monitored == true { counters.ended(deleted: false) }
        }
    }

    /// Forgets the fence reserved as `id` whose creation could not be stored; returns its request to cancel.
    /// Listeners that heard of it (a transition or a suspension appended behind its row, which the retries of the
    /// journal may still store) hear it end, `cancelled`.
    func abandon(_ id: UInt64) -> RequestID? {
        let request = state.withLockedValue { state in
            let fence = state.fences.removeValue(forKey: id)
            if let fence, fence.announced {
                let end = ServerSentEvent(Event.ended(fence: id, reason: "cancelled"))
                journal.appendEvent(end.name, fence: id, owner: fence.owner, data: end.data, then: [.fenceRemoved(id)])
            } else {
                journal.append([.fenceRemoved(id)])
            }
            return fence?.request
        }
        if request != nil { counters.ended(deleted: true) }
        return request
    }

    /// Stores what is pending, then ends every event stream once it has sent every event.
    func close() async {
        journal.finish()
        try? await journal.flush()
        journal.close()
    }
}

extension SubscriptionEnd {
    /// Whether a fence that ends so stays in the database for the next start: the server's shutdown, which ends it
    /// for this run alone. (An end outside the fence keeps it too, monitored again in this run: ``suspendsFence``.)
    var keepsFence: Bool {
        if case .shutDown = self { return true }
        return false
    }
}

extension GeofenceRegistry: Service {
    /// Stores what is appended until the group's graceful shutdown, then the rest; then ends every
    /// event stream once it has sent everything. Meanwhile it monitors kept fences again: after their pause
    /// (``retrySuspended()``), and at once when access is granted again (``remonitorWhenAccessReturns()``).
    func run() async throws {
        await withGracefulShutdownHandler {
            await withDiscardingTaskGroup { group in
                group.addTask { await self.retrySuspended() }
                group.addTask { await self.remonitorWhenAccessReturns() }
                await journal.run()
                group.cancelAll()
            }
        } onGracefulShutdown: { [journal, state, retryWakes] in
            // The engine has shut down before (the group stops its services in reverse): with no fence monitored
            // to end (none, or only fences waiting to be monitored again), nothing else said so.
            state.withLockedValue { $0.shutDown = true }
            retryWakes.finish()
            journal.finish()
        }
        journal.close()
    }
}

import LocationEngine

/// Fences the engine ended for a reason outside them — the source failed for good, location access was
/// refused or reduced, the engine's configuration cannot serve them — are kept: stored, listed, and
/// monitored again after a pause, with the state they were in. Deleting every fence a client was told
/// was created because gpsd restarted for a minute would lose what the server acknowledged.
///
/// Each fence's pause is its own: 5 s, doubling while it ends again within ``stableAfter`` of being monitored
/// again, up to ``longestPause``. The `suspended` event is sent at the first end of such a stretch, not at each
/// retry, so an outage of hours writes one event per fence. A fence kept because access was refused does not
/// wait out its pause once access is granted again: the grant monitors it again at once.
extension GeofenceRegistry {
    /// A fence the engine ended for a reason outside it, kept to be monitored again.
    struct Suspension: Sendable, Equatable {
        /// The engine's outcome name for the end (`failed`, `unauthorized`, …).
        var reason: String
        /// Unix seconds of the first end of this stretch.
        var since: Double
        /// How many times the fence was monitored again and ended again within ``stableAfter``.
        var retries = 0
        /// When it is to be monitored again, on the engine's timeline (`nil`: monitored again, not ended since).
        var due: EngineInstant?
        /// When it was last monitored again, on the engine's timeline.
        var retriedAt: EngineInstant?
        /// Whether it ended for want of access, so that access granted monitors it again before its pause is over.
        var awaitsAccess = false

        /// Whether it waits to be monitored again.
        var waiting: Bool { due != nil }
    }

    /// The engine's side of monitoring a kept fence again, given by ``restore(_:into:)``, which knows the engine.
    struct Remonitor: Sendable {
        var monitor: @Sendable (GeofenceRegion, GeofenceOptions, @escaping @Sendable (RequestID, RegionEvent) -> Void) -> RequestID
        var cancel: @Sendable (RequestID) -> Void
        /// Sleeps on the engine's clock.
        var sleep: @Sendable (Duration) async throws -> Void
        var now: @Sendable () -> EngineInstant
        /// Every change of the engine's authorization, starting with the current one.
        var accessChanges: @Sendable () -> AsyncStream<AuthorizationState>
    }

    /// The first pause before a kept fence is monitored again.
    static let firstPause = Duration.seconds(5)
    /// The longest pause between two rounds.
    static let longestPause = Duration.seconds(300)
    /// How long a fence monitored again must go without ending for its next end to start a new stretch
    /// (with a `suspended` event and the first pause again).
    static let stableAfter = Duration.seconds(300)

    /// Keeps fence `id`, which the engine ended with `end`, if `end` is outside the fence and the fence is
    /// stored; returns whether it did. A fence not stored yet (its `POST` has not claimed it) is refused to
    /// its creator instead.
    func suspend(_ id: UInt64, _ end: SubscriptionEnd) -> Bool {
        guard end.suspendsFence else { return false }
        let now = state.withLockedValue { $0.remonitor }?.now() ?? .zero
        let kept: Bool = state.withLockedValue { state in
            guard !state.shutDown, var fence = state.fences[id], fence.isStored else { return false }
            if var suspension = fence.suspension, let retriedAt = suspension.retriedAt, now - retriedAt < Self.stableAfter {
                // The same outage: counted, not announced again.
                suspension.retries += 1
                suspension.due = now + Self.pause(afterRetries: suspension.retries)
                suspension.awaitsAccess = end.isRefusal
                fence.suspension = suspension
            } else {
                fence.suspension = Suspension(reason: end.outcome, since: journal.now(), due: now + Self.firstPause, awaitsAccess: end.isRefusal)
                let sent = ServerSentEvent(Event.suspended(fence: id, reason: end.outcome, detail: EndJSON(end, updates: 0).detail))
                journal.appendEvent(sent.name, fence: id, owner: fence.owner, data: sent.data)
                fence.announced = true
            }
            state.fences[id] = fence
            return true
        }
        guard kept else { return false }
        counters.suspended()
        retryWakes.yield()
        return true
    }

    /// The pause before a fence is monitored again after it ended `retries` times within ``stableAfter`` of its
    /// monitorings again: 5 s, doubling, up to ``longestPause``.
    static func pause(afterRetries retries: Int) -> Duration { min(firstPause * (1 << min(retries, 10)), longestPause) }

    /// When the next waiting fence is to be monitored again, or `nil` when none waits (or nothing can monitor them).
    /// - Complexity: O(n) for the n fences kept: once a round, a round at most every 5 s.
    var nextDue: EngineInstant? {
        state.withLockedValue { state in
            guard !state.shutDown, state.remonitor != nil else { return nil }
            return state.fences.values.compactMap { $0.suspension?.due }.min()
        }
    }

    /// Monitors again every waiting fence whose pause is over, each with the state it was in; returns how many.
    @discardableResult
    func remonitorWaiting() -> Int {
        guard let remonitor = state.withLockedValue({ $0.remonitor }) else { return 0 }
        let instantNow = remonitor.now()
        let wallNow = journal.now()
        let due: [Fence] = state.withLockedValue { state in
            guard !state.shutDown else { return [] }
            let ids = state.fences.values.filter { fence in fence.suspension?.due.map { $0 <= instantNow } ?? false }.map(\.id)
            return ids.compactMap { id in
                state.fences[id]?.suspension?.due = nil
                state.fences[id]?.suspension?.retriedAt = instantNow
                return state.fences[id]
            }
        }
        for fence in due {
            let id = fence.id
            let request = remonitor.monitor(fence.body.region, monitoringOptions(fence, instantNow: instantNow, wallNow: wallNow)) {
                [self] _, event in deliver(event, toFence: id)
            }
            let deleted: Bool = state.withLockedValue { state in
                guard state.fences[id] != nil else { return true }
                state.fences[id]?.request = request
                return false
            }
            if deleted { remonitor.cancel(request) }
            counters.remonitored()
        }
        return due.count
    }

    /// Runs until cancelled: waits for a fence to be kept, then monitors each waiting fence again once its pause is
    /// over. It sleeps at most ``firstPause`` at a time, so that a fence kept meanwhile, whose pause may end before
    /// the one slept for, is not kept waiting longer than its own.
    func retrySuspended() async {
        for await _ in retryStream {
            while let due = nextDue, let remonitor = state.withLockedValue({ $0.remonitor }) {
                let left = due - remonitor.now()
                guard left <= .zero else {
                    do { try await remonitor.sleep(min(left, Self.firstPause)) } catch { return }
                    continue
                }
                remonitorWaiting()
            }
        }
    }

    /// Monitors again at once, when `access` is a grant, every waiting fence kept because access was refused;
    /// returns how many. Their retries stay counted: a grant withdrawn again at once still lengthens the next pause.
    @discardableResult
    func accessChanged(to access: AuthorizationState) -> Int {
        guard access.isAuthorized, let remonitor = state.withLockedValue({ $0.remonitor }) else { return 0 }
        let now = remonitor.now()
        let given: Int = state.withLockedValue { state in
            let refused = state.fences.values.filter { $0.suspension.map { $0.waiting && $0.awaitsAccess } ?? false }.map(\.id)
            for id in refused { state.fences[id]?.suspension?.due = now }
            return refused.count
        }
        return given > 0 ? remonitorWaiting() : 0
    }

    /// Runs until cancelled or the engine shuts down: hands every change of the engine's authorization to
    /// ``accessChanged(to:)``.
    func remonitorWhenAccessReturns() async {
        guard let remonitor = state.withLockedValue({ $0.remonitor }) else { return }
        for await access in remonitor.accessChanges() { accessChanged(to: access) }
    }

    /// The options to monitor `fence` with again: its own, with the state it was left in and since when on the
    /// engine's timeline (`GeofenceOptions.restoredState`), so that its first deciding fix reports nothing when
    /// the state is the same.
    func monitoringOptions(_ fence: Fence, instantNow: EngineInstant, wallNow: Double) -> GeofenceOptions {
        var options = fence.body.options
        if let since = fence.since {
            // A wall-clock time placed on the engine's timeline (before its start: a negative instant).
            let instant = instantNow - .nanoseconds(Int64(((wallNow - since) * 1e9).rounded()))
            options.restoredState = GeofenceRestoredState(fence.state, since: instant, dwelled: fence.dwelled)
        }
        return options
    }
}

extension SubscriptionEnd {
    /// Whether it ended for want of access (refused, restricted, services off, a one-time grant lapsed).
    var isRefusal: Bool {
        if case .unauthorized = self { return true }
        return false
    }

    /// Whether a fence that ends so is kept and monitored again: the end says nothing of the fence, only of
    /// what serves it now (the source, the authorization, the configuration).
    var suspendsFence: Bool {
        switch self {
        case .failed, .unauthorized, .accuracyReduced, .misconfigured: true
        case .maximumUpdatesReached, .durationElapsed, .forceCompleted, .headingUnavailable, .rejected, .shutDown: false
        }
    }
}

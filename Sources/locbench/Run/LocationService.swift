import LocationEngine
import LocationEngineTestKit

/// What a benchmark run drives: the engine, or the naive baseline, behind one interface.
protocol LocationService: Sendable {
    func location(accuracy: LocationAccuracy, timeout: Duration?, handler: @escaping @Sendable (LocationResult) -> Void) -> RequestID
    func updates(_ options: SubscriptionOptions, handler: @escaping @Sendable (RequestID, SubscriptionEvent) -> Void) -> RequestID
    func cancel(_ id: RequestID)
    func forceComplete(_ id: RequestID)
    /// Processes everything submitted and everything due at the clock's current time.
    func settle() async
    /// When the service next needs the clock to move (virtual runs), on the run's timeline in nanoseconds.
    func nextWakeup() async -> Int64?
    /// ``settle()``, then ``pendingCount()`` and ``nextWakeup()``: a virtual run's step asks all three.
    func settleAndObserve() async -> (pending: Int, nextWakeup: Int64?)
    /// Requests the service cancelled (ended with nothing delivered).
    func cancelledCount() async -> Int
    /// Requests pending in the service now (one-shots and subscriptions).
    func pendingCount() async -> Int
    /// Source counters: starts, stops, mode changes.
    func sourceCounters() async -> (starts: Int, stops: Int, modeChanges: Int)
    /// Authorization and temporary-full-accuracy prompts made so far.
    func authorizationPrompts() async -> Int
    /// The engine's counters, for the ledger to check against what was delivered (`nil` for a design
    /// that is not the engine).
    func engineStatistics() async -> SchedulerStatistics?
}

extension LocationService {
    func settleAndObserve() async -> (pending: Int, nextWakeup: Int64?) {
        await settle()
        return (await pendingCount(), await nextWakeup())
    }

    func authorizationPrompts() async -> Int { 0 }
    func engineStatistics() async -> SchedulerStatistics? { nil }
}

/// The engine as a ``LocationService``.
struct EngineService<C: Clock>: LocationService where C.Duration == Duration {
    let engine: LocationEngine<C>
    let offset: @Sendable (C.Instant) -> Int64

    /// Wraps `engine`, starting its lifetime (`run()`) as an application without a service group does.
    init(running engine: LocationEngine<C>, offset: @escaping @Sendable (C.Instant) -> Int64) {
        self.engine = engine
        self.offset = offset
        Task { try await engine.run() }
    }

    func location(accuracy: LocationAccuracy, timeout: Duration?, handler: @escaping @Sendable (LocationResult) -> Void) -> RequestID {
        engine.location(accuracy: accuracy, timeout: timeout, handler: handler)
    }

    func updates(_ options: SubscriptionOptions, handler: @escaping @Sendable (RequestID, SubscriptionEvent) -> Void) -> RequestID {
        engine.updates(options, handler: handler)
    }

    func cancel(_ id: RequestID) { engine.cancel(id) }
    func forceComplete(_ id: RequestID) { engine.forceComplete(id) }
    func settle() async { await engine.sync() }
    func nextWakeup() async -> Int64? { await engine.nextWakeup().map(offset) }
    // One hop to the engine's actor instead of three: on a machine whose thread wake-ups are dear, a 1M
    // virtual run spent most of its time in these hops (one step per operation).
    func settleAndObserve() async -> (pending: Int, nextWakeup: Int64?) { await Self.settleAndObserve(engine, offset) }

    private static func settleAndObserve(
        _ engine: isolated LocationEngine<C>, _ offset: @Sendable (C.Instant) -> Int64
    ) -> (pending: Int, nextWakeup: Int64?) {
        engine.sync()
        return (engine.pendingRequests(), engine.nextWakeup().map(offset))
    }

    func engineStatistics() async -> SchedulerStatistics? { await engine.statistics() }

    func cancelledCount() async -> Int {
        let stats = await engine.statistics()
        return stats.oneShotsCancelled + stats.subscriptionsCancelled
    }

    func pendingCount() async -> Int { await engine.pendingRequests() }

    func sourceCounters() async -> (starts: Int, stops: Int, modeChanges: Int) {
        let stats = await engine.statistics()
        return (stats.sourceStarts, stats.sourceStops, stats.sourceModeChanges)
    }

    func authorizationPrompts() async -> Int {
        let stats = await engine.statistics()
        return stats.authorizationRequests + stats.fullAccuracyRequests
    }
}

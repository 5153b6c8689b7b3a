import NIOConcurrencyHelpers

extension LocationEngine {
    /// The timeout of a one-shot request that names none: 30 seconds.
    public nonisolated static var defaultTimeout: Duration { .seconds(30) }

    // MARK: One location

    /// Asks for one location and waits for its result. Every ending except cancellation is a returned
    /// ``LocationResult`` whose ``LocationResult/status`` says what happened.
    ///
    /// - Parameters:
    ///   - accuracy: what the fix must meet, in accuracy and recency.
    ///   - timeout: how long to wait, counted from this call (default 30 s); `nil` or zero waits until a
    ///     fix arrives or the request is ended.
    ///   - delayUntilAuthorized: start the timeout when authorization resolves rather than now.
    ///   - purposeKey: a declared temporary-full-accuracy purpose key: under reduced accuracy, a request
    ///     finer than coarsened fixes asks for temporary full accuracy once with it (instead of ending
    ///     with ``LocationStatus/accuracyReduced``). An undeclared key ends the request with
    ///     ``LocationStatus/misconfigured(_:)``.
    /// - Throws: `CancellationError` when the calling task is cancelled (the request is cancelled too).
    ///   To end the request by ID instead, use ``locationRequest(accuracy:timeout:delayUntilAuthorized:purposeKey:)``.
    public nonisolated func location(
        accuracy: LocationAccuracy,
        timeout: Duration? = defaultTimeout,
        delayUntilAuthorized: Bool = false,
        purposeKey: String? = nil
    ) async throws -> LocationResult {
        let submitted = SubmittedID()
        return try await withTaskCancellationHandler {
            try await withUnsafeThrowingContinuation { continuation in
                let madeAt = now()
                let id = submit {
                    Self.oneShotCommand($0, accuracy, timeout, madeAt, delayUntilAuthorized, purposeKey, .continuation(continuation))
                }
                submitted.set(id)
                // A cancellation that raced the submission may have found no ID yet: cancel now.
                if Task.isCancelled { cancel(id) }
            }
        } onCancel: {
            if let id = submitted.get() { cancel(id) }
        }
    }

    /// Asks for one location; `handler` is called exactly once, later and on the engine's executor,
    /// unless the request is cancelled. Returns the request's ID at once, before the request is
    /// processed. The result carries the ID (``LocationResult/requestID``): when the caller runs on
    /// another thread, the handler may run before this call has returned. After the engine has shut
    /// down, the handler runs at once, on the caller's thread, before this call returns
    /// (``LocationStatus/shutDown``): don't hold a lock the handler takes while calling.
    ///
    /// - Parameters: as ``location(accuracy:timeout:delayUntilAuthorized:purposeKey:)``.
    @discardableResult
    @_specialize(exported: true, where C == ContinuousClock)
    public nonisolated func location(
        accuracy: LocationAccuracy,
        timeout: Duration? = defaultTimeout,
        delayUntilAuthorized: Bool = false,
        purposeKey: String? = nil,
        handler: @escaping @Sendable (LocationResult) -> Void
    ) -> RequestID {
        let madeAt = now()
        return submit { Self.oneShotCommand($0, accuracy, timeout, madeAt, delayUntilAuthorized, purposeKey, .callback(handler)) }
    }

    /// Asks for one location and returns a handle at once: its ``LocationRequest/id`` for
    /// ``forceComplete(_:)`` and ``cancel(_:)``, and its ``LocationRequest/result()`` to await.
    ///
    /// - Parameters: as ``location(accuracy:timeout:delayUntilAuthorized:purposeKey:)``.
    public nonisolated func locationRequest(
        accuracy: LocationAccuracy,
        timeout: Duration? = defaultTimeout,
        delayUntilAuthorized: Bool = false,
        purposeKey: String? = nil
    ) -> LocationRequest {
        let slot = LocationRequest.Slot()
        let madeAt = now()
        let id = submit {
            Self.oneShotCommand($0, accuracy, timeout, madeAt, delayUntilAuthorized, purposeKey, .request(slot))
        }
        // The handle holds the engine, as an awaited `location(...)` does: an engine released while a handle is kept
        // would drop the request unanswered, its waiters never resumed.
        return LocationRequest(id: id, slot: slot, cancel: { self.cancel(id) })
    }

    @inline(__always)
    static func oneShotCommand(
        _ id: RequestID, _ accuracy: LocationAccuracy, _ timeout: Duration?, _ madeAt: EngineInstant, _ delay: Bool,
        _ purposeKey: String?, _ handler: OneShotHandler
    ) -> EngineCommand {
        guard delay || purposeKey != nil else { return .oneShot(id, accuracy, timeout: timeout, madeAt: madeAt, handler) }
        return .oneShotWithOptions(
            id, accuracy, timeout: timeout, madeAt: madeAt, delayUntilAuthorized: delay, purposeKey: purposeKey, handler)
    }

    // MARK: Continuous updates

    /// Subscribes to continuous updates as an async sequence. The sequence yields locations (or
    /// headings) and transient source errors; it finishes when the subscription ends normally and
    /// throws ``SubscriptionEndedError`` when it ends abnormally. Ending the iteration (or cancelling
    /// the iterating task) cancels the subscription. Its ``LocationUpdates/id`` ends it by ID.
    ///
    /// - Parameters:
    ///   - options: the subscription's kind, filters and limits.
    ///   - bufferingNewest: how many undelivered events to keep for a slow consumer; older ones are
    ///     dropped (at least 1).
    public nonisolated func updates(
        _ options: SubscriptionOptions = SubscriptionOptions(),
        bufferingNewest: Int = 64
    ) -> LocationUpdates {
        let (stream, continuation) = AsyncThrowingStream<UpdatesSink.Stamped, any Error>.makeStream(
            bufferingPolicy: .bufferingNewest(max(1, bufferingNewest)))
        let sink = UpdatesSink(continuation: continuation, epochs: privacy)
        let madeAt = now()
        let id = submit { .subscribe($0, options, madeAt: madeAt, .stream(sink)) }
        // The sequence holds the engine, as a request's handle does: an engine released while it is read would
        // drop the subscription, and the reading loop would never end. (The engine holds the sequence's end only
        // until the subscription ends, which lets the cycle go.)
        let cancelRequest: @Sendable () -> Void = { self.cancel(id) }
        continuation.onTermination = { termination in
            if case .cancelled = termination { cancelRequest() }
        }
        return LocationUpdates(id: id, stream: stream, epochs: privacy, cancel: cancelRequest)
    }

    /// Subscribes to continuous updates with a callback. Returns the ID at once; `handler` receives,
    /// with the subscription's ID, every update that passes the filters, transient source errors, and
    /// finally one `.ended` event — unless the subscription is cancelled, after which it hears nothing.
    ///
    /// The ID is handed to the handler too because the engine processes requests on its own executor:
    /// a handler may run before this call has returned to a caller on another thread. After the engine
    /// has shut down, the handler hears `.ended(.shutDown)` at once, on the caller's thread, before this
    /// call returns: don't hold a lock the handler takes while calling.
    @discardableResult
    @_specialize(exported: true, where C == ContinuousClock)
    public nonisolated func updates(
        _ options: SubscriptionOptions = SubscriptionOptions(),
        handler: @escaping @Sendable (RequestID, SubscriptionEvent) -> Void
    ) -> RequestID {
        let madeAt = now()
        return submit { .subscribe($0, options, madeAt: madeAt, .callback(handler)) }
    }

    // MARK: Ending requests

    /// Ends a request early: a one-shot receives ``LocationStatus/forceCompleted`` with the best fix
    /// known, a subscription ``SubscriptionEnd/forceCompleted``. Unknown or finished IDs are a no-op.
    /// Issued from a handler, it takes effect before any further delivery.
    @_specialize(exported: true, where C == ContinuousClock)
    public nonisolated func forceComplete(_ id: RequestID) {
        inbox.appendWithdrawal(id, .forceComplete).carryOut()
    }

    /// Cancels a request: nothing more is delivered to a callback; an awaiting task throws
    /// `CancellationError`; a sequence finishes. Unknown or finished IDs are a no-op. Issued from a
    /// handler, it takes effect before any further delivery (a result not yet handed over is dropped).
    @_specialize(exported: true, where C == ContinuousClock)
    public nonisolated func cancel(_ id: RequestID) {
        inbox.appendWithdrawal(id, .cancel).carryOut()
    }

    // MARK: Observation and tests

    /// Processes everything submitted so far and everything due at the clock's current time, then
    /// returns, whether or not ``run()`` is active. With a manual clock this makes tests deterministic
    /// without `run()`: advance the clock, then `sync()`.
    public func sync() {
        driver.authorization.startIfNeeded()
        settle()
    }

    /// Processes everything queued and due, then arms the timer for the next live instant: ``sync()`` without
    /// starting the authorization provider (a shutdown settles so: an engine shut down before it ran starts
    /// nothing).
    func settle() {
        driver.advance()
        timer.arm(inspect { $0.nextWakeup })
    }

    /// When the engine next needs to run on its own (the earliest live deadline, scheduled
    /// authorization change or end of the source's linger), or `nil` when nothing is scheduled.
    /// Virtual-time drivers advance their clock to it.
    public func nextWakeup() -> C.Instant? {
        inspect { $0.nextWakeup }.map(time.instant)
    }

    /// The engine's counters now.
    public func statistics() -> SchedulerStatistics {
        let now = now()
        var statistics = inspect { $0.statistics(now: now) }
        statistics.timerWakeups = timerWakeups.load(ordering: .relaxed)
        statistics.loopWakeups = inbox.parks.load(ordering: .relaxed)
        // Requests made after the shutdown ended on their callers' threads, never reaching the core.
        let refusedOneShots = inbox.refusedOneShots.load(ordering: .relaxed)
        let refusedSubscriptions = inbox.refusedSubscriptions.load(ordering: .relaxed)
        statistics.oneShotsSubmitted += refusedOneShots
        statistics.oneShotsFailed += refusedOneShots
        statistics.subscriptionsSubmitted += refusedSubscriptions
        statistics.subscriptionsEnded += refusedSubscriptions
        return statistics
    }

    /// How many requests are pending — one-shots, subscriptions and region monitors — as of what the engine
    /// has processed (``sync()`` first to include what was submitted). Cheaper than ``statistics()``, which
    /// gathers every counter.
    public func pendingRequests() -> Int {
        inspect { $0.pendingOneShots + $0.activeSubscriptions }
    }

    /// The newest fix the engine may reveal, without making a request (nil unless authorized), as of
    /// what the engine has processed (``sync()`` first to include what is already due).
    public func lastKnownLocation() -> LocationResult? {
        let now = now()
        return inspect { $0.lastKnownLocation(now: now) }
    }

    /// Why a request ending now would get nothing better than what is known (``EndingReason``): fixes short of
    /// the accuracy, a source's error since its last fix, a source still waiting for its first fix, or no fix
    /// at all — the reason a one-shot that times out carries, for a caller whose own wait ended.
    public func whyNoAnswer() -> EndingReason {
        let now = now()
        return inspect { $0.whyNoAnswer(now: now) }
    }
}

/// The ID of a request submitted from inside `withUnsafeThrowingContinuation`, read by a
/// cancellation handler that may run concurrently on another thread.
private final class SubmittedID: Sendable {
    private let value = NIOLockedValueBox<RequestID?>(nil)
    func set(_ id: RequestID) { value.withLockedValue { $0 = id } }
    func get() -> RequestID? { value.withLockedValue { $0 } }
}

import NIOConcurrencyHelpers

extension LocationEngine {
    // MARK: Callback API (INTULocationManager parity)

    /// Asks for one location (SEMANTICS §3). Returns the request's ID at once, before the request is
    /// processed; `handler` is called exactly once, later and on the engine's executor, unless the
    /// request is cancelled. The result carries the ID (``LocationResult/requestID``): when the caller
    /// runs on another thread, the handler may run before this call has returned.
    ///
    /// - Parameters:
    ///   - accuracy: what the fix must meet, in accuracy and recency.
    ///   - timeout: how long to wait; `nil` or zero waits until a fix arrives or the request is ended.
    ///   - delayUntilAuthorized: start the timeout when authorization resolves rather than now.
    ///   - handler: receives the one result.
    ///   - purposeKey: a declared temporary-full-accuracy purpose key: under reduced accuracy, a request
    ///     finer than coarsened fixes asks for temporary full accuracy once with it (instead of ending
    ///     with ``LocationStatus/accuracyReduced``). An undeclared key ends the request with
    ///     ``LocationStatus/misconfigured(_:)``.
    @discardableResult
    public nonisolated func requestLocation(
        accuracy: LocationAccuracy,
        timeout: Duration?,
        delayUntilAuthorized: Bool = false,
        purposeKey: String? = nil,
        handler: @escaping @Sendable (LocationResult) -> Void
    ) -> RequestID {
        submit { Self.oneShotCommand($0, accuracy, timeout, delayUntilAuthorized, purposeKey, .callback(handler)) }
    }

    @inline(__always)
    static func oneShotCommand(
        _ id: RequestID, _ accuracy: LocationAccuracy, _ timeout: Duration?, _ delay: Bool, _ purposeKey: String?, _ handler: OneShotHandler
    ) -> EngineCommand {
        guard let purposeKey else { return .oneShot(id, accuracy, timeout: timeout, delayUntilAuthorized: delay, handler) }
        return .oneShotWithPurposeKey(id, accuracy, timeout: timeout, delayUntilAuthorized: delay, purposeKey: purposeKey, handler)
    }

    /// Subscribes to continuous updates (SEMANTICS §4). Returns the ID at once; `handler` receives, with
    /// the subscription's ID, every update that passes the filters, transient source errors, and finally
    /// one `.ended` event — unless the subscription is cancelled, after which it hears nothing.
    ///
    /// The ID is handed to the handler too because the engine processes requests on its own executor:
    /// a handler may run before the `subscribe` call has returned to a caller on another thread.
    @discardableResult
    public nonisolated func subscribe(
        _ options: SubscriptionOptions = SubscriptionOptions(),
        handler: @escaping @Sendable (RequestID, SubscriptionEvent) -> Void
    ) -> RequestID {
        submit { .subscribe($0, options, .callback(handler)) }
    }

    /// Ends a request early: a one-shot receives ``LocationStatus/forceCompleted`` with the best fix
    /// known, a subscription ``SubscriptionEnd/forceCompleted``. Unknown or finished IDs are a no-op.
    public nonisolated func forceComplete(_ id: RequestID) {
        submit(.forceComplete(id))
    }

    /// Cancels a request: nothing more is delivered to a callback; an awaiting task throws
    /// `CancellationError`; a sequence finishes. Unknown or finished IDs are a no-op.
    public nonisolated func cancel(_ id: RequestID) {
        submit(.cancel(id))
    }

    /// Ends every pending request with ``LocationStatus/shutDown`` / ``SubscriptionEnd/shutDown``,
    /// powers the source down, and refuses later requests the same way.
    public nonisolated func shutdown() {
        submit(.shutdown)
    }

    // MARK: async/await API

    /// Asks for one location and waits for its result (SEMANTICS §3). Every ending except cancellation
    /// is a returned ``LocationResult`` whose ``LocationResult/status`` says what happened.
    ///
    /// - Throws: `CancellationError` when the calling task is cancelled (the request is cancelled too).
    /// - Parameters: as ``requestLocation(accuracy:timeout:delayUntilAuthorized:purposeKey:handler:)``.
    public nonisolated func location(
        accuracy: LocationAccuracy,
        timeout: Duration?,
        delayUntilAuthorized: Bool = false,
        purposeKey: String? = nil
    ) async throws -> LocationResult {
        let submitted = SubmittedID()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let id = submit {
                    Self.oneShotCommand($0, accuracy, timeout, delayUntilAuthorized, purposeKey, .continuation(continuation))
                }
                submitted.set(id)
                // A cancellation that raced the submission may have found no ID yet: cancel now.
                if Task.isCancelled { cancel(id) }
            }
        } onCancel: {
            if let id = submitted.get() { cancel(id) }
        }
    }

    /// Subscribes to continuous updates as an async sequence (SEMANTICS §4). The sequence yields
    /// locations (or headings) and transient source errors; it finishes when the subscription ends
    /// normally and throws ``SubscriptionEndedError`` when it ends abnormally. Ending the iteration
    /// (or cancelling the iterating task) cancels the subscription.
    ///
    /// - Parameter bufferingNewest: how many undelivered events to keep for a slow consumer; older
    ///   ones are dropped (at least 1).
    public nonisolated func updates(
        _ options: SubscriptionOptions = SubscriptionOptions(),
        bufferingNewest: Int = 64
    ) -> LocationUpdates {
        let (stream, continuation) = AsyncThrowingStream<SubscriptionEvent, any Error>.makeStream(
            bufferingPolicy: .bufferingNewest(max(1, bufferingNewest)))
        let id = submit { .subscribe($0, options, .stream(continuation)) }
        continuation.onTermination = { [weak self] termination in
            if case .cancelled = termination { self?.cancel(id) }
        }
        return LocationUpdates(id: id, stream: stream)
    }

    // MARK: Observation and tests

    /// Processes everything submitted so far and everything due at the clock's current time, then
    /// returns. With a manual clock this makes tests deterministic: advance the clock, then `sync()`.
    public func sync() {
        advance()
    }

    /// When the engine next needs to run on its own (the earliest deadline or the end of the source's
    /// linger), or `nil` when nothing is scheduled. Virtual-time drivers advance their clock to it.
    public func nextDeadline() -> C.Instant? {
        nextWakeup.map { epoch.advanced(by: $0.sinceEpoch) }
    }

    /// The engine's counters now.
    public func statistics() -> SchedulerStatistics {
        machine.statistics(now: now())
    }

    /// The newest fix the engine may reveal, without making a request (nil unless authorized).
    public func lastKnownLocation() -> LocationResult? {
        let now = now()
        applyDueAuthorizationChanges(upTo: now)  // a reduction or revocation already due applies first
        return machine.lastKnownLocation(now: now)
    }
}

/// The ID of a request submitted from inside `withCheckedThrowingContinuation`, read by a
/// cancellation handler that may run concurrently on another thread.
private final class SubmittedID: Sendable {
    private let value = NIOLockedValueBox<RequestID?>(nil)
    func set(_ id: RequestID) { value.withLockedValue { $0 = id } }
    func get() -> RequestID? { value.withLockedValue { $0 } }
}

/// The updates of one subscription, as an `AsyncSequence` (see ``LocationEngine/updates(_:bufferingNewest:)``).
public struct LocationUpdates: AsyncSequence, Sendable {
    public typealias Element = SubscriptionEvent

    /// The subscription's ID, for ``LocationEngine/forceComplete(_:)`` and ``LocationEngine/cancel(_:)``.
    public let id: RequestID
    let stream: AsyncThrowingStream<SubscriptionEvent, any Error>

    /// The iterator.
    public struct AsyncIterator: AsyncIteratorProtocol {
        var base: AsyncThrowingStream<SubscriptionEvent, any Error>.AsyncIterator

        public mutating func next() async throws -> SubscriptionEvent? {
            try await base.next()
        }
    }

    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(base: stream.makeAsyncIterator())
    }
}

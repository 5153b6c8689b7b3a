/// The engine's side of one buffered sequence — a subscription's ``LocationUpdates`` or a monitor's
/// ``RegionUpdates``: events go into its buffer stamped with the ``PrivacyEpochs`` of their moment, so
/// the reader can drop or coarsen what access no longer allows; an end finishes it.
final class StampedSink<Event: Sendable>: Sendable {
    /// One buffered event and the access it was delivered under.
    struct Stamped: Sendable {
        var event: Event
        var stamp: PrivacyEpochs.Stamp
    }

    let continuation: AsyncThrowingStream<Stamped, any Error>.Continuation
    let epochs: PrivacyEpochs

    init(continuation: AsyncThrowingStream<Stamped, any Error>.Continuation, epochs: PrivacyEpochs) {
        self.continuation = continuation
        self.epochs = epochs
    }

    /// Buffers an event, stamped with the access of this moment.
    func yield(_ event: Event) {
        continuation.yield(Stamped(event: event, stamp: epochs.stamp))
    }

    /// Finishes the sequence (the request was cancelled).
    func finish() { continuation.finish() }
}

/// A subscription's sink.
typealias UpdatesSink = StampedSink<SubscriptionEvent>

extension StampedSink where Event == SubscriptionEvent {
    /// Buffers an event; an `.ended` event finishes the sequence (throwing for abnormal ends).
    func deliver(_ event: SubscriptionEvent) {
        guard case .ended(let end) = event else { return yield(event) }
        continuation.finish(ending: end)
    }
}

extension AsyncThrowingStream.Continuation where Failure == any Error {
    /// Finishes the sequence of a request that ended with `end`: throwing ``SubscriptionEndedError``
    /// for an abnormal end, plainly for a normal one.
    func finish(ending end: SubscriptionEnd) {
        if let error = SubscriptionEndedError(end) {
            finish(throwing: error)
        } else {
            finish()
        }
    }
}

/// The updates of one subscription, as an `AsyncSequence` (see ``LocationEngine/updates(_:bufferingNewest:)``).
///
/// Events already buffered when location access drops never reach the reader finer than the access
/// it has when it reads them: after a switch to reduced accuracy they are coarsened (headings are
/// dropped), after access is lost they are dropped; the end of the subscription always arrives.
public struct LocationUpdates: AsyncSequence, Sendable {
    public typealias Element = SubscriptionEvent

    /// The subscription's ID, for ``LocationEngine/forceComplete(_:)`` and ``LocationEngine/cancel(_:)``.
    public let id: RequestID
    let stream: AsyncThrowingStream<UpdatesSink.Stamped, any Error>
    let epochs: PrivacyEpochs
    /// Cancels the request: run when an iterator made from this sequence goes.
    let cancel: @Sendable () -> Void

    /// The iterator.
    public struct AsyncIterator: AsyncIteratorProtocol {
        var base: AsyncThrowingStream<UpdatesSink.Stamped, any Error>.AsyncIterator
        let epochs: PrivacyEpochs
        /// Cancels the request when the iterator goes (the loop over it left early).
        let lease: IterationLease

        public mutating func next() async throws -> SubscriptionEvent? {
            while let stamped = try await base.next() {
                if let event = epochs.admit(stamped.event, deliveredAt: stamped.stamp) { return event }
            }
            return nil
        }
    }

    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(base: stream.makeAsyncIterator(), epochs: epochs, lease: IterationLease(cancel: cancel))
    }
}

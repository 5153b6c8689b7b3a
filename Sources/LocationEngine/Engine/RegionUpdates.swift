/// A monitor's sink: its transitions.
typealias RegionSink = StampedSink<GeofenceEvent>

extension StampedSink where Event == GeofenceEvent {
    /// Buffers a transition, or finishes the sequence on an `.ended` event (throwing for abnormal ends);
    /// source errors are not part of a sequence of transitions.
    func deliver(_ event: RegionEvent) {
        switch event {
        case .transition(let transition): yield(transition)
        case .sourceError: break
        case .ended(let end): continuation.finish(ending: end)
        }
    }
}

/// The transitions of one monitored region, as an `AsyncSequence` (see
/// ``LocationEngine/monitor(_:options:bufferingNewest:)``). It finishes when the monitor ends normally
/// and throws ``SubscriptionEndedError`` when it ends abnormally; transitions buffered when location
/// access is lost are dropped unread.
public struct RegionUpdates: AsyncSequence, Sendable {
    public typealias Element = GeofenceEvent

    /// The monitor's ID, for ``LocationEngine/forceComplete(_:)`` and ``LocationEngine/cancel(_:)``.
    public let id: RequestID
    let stream: AsyncThrowingStream<RegionSink.Stamped, any Error>
    let epochs: PrivacyEpochs
    /// Cancels the request: run when an iterator made from this sequence goes.
    let cancel: @Sendable () -> Void

    /// The iterator.
    public struct AsyncIterator: AsyncIteratorProtocol {
        var base: AsyncThrowingStream<RegionSink.Stamped, any Error>.AsyncIterator
        let epochs: PrivacyEpochs
        /// Cancels the request when the iterator goes (the loop over it left early).
        let lease: IterationLease

        public mutating func next() async throws -> GeofenceEvent? {
            while let stamped = try await base.next() {
                if epochs.stamp.revocations == stamped.stamp.revocations { return stamped.event }
            }
            return nil
        }
    }

    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(base: stream.makeAsyncIterator(), epochs: epochs, lease: IterationLease(cancel: cancel))
    }
}

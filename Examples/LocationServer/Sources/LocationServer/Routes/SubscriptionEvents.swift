import LocationEngine
import NIOConcurrencyHelpers

/// One subscription's events as an async sequence that ends with the subscription's `.ended(reason)`,
/// whatever the reason.
///
/// The engine's own sequence (`LocationEngine.updates(_:bufferingNewest:)`) finishes without a
/// reason on the normal endings (maximum updates, duration, force-complete); a server must name
/// every ending, so this bridges the engine's callback form, which hands over every ending exactly
/// once. Ending the iteration early does not cancel the subscription: call ``cancel()``.
struct SubscriptionEvents: AsyncSequence, Sendable {
    /// An event, and the engine's instant when it was delivered (a reader may take it up later: the update's
    /// age is counted to the delivery).
    struct Delivered: Sendable {
        let event: SubscriptionEvent
        let at: EngineInstant
    }

    typealias Element = Delivered

    /// The subscription's ID.
    let id: RequestID
    private let stream: AsyncStream<Delivered>
    private let continuation: AsyncStream<Delivered>.Continuation
    private let cancelSubscription: @Sendable () -> Void
    private let skippedCount: NIOLockedValueBox<Int>

    /// Subscribes to `engine` with `options`; a slow reader keeps the newest `bufferingNewest` events
    /// (the ending is always the newest, so it is never dropped), and the older ones it skips are counted
    /// (``skipped``).
    init<C: Clock>(_ engine: LocationEngine<C>, options: SubscriptionOptions, bufferingNewest: Int = 64)
    where C.Duration == Duration {
        let (stream, continuation) = AsyncStream<Delivered>.makeStream(bufferingPolicy: .bufferingNewest(Swift.max(1, bufferingNewest)))
        let skipped = NIOLockedValueBox(0)
        let id = engine.updates(options) { _, event in
            if case .dropped = continuation.yield(Delivered(event: event, at: engine.currentInstant())) {
                skipped.withLockedValue { $0 += 1 }
            }
            if case .ended = event { continuation.finish() }
        }
        skippedCount = skipped
        self.id = id
        self.stream = stream
        self.continuation = continuation
        cancelSubscription = { engine.cancel(id) }
    }

    /// Cancels the subscription (a no-op once it has ended) and finishes the sequence: a cancelled
    /// subscription hears nothing more, so no `.ended` follows.
    func cancel() {
        cancelSubscription()
        continuation.finish()
    }

    /// Events a reader slower than them did not get: the oldest waiting, dropped for newer ones.
    var skipped: Int { skippedCount.withLockedValue { $0 } }

    func makeAsyncIterator() -> AsyncStream<Delivered>.AsyncIterator { stream.makeAsyncIterator() }
}

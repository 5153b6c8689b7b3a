/// How the run samples its pending count over time: one point per 100 ms of the timeline that saw an event.
public enum PendingTimeline {
    /// The width of one sample's bucket, in nanoseconds of the run's timeline.
    public static let bucketNanoseconds: Int64 = 100_000_000

    /// The points to reserve before the heap baseline (so their growth does not count as memory of pending
    /// requests): one per bucket of the span, but no more than events can fill — samples are taken at
    /// operations and deliveries, never in an empty bucket, and a run whose arrivals are years apart would
    /// otherwise reserve gigabytes it never uses.
    /// - Parameters:
    ///   - span: nanoseconds from the start to the last operation.
    ///   - operations: the plan's operations.
    public static func capacity(span: Int64, operations: Int) -> Int {
        let buckets = max(0, span) / bucketNanoseconds
        return Int(min(buckets, Int64(operations) * 4)) + 4_096
    }
}

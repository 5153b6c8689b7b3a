/// How the run samples its pending count over time: one point per 100 ms of the timeline that saw an event.
public enum PendingTimeline {
    /// The width of one sample's bucket, in nanoseconds of the run's timeline.
    public static let bucketNanoseconds: Int64 = 100_000_000

    /// The points to reserve before the heap baseline (so their growth does not count as memory of pending
    /// requests): one per bucket of the span — the run samples every bucket while anything is pending or the
    /// source is on — but at most ``maximumReserved`` (32 MiB): a run whose arrivals are years apart would
    /// otherwise reserve gigabytes, where it samples only its busy stretches.
    /// - Parameter span: nanoseconds from the start to the last operation.
    public static func capacity(span: Int64) -> Int {
        Int(min(max(0, span) / bucketNanoseconds, Int64(maximumReserved))) + 4_096
    }

    /// The most points reserved ahead: 2²¹, a day at 100 ms and more.
    public static let maximumReserved = 1 << 21
}

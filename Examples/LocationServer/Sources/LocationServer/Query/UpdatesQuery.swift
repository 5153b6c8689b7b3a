import LocationEngine

/// The parameters of `GET /updates`: `kind`, `accuracy` with `maxAge`, `distance`, `interval`,
/// `duration` and `maxUpdates` (see ``SubscriptionOptions``).
struct UpdatesQuery: Equatable, Sendable {
    /// The parameters `/updates` accepts.
    static let accepted: Set<String> = ["kind", "accuracy", "maxAge", "distance", "interval", "duration", "maxUpdates"]

    /// The subscription's options.
    var options: SubscriptionOptions

    /// Reads the parameters; each value is checked on its own, then the combinations that cannot
    /// work are refused.
    /// - Throws: ``QueryError`` naming the parameter at fault.
    init(_ query: QueryParameters) throws(QueryError) {
        let kind = try query.value("kind", .kind)
        let accuracy = try query.value("accuracy", .accuracy)
        let maximumAge = try query.value("maxAge", .duration(allowingZero: true))
        let distance = try query.value("distance", .distance)
        let interval = try query.value("interval", .duration(allowingZero: true))
        let duration = try query.value("duration", .duration(allowingZero: false))
        let maximumUpdates = try query.value("maxUpdates", .count)

        if maximumAge != nil, accuracy == nil {
            throw QueryError(
                parameter: "maxAge", "maxAge applies to accuracy: give accuracy too (without it every fix is delivered, whatever its age)")
        }
        if let interval, interval > .zero, let duration, let maximumUpdates, maximumUpdates > 1,
            Self.endsFirst(duration, interval: interval, updates: maximumUpdates)
        {
            throw QueryError(
                parameter: "maxUpdates",
                "maxUpdates=\(maximumUpdates) cannot be reached: with interval=\(query.text("interval") ?? "") between "
                    + "updates, duration=\(query.text("duration") ?? "") ends the subscription first")
        }
        options = SubscriptionOptions(
            kind: kind ?? .standard,
            accuracy: accuracy.map { LocationAccuracy($0, maximumAge: maximumAge) },
            distanceFilter: distance ?? 0,
            minimumInterval: interval ?? .zero,
            maximumUpdates: maximumUpdates,
            duration: duration)
        // Every value was checked above; the engine's own check is the last word.
        if let failure = options.validationFailure { throw QueryError(parameter: "query", failure) }
    }

    /// Whether `duration` ends a subscription before its `updates`-th update, `interval` apart, can come:
    /// `interval × (updates − 1) ≥ duration`, exactly, without multiplying a count of up to `Int.max` by
    /// a duration (which traps past 128 bits): a count beyond the quotient rounded up is too many at once.
    static func endsFirst(_ duration: Duration, interval: Duration, updates: Int) -> Bool {
        let gaps = updates - 1
        if Double(gaps) > (duration / interval).rounded(.up) + 1 { return true }
        return interval * gaps >= duration
    }
}

import LocationEngine

/// The parameters of `GET /location`: `accuracy` (default `block`), `maxAge` (the oldest a fix may
/// be, for a level or custom metres alike) and `timeout` (default 30 s).
struct LocationQuery: Equatable, Sendable {
    /// The parameters `/location` accepts.
    static let accepted: Set<String> = ["accuracy", "maxAge", "timeout"]
    /// The timeout of a request that names none.
    static let defaultTimeout: Duration = .seconds(30)

    /// What the fix must meet.
    var accuracy: LocationAccuracy
    /// How long to wait.
    var timeout: Duration

    /// Reads the parameters; each value is checked on its own.
    /// - Throws: ``QueryError`` naming the parameter at fault.
    init(_ query: QueryParameters) throws(QueryError) {
        let accuracy = try query.value("accuracy", .accuracy)
        let maximumAge = try query.value("maxAge", .duration(allowingZero: true))
        let timeout = try query.value("timeout", .duration(allowingZero: false))
        self.accuracy = LocationAccuracy(accuracy ?? .level(.block), maximumAge: maximumAge)
        self.timeout = timeout ?? Self.defaultTimeout
    }
}

extension LocationAccuracy {
    /// The maximum age of custom metres that name none.
    static let defaultCustomMaximumAge: Duration = .seconds(60)

    /// A level or custom metres, with `maximumAge` instead of the level's own recency (or, for
    /// metres, instead of 60 s) when one is given.
    init(_ text: AccuracyText, maximumAge: Duration?) {
        switch text {
        case .level(let level):
            if let maximumAge, maximumAge != level.maximumAge {
                self = .custom(metres: level.horizontalAccuracy, maximumAge: maximumAge)
            } else {
                self.init(level)
            }
        case .metres(let metres):
            self = .custom(metres: metres, maximumAge: maximumAge ?? Self.defaultCustomMaximumAge)
        }
    }
}

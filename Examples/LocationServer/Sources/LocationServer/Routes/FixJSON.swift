import LocationEngine

/// A fix as JSON: position, accuracy radius (68 %, metres) and its age when sent (seconds).
struct FixJSON: Codable, Equatable {
    var latitude: Double
    var longitude: Double
    var horizontalAccuracy: Double
    var altitude: Double?
    var speed: Double?
    var course: Double?
    var age: Double?

    init(_ location: Location, age: Duration?) {
        latitude = location.latitude
        longitude = location.longitude
        horizontalAccuracy = location.horizontalAccuracy
        altitude = location.altitude
        speed = location.speed
        course = location.course
        self.age = age.map { Double($0.components.seconds) + Double($0.components.attoseconds) * 1e-18 }
    }
}

extension LocationStatus {
    /// The status as it appears in responses and in the engine's `outcome` metric dimension.
    var name: String {
        switch self {
        case .success: "success"
        case .timedOut: "timed_out"
        case .forceCompleted: "force_completed"
        case .failed: "failed"
        case .unauthorized: "unauthorized"
        case .accuracyReduced: "accuracy_reduced"
        case .misconfigured: "misconfigured"
        case .rejected: "rejected"
        case .shutDown: "shut_down"
        }
    }
}

extension SubscriptionEnd {
    /// The ending as it appears in the final server-sent event and in the engine's metrics.
    var name: String {
        switch self {
        case .maximumUpdatesReached: "maximum_updates_reached"
        case .durationElapsed: "duration_elapsed"
        case .forceCompleted: "force_completed"
        case .failed: "failed"
        case .headingUnavailable: "heading_unavailable"
        case .unauthorized: "unauthorized"
        case .accuracyReduced: "accuracy_reduced"
        case .misconfigured: "misconfigured"
        case .rejected: "rejected"
        case .shutDown: "shut_down"
        }
    }
}

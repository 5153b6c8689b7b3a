extension LocationStatus {
    /// The status's name in the engine's metrics (the `outcome` dimension of
    /// `locationengine_requests_ended`), stable across releases: `success`, `timed_out`,
    /// `force_completed`, `failed`, `unauthorized`, `accuracy_reduced`, `misconfigured`, `rejected`,
    /// `shut_down`. Use it wherever a status is named to machines (JSON, logs, dashboards).
    public var outcome: String {
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
    /// The ending's name in the engine's metrics (the `outcome` dimension of
    /// `locationengine_requests_ended` for subscriptions), stable across releases:
    /// `maximum_updates_reached`, `duration_elapsed`, `force_completed`, `failed`,
    /// `heading_unavailable`, `unauthorized`, `accuracy_reduced`, `misconfigured`, `rejected`, `shut_down`.
    public var outcome: String {
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

/// What a region monitor's callback receives (see <doc:Geofences>).
public enum RegionEvent: Sendable, Hashable {
    /// A transition of the region.
    case transition(GeofenceEvent)
    /// A transient source error; the monitor keeps running.
    case sourceError(SourceError)
    /// The monitor ended; nothing follows. Delivered exactly once, unless it was cancelled.
    case ended(SubscriptionEnd)
}

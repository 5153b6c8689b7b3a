/// A region's state as an earlier monitor of it left it: what a program that keeps its fences across
/// restarts stores with each fence, and gives back in ``GeofenceOptions/restoredState`` when it monitors
/// the fence again (see <doc:Geofences>).
///
/// A region restored ``GeofenceState/inside`` or ``GeofenceState/outside`` starts in that state instead
/// of ``GeofenceState/unknown``: the first fix that decides it reports nothing when the state is the
/// same, and ``GeofenceTransition/entered`` or ``GeofenceTransition/exited`` (marked
/// ``GeofenceEvent/againstRestoredState``) when it changed, never ``GeofenceTransition/determined(_:)``.
/// A region restored ``GeofenceState/unknown`` starts as a new one does, except that one whose stay inside had
/// dwelled before it became unknown (``dwelled``) does not dwell again when the first fix finds it inside.
public struct GeofenceRestoredState: Sendable, Hashable {
    /// The state the region was in.
    public var state: GeofenceState
    /// Since when it was in that state, on the new engine's timeline (an instant before the engine
    /// started is negative: ``EngineInstant/init(nanoseconds:)``). A restored ``GeofenceState/inside``
    /// region with a loitering delay that has not dwelled dwells at this instant plus the delay — at once
    /// when that has passed. An instant after the region is monitored (a wall clock set back between the runs)
    /// counts as that moment.
    public var since: EngineInstant
    /// Whether the region already reported ``GeofenceTransition/dwelled`` for this stay inside — for a region
    /// restored ``GeofenceState/unknown``, for the stay it was in before it became unknown.
    public var dwelled: Bool

    /// Creates a restored state.
    public init(_ state: GeofenceState, since: EngineInstant, dwelled: Bool = false) {
        self.state = state
        self.since = since
        self.dwelled = dwelled
    }
}

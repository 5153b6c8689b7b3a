/// What the engine knows about the device and one region.
public enum GeofenceState: UInt8, Sendable, Hashable, CustomStringConvertible {
    /// No confident fix decided it yet, or none did for ``GeofenceConfiguration/unknownAfter``.
    case unknown
    /// The last confident fix put the device inside.
    case inside
    /// The last confident fix put the device outside.
    case outside

    public var description: String {
        switch self {
        case .unknown: "unknown"
        case .inside: "inside"
        case .outside: "outside"
        }
    }
}

/// A change in what the engine knows about one region (see <doc:Geofences>).
public enum GeofenceTransition: Sendable, Hashable, CustomStringConvertible {
    /// The first confident fix decided the region, or the first after it was unknown: the state is now
    /// ``GeofenceState/inside`` or ``GeofenceState/outside``.
    case determined(GeofenceState)
    /// The device went from outside to inside. Also the first half of a crossing between two sparse fixes.
    case entered
    /// The device went from inside to outside. Also the second half of a crossing between two sparse fixes.
    case exited
    /// The device has been inside for the region's loitering delay.
    case dwelled
    /// No confident fix decided the region for ``GeofenceConfiguration/unknownAfter``.
    case becameUnknown

    /// The state the region is in after this transition.
    public var state: GeofenceState {
        switch self {
        case .determined(let state): state
        case .entered, .dwelled: .inside
        case .exited: .outside
        case .becameUnknown: .unknown
        }
    }

    public var description: String {
        switch self {
        case .determined(let state): "determined(\(state))"
        case .entered: "entered"
        case .exited: "exited"
        case .dwelled: "dwelled"
        case .becameUnknown: "becameUnknown"
        }
    }
}

/// One transition of one monitored region.
public struct GeofenceEvent: Sendable, Hashable, CustomStringConvertible {
    /// The region's request.
    public var id: RequestID
    /// What happened.
    public var transition: GeofenceTransition
    /// When it was decided, on the engine's timeline: the instant of the fix, or the deadline of a dwell
    /// or of the unknown timeout.
    public var at: EngineInstant
    /// For ``GeofenceTransition/entered`` and ``GeofenceTransition/exited``: when the device most likely
    /// crossed the boundary, never before the last fix that was confidently on the old side nor after
    /// ``at`` (see <doc:Geofences>). A confident decision needs the device some way past the boundary, so
    /// ``at`` comes later than the crossing by that travel; this is the crossing itself, estimated from the
    /// fixes in between. `nil` for the other transitions.
    public var estimatedCrossing: EngineInstant?
    /// Whether this ``GeofenceTransition/entered`` or ``GeofenceTransition/exited`` was decided against a
    /// restored state (``GeofenceOptions/restoredState``) by the first fix that decided the region after
    /// it was restored: the device crossed before that fix — while no monitor was running, or since the
    /// restore — and ``estimatedCrossing`` is `nil`, no fix having seen it on the old side.
    public var againstRestoredState: Bool

    /// Creates an event.
    public init(
        id: RequestID, transition: GeofenceTransition, at: EngineInstant, estimatedCrossing: EngineInstant? = nil,
        againstRestoredState: Bool = false
    ) {
        self.id = id
        self.transition = transition
        self.at = at
        self.estimatedCrossing = estimatedCrossing
        self.againstRestoredState = againstRestoredState
    }

    public var description: String {
        let text = estimatedCrossing.map { "\(id) \(transition) at \(at) (crossed at \($0))" } ?? "\(id) \(transition) at \(at)"
        return againstRestoredState ? text + " (against the restored state)" : text
    }
}

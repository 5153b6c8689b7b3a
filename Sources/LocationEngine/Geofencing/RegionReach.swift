/// How soon any monitored boundary could be reached from a fix: the geometry the monitors' power demand
/// is drawn from (see <doc:Geofences>).
///
/// The *slack* is the distance from the fix to the nearest boundary of any region, inside or out, less
/// the distance a fix must be across a boundary to decide it (the fix's confidence circle and the
/// hysteresis margin, ``GeofenceConfiguration``): as far as the device can have moved towards a
/// boundary without any region's state being in doubt. At ``GeofenceConfiguration/maximumSpeed`` that
/// takes ``timeToReach``:
///
/// ```
/// slack       = distance to the nearest boundary − (confidenceScale × accuracy + margin)
/// timeToReach = slack / maximumSpeed
/// ```
///
/// With ``GeofenceConfiguration/maximumAcceleration`` and a fix that reports its speed, `timeToReach` is
/// the least time to cover the slack speeding up from that speed to the maximum one.
public struct RegionReach: Sendable, Hashable {
    /// The distance in metres from the fix to the nearest boundary, or the search limit when no boundary
    /// lies within it.
    public var distance: Double
    /// The distance less what a fix must be across a boundary to decide it, in metres (never negative).
    public var slack: Double
    /// How long the device needs, at the maximum speed (and acceleration), to cover the slack.
    public var timeToReach: Duration

    /// The longest a reach looks ahead: one hour. A boundary farther than an hour's travel is searched
    /// no further (the search grows with the distance) and counts as an hour away, so one sleep lasts at
    /// most about an hour, well within the two hours or so a receiver's ephemerides stay valid.
    public static let horizon = Duration.seconds(3600)
}

extension RegionEvaluator {
    /// How soon a boundary could be reached from `fix`, the fix the evaluator last took; `nil` when no
    /// region is monitored, or when some region's state is in doubt — unknown, or left undecided by the
    /// last fix — since only a confident fix can settle it.
    ///
    /// - Complexity: O(log(d / 250 m)) grid queries for the nearest boundary d metres away (see
    ///   ``distanceToNearestBoundary(from:within:)``), searched no farther than ``RegionReach/horizon``
    ///   at the maximum speed.
    public mutating func reach(from fix: Location) -> RegionReach? {
        guard !slots.isEmpty, unknownSlots.isEmpty, undecidedSlots.isEmpty, fix.isValid else { return nil }
        let speed = configuration.maximumSpeed
        let decision = configuration.decisionDistance(accuracy: fix.horizontalAccuracy)
        let limit = decision + speed * Double(RegionReach.horizon.components.seconds)
        let distance = distanceToNearestBoundary(from: GeoPoint(fix), within: limit) ?? limit
        let slack = max(0, distance - decision)
        let seconds = configuration.timeToTravel(slack, from: fix.speed)
        return RegionReach(distance: distance, slack: slack, timeToReach: .nanoseconds(Int64((seconds * 1e9).rounded(.down))))
    }
}

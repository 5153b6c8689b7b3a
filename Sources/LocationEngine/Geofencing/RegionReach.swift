/// How soon any monitored region could want a fix: the geometry the monitors' power demand is drawn
/// from (see <doc:Geofences>).
///
/// Two distances from the fix, each with the time the device needs to cover it at
/// ``GeofenceConfiguration/maximumSpeed``:
///
/// - The *slack*: the distance to the nearest boundary of any region, inside or out, less the distance
///   a fix must be across a boundary to decide it (the fix's confidence circle and the hysteresis
///   margin, ``GeofenceConfiguration``): as far as the device can move towards a boundary without any
///   region's state being in doubt (``timeToReach``).
/// - The *decision slack*: as far as the device must move before the truth could be decidable against
///   some region's state — the decision distance across the boundary, on the side the region is not
///   in. The truth lies within the fix's confidence circle, so for a region the fix decided it is the
///   distance to its boundary plus the hysteresis margin. For one the fix left in doubt, the fix that
///   decides may be more accurate than this one, so it is as far as the truth must still go to be the
///   smallest margin across (what a fix of any accuracy needs): that margin less the fix's confidence
///   radius, less how far the fix lies across the boundary from the region's state (from the nearer
///   side, for an unknown region) (``timeToDecidable``). No transition can be owed before then: the
///   power planner plans the next fix by it. (The decided regions' slack still takes the deciding fix
///   to be as accurate as this one: a more accurate one could decide `confidenceScale` × accuracy less
///   the margin sooner. Far from a boundary that is a small share of the travel; in doubt it is all of
///   it, so there the plan allows for it.)
///
/// ```
/// slack          = distance to the nearest boundary − (confidenceScale × accuracy + margin)
/// decisionSlack  = distance to the nearest boundary + margin            (every region decided)
///                = minimumMargin − confidenceScale × accuracy
///                  − how far the fix is across towards the other side  (a region in doubt)
/// ```
///
/// With ``GeofenceConfiguration/maximumAcceleration`` and a fix that reports its speed (measured, not derived from two fixes), each time is the
/// least time to cover its distance speeding up from that speed to the maximum one.
public struct RegionReach: Sendable, Hashable {
    /// The distance in metres from the fix to the nearest boundary, or the search limit when no boundary
    /// lies within it.
    public var distance: Double
    /// The distance less what a fix must be across a boundary to decide it, in metres (never negative).
    public var slack: Double
    /// How long the device needs, at the maximum speed (and acceleration), to cover the slack.
    public var timeToReach: Duration
    /// How far the device must move before the truth could be decidable against some region's state,
    /// in metres (positive).
    public var decisionSlack: Double
    /// How long the device needs, at the maximum speed (and acceleration), to cover the decision slack:
    /// the earliest a transition could be owed after the fix. At most ``horizon``.
    public var timeToDecidable: Duration

    /// The longest a reach looks ahead: one hour. A boundary farther than an hour's travel is searched
    /// no further (the search grows with the distance) and counts as an hour away, so one sleep lasts at
    /// most about an hour, well within the two hours or so a receiver's ephemerides stay valid.
    public static let horizon = Duration.seconds(3600)

    /// A travel time in seconds as a duration within zero and the ``RegionReach/horizon``. Whatever the arithmetic
    /// gave: a time that is not a number is taken as none (look again at once, never sleep past a boundary), and
    /// one past the horizon as the horizon, before any conversion to an integer that could not hold it.
    static func duration(seconds: Double) -> Duration {
        let bounded = min(1e9, max(0, seconds))
        return min(RegionReach.horizon, .nanoseconds(Int64((bounded * 1e9).rounded(.down))))
    }
}

extension RegionEvaluator {
    /// How soon a region could want a fix after `fix`, the fix the evaluator last took; `nil` when no
    /// region is monitored, when the fix is invalid, or when some region's state is in doubt — unknown, or left undecided by the
    /// last fix — and either the truth could already be decidable against that region's state, or the fix
    /// does not say the device is still (a measured speed within ``GeofenceConfiguration/speedErrorMargin`` of
    /// zero: one the source derived from two fixes, ``Location/motionIsDerived``, is an average over the time
    /// between them, and neither says it is still nor bounds its acceleration) and `inDoubtWhileMoving` is false: a device that may be moving can get the truth across a
    /// boundary between two fixes at a pace no fix tells, so a plan that must answer as soon as fixes
    /// allow tracks it; one with a latency budget plans by the maximum speed instead.
    ///
    /// - Complexity: O(log(d / 250 m)) grid queries for the nearest boundary d metres away (see
    ///   ``distanceToNearestBoundary(from:within:)``), searched no farther than ``RegionReach/horizon``
    ///   at the maximum speed, plus O(k) for the k regions in doubt.
    public mutating func reach(from fix: Location, inDoubtWhileMoving: Bool = false) -> RegionReach? {
        guard !slots.isEmpty, fix.isValid else { return nil }
        let position = GeoPoint(fix)
        let margin = configuration.hysteresisMargin(accuracy: fix.horizontalAccuracy)
        // A speed the source derived from this fix and the one before is their average over the time between them
        // (a whole sleep, after one): a device that set off since may already be going faster. It bounds nothing.
        let speed = fix.motionIsDerived ? nil : fix.speed
        var doubt = Double.infinity
        if hasRegionInDoubt {
            let still = speed.map { (0...GeofenceConfiguration.speedErrorMargin).contains($0) } ?? false
            guard still || inDoubtWhileMoving, let slack = decisionSlackInDoubt(from: position, accuracy: fix.horizontalAccuracy), slack > 0
            else { return nil }
            doubt = slack
        }
        let decision = configuration.decisionDistance(accuracy: fix.horizontalAccuracy)
        let limit = decision + configuration.maximumSpeed * Double(RegionReach.horizon.components.seconds)
        let distance = distanceToNearestBoundary(from: position, within: limit) ?? limit
        let slack = max(0, distance - decision)
        let decisionSlack = min(distance + margin, doubt)
        func time(_ distance: Double) -> Duration { RegionReach.duration(seconds: configuration.timeToTravel(distance, from: speed)) }
        return RegionReach(distance: distance, slack: slack, timeToReach: time(slack), decisionSlack: decisionSlack, timeToDecidable: time(decisionSlack))
    }

    /// The least decision slack among the regions in doubt, from the fix at `position` of `accuracy` metres:
    /// how far the device must move before the truth could be the smallest decision distance — a perfect
    /// fix's, ``GeofenceConfiguration/minimumMargin`` — across a boundary from the region's state (an
    /// unknown region: across the boundary from the fix's nearer side). The truth lies within the fix's
    /// confidence circle, so it may already be that much nearer. Not positive when the truth could be
    /// decidable already.
    /// - Complexity: O(k) for the k regions in doubt, plus O(n) for each polygon of n vertices among them.
    func decisionSlackInDoubt(from position: GeoPoint, accuracy: Double) -> Double? {
        let headroom = configuration.decisionDistance(accuracy: 0) - configuration.confidenceScale * accuracy
        var least: Double?
        func take(_ slot: Int32) {
            let record = records[Int(slot)]!
            let across = record.region.signedDistance(to: position)  // positive outside
            let slack: Double
            switch record.state {
            case .outside: slack = headroom + across
            case .inside: slack = headroom - across
            case .unknown: slack = headroom - abs(across)
            }
            least = min(least ?? slack, slack)
        }
        for slot in unknownSlots { take(slot) }
        for slot in undecidedSlots { take(slot) }
        return least
    }
}

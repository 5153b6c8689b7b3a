/// The rules every monitored region is decided by (see <doc:Geofences>).
///
/// A fix of horizontal accuracy `a` decides a region only when its *confidence circle* — radius
/// ``confidenceScale`` × `a` around the fix — lies on one side of the boundary by the *hysteresis margin*
/// `max(` ``minimumMargin`` `,` ``accuracyMargin`` × `a)`: the signed distance from the fix to the
/// boundary must be at least their sum. Between the two it decides nothing, and the region keeps its state.
public struct GeofenceConfiguration: Sendable, Hashable {
    /// The smallest hysteresis margin, in metres (default 20).
    public var minimumMargin: Double
    /// The hysteresis margin as a multiple of the fix's accuracy, when that is larger (default 1).
    public var accuracyMargin: Double
    /// The confidence circle's radius as a multiple of the fix's horizontal accuracy (default 2).
    ///
    /// A fix's ``Location/horizontalAccuracy`` is a radius of about 68 % confidence, 1.5 σ for a
    /// two-dimensional Gaussian error; twice it, 3 σ, holds about 99 % of fixes. With the margin on top, a
    /// fix must stray about 4.5 σ across a boundary to decide the wrong side, which a 1 Hz stream does
    /// less than once a day.
    public var confidenceScale: Double
    /// How long a region keeps its state without a confident fix before it becomes
    /// ``GeofenceState/unknown`` (default 2 minutes; `nil`: never).
    public var unknownAfter: Duration?
    /// The longest straight segment between two fixes that is searched for a crossing (default 50 km):
    /// a longer jump (the device reappearing far away) tells nothing about the way it took.
    public var maximumCrossingSegment: Double
    /// The fastest the device is taken to move, in metres per second (default 30, about 110 km/h, for
    /// vehicles; about 3 for people on foot). The monitors let the source sleep until the earliest instant
    /// a region could be decided at this speed (see <doc:Geofences>), so a device that moves faster can
    /// cross a boundary before the source wakes. Across such a sleep, a crossing read off the straight line
    /// between two fixes is reported only when every way at this speed passes through the region.
    public var maximumSpeed: Double
    /// The fastest the device speeds up, in m/s² (default `nil`: it is taken to be at ``maximumSpeed`` at
    /// once). With it, a fix that reports its speed bounds how soon a region could be decided more tightly:
    /// from that speed (plus ``speedErrorMargin`` for the speed's own error) the device must first speed
    /// up, so a vehicle waiting at a light or in a queue lets the source sleep where one assumed to move
    /// off at full speed would not (see <doc:Geofences>). Set it only as a true bound (about 3 m/s² for
    /// cars, 1 m/s² for people on foot): a device that speeds up faster can reach a boundary before the
    /// source wakes.
    public var maximumAcceleration: Double?

    /// What is added to a fix's reported speed before the device is taken to speed up from it, m/s.
    public static let speedErrorMargin = 1.0

    /// Creates a configuration.
    public init(
        minimumMargin: Double = 20,
        accuracyMargin: Double = 1,
        confidenceScale: Double = 2,
        unknownAfter: Duration? = .seconds(120),
        maximumCrossingSegment: Double = 50_000,
        maximumSpeed: Double = 30,
        maximumAcceleration: Double? = nil
    ) {
        self.minimumMargin = minimumMargin
        self.accuracyMargin = accuracyMargin
        self.confidenceScale = confidenceScale
        self.unknownAfter = unknownAfter
        self.maximumCrossingSegment = maximumCrossingSegment
        self.maximumSpeed = maximumSpeed
        self.maximumAcceleration = maximumAcceleration
    }

    /// Throws when a value is out of range: negative or non-finite factors and distances, a
    /// non-positive timeout, a maximum speed or acceleration that is not finite and positive.
    public func validate() throws(GeofenceError) {
        guard minimumMargin.isFinite && minimumMargin >= 0 else { throw .invalidOption("minimumMargin") }
        guard accuracyMargin.isFinite && accuracyMargin >= 0 else { throw .invalidOption("accuracyMargin") }
        guard confidenceScale.isFinite && confidenceScale >= 0 else { throw .invalidOption("confidenceScale") }
        if let unknownAfter, unknownAfter <= .zero { throw .invalidOption("unknownAfter") }
        guard maximumCrossingSegment.isFinite && maximumCrossingSegment >= 0 else { throw .invalidOption("maximumCrossingSegment") }
        guard maximumSpeed.isFinite && maximumSpeed > 0 else { throw .invalidOption("maximumSpeed") }
        if let maximumAcceleration, !(maximumAcceleration.isFinite && maximumAcceleration > 0) {
            throw .invalidOption("maximumAcceleration")
        }
    }

    /// The least time, in seconds, the device needs to cover `distance` metres from a fix that reported
    /// `speed` (m/s, `nil`: unknown): at ``maximumSpeed`` throughout, or, with ``maximumAcceleration`` and
    /// a speed, speeding up at most that fast from the speed (plus ``speedErrorMargin``) to ``maximumSpeed``.
    func timeToTravel(_ distance: Double, from speed: Double?) -> Double {
        let top = maximumSpeed
        guard let acceleration = maximumAcceleration, let speed, speed.isFinite else { return distance / top }
        let start = min(top, max(0, speed) + Self.speedErrorMargin)
        let rampTime = (top - start) / acceleration
        let rampDistance = start * rampTime + acceleration * rampTime * rampTime / 2
        if distance <= rampDistance { return ((start * start + 2 * acceleration * distance).squareRoot() - start) / acceleration }
        return rampTime + (distance - rampDistance) / top
    }

    /// How far across the boundary a fix of `accuracy` metres must be to decide a region: its confidence circle
    /// (``confidenceScale`` × `accuracy`) and the hysteresis margin beyond it.
    @inline(__always)
    public func decisionDistance(accuracy: Double) -> Double {
        confidenceScale * accuracy + hysteresisMargin(accuracy: accuracy)
    }

    /// The hysteresis margin for a fix of `accuracy` metres: how far beyond the boundary its confidence
    /// circle must lie to decide a region.
    @inline(__always)
    func hysteresisMargin(accuracy: Double) -> Double {
        max(minimumMargin, accuracyMargin * accuracy)
    }
}

/// How one region is monitored.
public struct GeofenceOptions: Sendable, Hashable {
    /// After this long inside, the region reports ``GeofenceTransition/dwelled`` (once per stay);
    /// `nil`: never.
    public var loiteringDelay: Duration?
    /// The region's state as an earlier monitor of it left it, for a monitor that takes up where that one
    /// stopped (a program restarted, its fences kept in its own storage); `nil`: the region starts
    /// ``GeofenceState/unknown`` (see <doc:Geofences>).
    public var restoredState: GeofenceRestoredState?
    /// How late a transition may come after the instant it could first be decided, the latency budget the
    /// power planner may spend to save energy (default ``immediateResponsiveness``, zero: as soon as the
    /// receiver's fixes allow; at most ``maximumResponsiveness``). With a budget, the source sleeps until a
    /// fix is due at the earliest instant a boundary could be decided plus the budget, far from every boundary,
    /// near one, and in doubt alike, and runs once a region in doubt could be decidable and the budget is spent
    /// (see <doc:Geofences>). While several monitors run, the smallest budget among them sets the plan.
    public var responsiveness: Duration

    /// Transitions as soon as the receiver's fixes allow: the default ``responsiveness``.
    public static let immediateResponsiveness = Duration.zero
    /// The largest ``responsiveness``: five minutes, budgets of minutes being what phones' geofencing is
    /// commonly given. Fixes a budget apart can have a device enter a region and leave it between two of
    /// them; the crossing is reported only when every way the device can have taken at
    /// ``GeofenceConfiguration/maximumSpeed`` passes through the region, so no road skirting it gives a
    /// false one (see <doc:Geofences>). The farther apart the fixes, the wider the ways around a region, and
    /// the more such crossings go unreported: budgets of minutes suit a device that stays where it arrives,
    /// not one passing through small regions on its way.
    public static let maximumResponsiveness = Duration.seconds(300)

    /// Creates options.
    public init(loiteringDelay: Duration? = nil, restoredState: GeofenceRestoredState? = nil, responsiveness: Duration = Self.immediateResponsiveness) {
        self.loiteringDelay = loiteringDelay
        self.restoredState = restoredState
        self.responsiveness = responsiveness
    }

    /// Throws when a value is out of range: a negative loitering delay, a responsiveness below zero or above
    /// ``maximumResponsiveness``.
    public func validate() throws(GeofenceError) {
        if let loiteringDelay, loiteringDelay < .zero { throw .invalidOption("loiteringDelay") }
        guard responsiveness >= .zero && responsiveness <= Self.maximumResponsiveness else { throw .invalidOption("responsiveness") }
    }
}

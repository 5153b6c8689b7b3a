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
    /// vehicles; about 3 for people on foot). Far from every boundary, the monitors let the source sleep
    /// until the earliest instant a boundary could be reached at this speed (see <doc:Geofences>), so a
    /// device that moves faster can cross a boundary before the source wakes.
    public var maximumSpeed: Double

    /// Creates a configuration.
    public init(
        minimumMargin: Double = 20,
        accuracyMargin: Double = 1,
        confidenceScale: Double = 2,
        unknownAfter: Duration? = .seconds(120),
        maximumCrossingSegment: Double = 50_000,
        maximumSpeed: Double = 30
    ) {
        self.minimumMargin = minimumMargin
        self.accuracyMargin = accuracyMargin
        self.confidenceScale = confidenceScale
        self.unknownAfter = unknownAfter
        self.maximumCrossingSegment = maximumCrossingSegment
        self.maximumSpeed = maximumSpeed
    }

    /// Throws when a value is out of range: negative or non-finite factors and distances, a
    /// non-positive timeout, a maximum speed that is not finite and positive.
    public func validate() throws(GeofenceError) {
        guard minimumMargin.isFinite && minimumMargin >= 0 else { throw .invalidOption("minimumMargin") }
        guard accuracyMargin.isFinite && accuracyMargin >= 0 else { throw .invalidOption("accuracyMargin") }
        guard confidenceScale.isFinite && confidenceScale >= 0 else { throw .invalidOption("confidenceScale") }
        if let unknownAfter, unknownAfter <= .zero { throw .invalidOption("unknownAfter") }
        guard maximumCrossingSegment.isFinite && maximumCrossingSegment >= 0 else { throw .invalidOption("maximumCrossingSegment") }
        guard maximumSpeed.isFinite && maximumSpeed > 0 else { throw .invalidOption("maximumSpeed") }
    }

    /// How far across the boundary a fix of `accuracy` metres must be to decide a region.
    @inline(__always)
    func decisionDistance(accuracy: Double) -> Double {
        confidenceScale * accuracy + max(minimumMargin, accuracyMargin * accuracy)
    }
}

/// How one region is monitored.
public struct GeofenceOptions: Sendable, Hashable {
    /// After this long inside, the region reports ``GeofenceTransition/dwelled`` (once per stay);
    /// `nil`: never.
    public var loiteringDelay: Duration?

    /// Creates options.
    public init(loiteringDelay: Duration? = nil) {
        self.loiteringDelay = loiteringDelay
    }

    /// Throws when a value is out of range (a negative loitering delay).
    public func validate() throws(GeofenceError) {
        if let loiteringDelay, loiteringDelay < .zero { throw .invalidOption("loiteringDelay") }
    }
}

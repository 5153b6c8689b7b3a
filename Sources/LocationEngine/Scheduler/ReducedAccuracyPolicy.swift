/// How fixes are coarsened under reduced accuracy authorization (see <doc:AuthorizationAndPrivacy>; Apple: "within about
/// 1–20 km, a few updates an hour").
///
/// A coarsened fix is deterministic: its position is the centre of the grid cell the measured position
/// falls in (cells about ``gridSpacing`` metres on a side: latitude bands of that height, each cut into
/// equal-width columns, so cells stay square-ish from the equator to the poles); its accuracy is at
/// least ``gridSpacing`` and never less than the measured error plus the distance from the cell's
/// centre to its farthest corner (so it stays honest), rounded up to a quarter of the grid (so the
/// measured error cannot be read back); altitude, vertical accuracy, speed and course are withheld.
/// The scheduler lets through at most one fix per ``minimumInterval``, so a request whose maximum age
/// is shorter than that may time out waiting for the next coarse fix.
///
/// A request finer than ``gridSpacing`` can never be satisfied by a coarsened fix: it ends with
/// ``LocationStatus/accuracyReduced`` or, when it names a declared purpose key, asks for temporary
/// full accuracy.
public struct ReducedAccuracyPolicy: Sendable, Hashable {
    /// The side of a grid cell and the finest accuracy a coarsened fix reports, in metres
    /// (clamped to 1 000…20 000; default 3 000, so city-level requests can still be served).
    public let gridSpacing: Double
    /// The least time between two coarsened fixes (clamped to ≥ 0; default 10 minutes: six updates
    /// an hour, and a cached coarse fix stays young enough for city-level requests meanwhile).
    public let minimumInterval: Duration

    /// Creates a policy; out-of-range values are clamped (a non-finite spacing becomes the default).
    public init(gridSpacing: Double = 3000, minimumInterval: Duration = .seconds(600)) {
        self.gridSpacing = gridSpacing.isFinite ? min(20_000, max(1000, gridSpacing)) : 3000
        self.minimumInterval = max(.zero, minimumInterval)
    }

    /// Whether no coarsened fix can satisfy `accuracy`.
    @inlinable
    public func cannotSatisfy(_ accuracy: LocationAccuracy) -> Bool {
        accuracy.horizontalAccuracy < gridSpacing
    }

    /// The coarsened form of `location` (which must be valid: finite, in range). A location already coarse
    /// (``isCoarse(_:)``) is its own coarsened form: coarsening a remembered fix again, as each new reduction of
    /// accuracy does, leaves it as it is rather than growing its radius.
    /// - Complexity: O(1)
    public func coarsen(_ location: Location) -> Location {
        let cell = cell(containing: location.latitude, location.longitude)
        let farthestCorner = cell.farthestCorner
        let step = radiusStep
        // Already as coarsening leaves a fix — a centre, nothing finer than the grid, a radius on the steps and at
        // least the cell's farthest corner — it is left as it is, so that coarsening again changes nothing; a
        // precise fix that merely sits on a centre with a smaller radius, or one off the steps, is coarsened.
        let radius = location.horizontalAccuracy
        if isCoarse(location, in: cell), radius >= max(gridSpacing, (farthestCorner / step).rounded(.up) * step),
            (radius / step).rounded(.up) * step == radius
        {
            return location
        }
        // Rounded up to a quarter of the grid, so the measured error cannot be read back from it.
        let accuracy = max(gridSpacing, ((location.horizontalAccuracy + farthestCorner) / step).rounded(.up) * step)
        var coarse = Location(
            latitude: cell.centreLatitude, longitude: cell.centreLongitude, horizontalAccuracy: accuracy,
            utcTime: location.utcTime)
        // A radius grown from an assumed one is an assumption still.
        coarse.horizontalAccuracyIsEstimated = location.horizontalAccuracyIsEstimated
        return coarse
    }

    /// The step coarse radii are rounded up to: a quarter of the grid.
    public var radiusStep: Double { gridSpacing / 4 }

    /// The largest measured error a fix near `latitude`, `longitude` may have for its coarsened form to have a
    /// radius of at most `radius` metres — what to ask of a source for an answer that is given coarsened — or
    /// `nil` when no coarsened fix has so small a radius. Exact for a fix in the cell of that position: a fix
    /// meets it exactly when its coarse radius meets `radius`, so whether one does tells no more of its measured
    /// error than its coarse radius does. Cells of one latitude band are alike; a neighbouring band's corner
    /// differs by well under a metre, except within a few cells of the poles.
    /// - Complexity: O(1)
    public func largestMeasuredError(coarsenedWithin radius: Double, near latitude: Double, _ longitude: Double) -> Double? {
        guard radius.isFinite, radius >= gridSpacing else { return nil }
        // The coarse radius is the measured error plus the corner, rounded up to a step: at most `radius` exactly
        // when that sum is at most the last step within it.
        let within = (radius / radiusStep).rounded(.down) * radiusStep
        let corner = cell(containing: latitude, longitude).farthestCorner
        var largest = within - corner
        // As `coarsen(_:)` adds it back, the sum must not round past the step.
        while largest >= 0 && largest + corner > within { largest = largest.nextDown }
        return largest >= 0 ? largest : nil
    }

    /// `update` with its fix coarsened and the level it achieves read again.
    /// - Complexity: O(1)
    func coarsened(_ update: LocationUpdate) -> LocationUpdate {
        let location = coarsen(update.location)
        return LocationUpdate(
            location: location, age: update.age,
            achievedAccuracy: AccuracyLevel.achieved(horizontalAccuracy: location.horizontalAccuracy, age: update.age))
    }

    /// `result` with its fix, if any, coarsened, the level it achieves read again, and a reason that named the
    /// fix's accuracy telling of the coarse one.
    /// - Complexity: O(1)
    func coarsened(_ result: LocationResult) -> LocationResult {
        guard let location = result.location else { return result }
        let coarseLocation = coarsen(location)
        var coarse = result
        coarse.location = coarseLocation
        coarse.achievedAccuracy = AccuracyLevel.achieved(horizontalAccuracy: coarseLocation.horizontalAccuracy, age: result.age ?? .zero)
        coarse.reason = result.reason?.telling(of: coarseLocation, age: result.age ?? .zero)
        return coarse
    }

    /// Whether `location` is already coarse: its position is a cell centre and it carries nothing finer
    /// than the grid (the property the tests check of everything delivered under reduced accuracy).
    /// An invalid location (not finite, out of range) is not coarse.
    public func isCoarse(_ location: Location) -> Bool {
        guard location.isValid else { return false }
        return isCoarse(location, in: cell(containing: location.latitude, location.longitude))
    }

    /// Whether `location`, which lies in `cell`, is already coarse.
    private func isCoarse(_ location: Location, in cell: Cell) -> Bool {
        location.latitude == cell.centreLatitude && location.longitude == cell.centreLongitude
            && location.horizontalAccuracy >= gridSpacing && location.altitude == nil
            && location.ellipsoidalAltitude == nil && location.verticalAccuracy == nil
            && location.speed == nil && location.course == nil
    }

    struct Cell {
        var south: Double
        var north: Double
        var west: Double
        var width: Double
        var centreLatitude: Double { (south + north) / 2 }
        var centreLongitude: Double { west + width / 2 }

        /// The distance from the centre to the farthest corner, metres.
        var farthestCorner: Double {
            let centre = Location(latitude: centreLatitude, longitude: centreLongitude, horizontalAccuracy: 0)
            var farthest = 0.0
            for latitude in [south, north] {
                for longitude in [west, west + width] {
                    farthest = max(farthest, centre.distance(to: Location(latitude: latitude, longitude: longitude, horizontalAccuracy: 0)))
                }
            }
            return farthest
        }
    }

    /// The grid cell containing a position. A cell's centre lies in that same cell, so coarsening is
    /// idempotent on positions.
    func cell(containing latitude: Double, _ longitude: Double) -> Cell {
        let metresPerDegree = 6_371_008.8 * Double.pi / 180
        let bandHeight = gridSpacing / metresPerDegree
        let bands = Int((180 / bandHeight).rounded(.up))
        let band = Self.index(((latitude + 90) / bandHeight).rounded(.down), below: bands)
        let south = -90 + Double(band) * bandHeight
        let north = min(90, south + bandHeight)
        let centre = (south + north) / 2
        let idealWidth = bandHeight / max(_cos(centre * Double.pi / 180), 1e-9)
        let columns = max(1, min(Int(360 / bandHeight), Int((360 / idealWidth).rounded(.down))))
        let width = 360 / Double(columns)
        let column = Self.index(((longitude + 180) / width).rounded(.down), below: columns)
        return Cell(south: south, north: north, west: -180 + Double(column) * width, width: width)
    }

    /// `position` as an index in `0..<count`, clamped while still a `Double`: a coordinate out of range or not a
    /// number (outside the engine, which drops such fixes) lands in an edge cell instead of trapping the conversion.
    private static func index(_ position: Double, below count: Int) -> Int {
        guard position > 0 else { return 0 }
        return position >= Double(count - 1) ? count - 1 : Int(position)
    }
}

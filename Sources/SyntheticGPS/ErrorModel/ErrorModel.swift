/// The receiver's position and velocity errors: time-correlated noise per axis, scaled by a standard
/// deviation that the receiver knows, plus multipath events.
///
/// Each axis (east, north, up, and the two velocity axes) carries a unit ``GaussMarkov`` process. The
/// error reported for a fix is that unit value times the fix's current 1σ, so at every instant the east
/// and north errors are independent N(0, σ²) and the radial error is Rayleigh distributed. The
/// receiver reports `horizontalAccuracy = ErrorModel.confidenceScale · σ`, the radius that holds the
/// true position with 68 % probability, exactly, whatever σ does over time.
///
/// Multipath: events arrive as a Poisson process. At an event the horizontal unit values are redrawn
/// (the position jumps) and σ is multiplied by a factor `k ∈ 2.5…6` that decays back to 1 with a time
/// constant of 3–10 s. The receiver sees its residuals grow and reports the larger σ, so accuracy stays honest.
///
/// The processes step on the receiver's epoch grid, every grid instant from the first one asked for (the
/// receiver's first fix), whether or not a fix is taken there: the error at an epoch is a function of the seed,
/// that first instant and the epoch, not of which epochs between them a receiver happened to compute. Two
/// designs that start one receiver together and sample it differently (one tracking continuously, one
/// sleeping between fixes) see the same unit noise, and the same multipath events, wherever both take a fix —
/// common random numbers, so a comparison between them measures their sampling and not their luck. (The
/// σ that scales the noise is the receiver's own: a restart's first fixes are rougher.)
struct ErrorModel: Sendable {
    /// `√(−2 ln(1 − 0.68))`: the radius, in per-axis σ, of the circle holding a circular Gaussian error
    /// with 68 % probability.
    static let confidenceScale = (-2 * Math.log(1 - 0.68)).squareRoot()

    private var east: GaussMarkov
    private var north: GaussMarkov
    private var up: GaussMarkov
    private var velocityEast: GaussMarkov
    private var velocityNorth: GaussMarkov
    private var random: SeededGenerator
    /// Seconds between the grid's instants.
    private let gridInterval: Double
    /// The grid instant the processes stand at, in intervals (`nil` before the first advance).
    private var gridStep: Int?
    private let multipathMeanInterval: Double
    private var nextMultipath: Double
    private var multipathStart = -Double.infinity
    private var multipathPeak = 1.0
    private var multipathDecay = 1.0

    /// An error model with horizontal correlation time `correlationTime` seconds and `multipathPerHour`
    /// multipath events per hour on average (`0` for none), stepping every `gridInterval` seconds.
    init(correlationTime: Double, multipathPerHour: Double, gridInterval: Double, random: SeededGenerator) {
        var random = random
        self.gridInterval = gridInterval
        east = GaussMarkov(correlationTime: correlationTime, random: &random)
        north = GaussMarkov(correlationTime: correlationTime, random: &random)
        up = GaussMarkov(correlationTime: correlationTime * 2, random: &random)
        velocityEast = GaussMarkov(correlationTime: 1.5, random: &random)
        velocityNorth = GaussMarkov(correlationTime: 1.5, random: &random)
        multipathMeanInterval = multipathPerHour > 0 ? 3600 / multipathPerHour : .infinity
        nextMultipath = multipathPerHour > 0 ? random.exponential(mean: multipathMeanInterval) : .infinity
        self.random = random
    }

    /// Advances every process to `elapsed` seconds, an instant of the grid, one grid interval at a time, and
    /// starts each multipath event at the first grid instant at or after it is due. An instant before the
    /// current one changes nothing.
    /// - Complexity: O(n) for the n grid instants since the last advance.
    mutating func advance(to elapsed: Double) {
        let target = Int((elapsed / gridInterval).rounded())
        guard var step = gridStep else {
            gridStep = target
            startMultipathIfDue(at: elapsed)
            return
        }
        while step < target {
            step += 1
            east.advance(by: gridInterval, random: &random)
            north.advance(by: gridInterval, random: &random)
            up.advance(by: gridInterval, random: &random)
            velocityEast.advance(by: gridInterval, random: &random)
            velocityNorth.advance(by: gridInterval, random: &random)
            startMultipathIfDue(at: Double(step) * gridInterval)
        }
        gridStep = step
    }

    private mutating func startMultipathIfDue(at elapsed: Double) {
        guard elapsed >= nextMultipath else { return }
        multipathStart = elapsed
        multipathPeak = random.uniform(2.5...6)
        multipathDecay = random.uniform(3...10)
        east.redraw(random: &random)
        north.redraw(random: &random)
        nextMultipath = elapsed + random.exponential(mean: multipathMeanInterval)
    }

    /// The factor by which multipath currently inflates the horizontal σ (`1` outside events).
    func multipathFactor(at elapsed: Double) -> Double {
        let age = elapsed - multipathStart
        guard age >= 0, age < 20 * multipathDecay else { return 1 }
        return 1 + (multipathPeak - 1) * Math.exp(-age / multipathDecay)
    }

    /// The east and north position errors in metres for a per-axis standard deviation `sigma`.
    func horizontal(sigma: Double) -> (east: Double, north: Double) {
        (east.value * sigma, north.value * sigma)
    }

    /// The vertical error in metres for a standard deviation `sigma`.
    func vertical(sigma: Double) -> Double { up.value * sigma }

    /// The east and north velocity errors in m/s for a per-axis standard deviation `sigma`.
    func velocity(sigma: Double) -> (east: Double, north: Double) {
        (velocityEast.value * sigma, velocityNorth.value * sigma)
    }
}
